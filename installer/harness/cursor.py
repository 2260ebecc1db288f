"""Cursor at install time: its hook entries in .cursor/hooks.json (version 1, a flat list per event),
each with failClosed so a hook that crashes or times out blocks; known event names only (an unknown one
may void the file). Cursor has no trust step for hooks."""
import os

from .descriptor import Install, Settings, json_object

# the events Cursor knows (cursor.com/docs/agent/hooks; skillsaw cursor/hooks_valid.py, 2026-08)
KNOWN = ("sessionStart", "sessionEnd", "stop", "preCompact", "preToolUse", "postToolUse", "postToolUseFailure",
         "beforeShellExecution", "afterShellExecution", "beforeMCPExecution", "afterMCPExecution", "beforeReadFile",
         "afterFileEdit", "beforeSubmitPrompt", "afterAgentResponse", "afterAgentThought", "subagentStart",
         "subagentStop", "beforeTabFileRead", "afterTabFileEdit", "workspaceOpen")


def entries(timeout):
    every = {"timeout": timeout, "failClosed": True}
    out = {event: dict(every) for event in ("preToolUse", "beforeShellExecution", "postToolUse",
                                            "afterShellExecution", "afterFileEdit")}
    # preToolUse for the tools a check reads (the shell too: cursor-agent may fire only one of the two)
    out["preToolUse"]["matcher"] = "Shell|Write|StrReplace|Edit|MultiEdit|Delete"
    out["postToolUse"]["matcher"] = out["preToolUse"]["matcher"]
    return out


def enabled(ctx):
    rel = os.path.join(".cursor", "hooks.json")
    data = json_object(os.path.join(ctx.info.top, rel)) or {}
    if data.get("version") != 1:
        return ("fail", "%s does not say \"version\": 1, so Cursor may not load it" % rel,
                "set \"version\": 1 in %s" % rel)
    unknown = sorted(set(data.get("hooks") or {}) - set(KNOWN))
    if unknown:
        return ("warn", "%s names events Cursor may not know (%s); one unknown name can void the whole file"
                % (rel, ", ".join(unknown[:3])), "remove or rename %s in %s" % (", ".join(unknown[:3]), rel))
    return ("pass", "Cursor runs the hooks in .cursor/hooks.json (no trust step; failClosed on each)", None)


HARNESS = Install("cursor", enabled=enabled, settings=Settings(".cursor/hooks.json", "preToolUse", entries,
                                              also_pre=("beforeShellExecution",), flat=True,
                                              defaults={"version": 1}))
