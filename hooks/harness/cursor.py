"""Cursor (the IDE and ``cursor-agent``): command hooks in ``.cursor/hooks.json`` (``"version": 1``;
published protocol: Cursor is closed source with hosted models only, not run here).

From cursor.com/docs/agent/hooks and integrations that ship against it (kenryu42/cc-safety-net
src/integrations/cursor; stbenjam/skillsaw cursor/hooks_valid.py; cdot65 prisma-airs-cursor-hooks
reference): entries ``{command, matcher?, timeout (s), failClosed}`` under each event, every file (user
``~/.cursor/hooks.json``, project, enterprise) run. ``preToolUse``: ``{hook_event_name, tool_name,
tool_input, cwd, tool_use_id, workspace_roots, ...}`` (``Shell``: ``{command, working_directory}``);
``beforeShellExecution``: ``{command, cwd, ...}`` (the one event ``cursor-agent -p`` is known to fire);
after a call ``postToolUse`` (``tool_name``, ``tool_input``), ``afterShellExecution`` (``command``),
``afterFileEdit`` (``file_path``, ``edits``). A block is stdout ``{"permission": "deny", "user_message",
"agent_message"}`` (what the model reads) or exit 2: agentguard gives both. A hook that crashes, times
out or prints what is not JSON lets the call run unless its entry says ``failClosed: true`` (install
writes it). One event name Cursor does not know may void the whole file: install writes known ones only.
"""
import os

from .descriptor import Harness, Protocol, home

PATHS = ("file_path", "path", "target_file")
FILE_TOOLS = ("Write", "StrReplace", "Edit", "MultiEdit", "Delete")


def load(payload):
    """The payload, flat: the shell and file-edit events name no tool, their fields are its input."""
    if not isinstance(payload, dict):
        return payload
    flat = dict(payload)
    if "tool_name" not in payload:
        if "command" in payload:
            flat.update(tool_name="Shell", tool_input={"command": payload["command"]})
        elif "file_path" in payload:
            flat.update(tool_name="Write", tool_input={"file_path": payload["file_path"]})
    roots = payload.get("workspace_roots")
    if not payload.get("cwd") and isinstance(roots, list) and roots and isinstance(roots[0], str):
        flat["cwd"] = roots[0]
    return flat


def deny(reason):
    return {"permission": "deny", "user_message": reason, "agent_message": reason}, 2


PROTOCOL = Protocol("tool_name", "tool_input", {"Shell": "command"}, {tool: PATHS for tool in FILE_TOOLS},
                    reads=("Read", "Grep", "Glob", "LS", "TabRead"), workdir={"Shell": "working_directory"},
                    load=load, deny=deny, post=("postToolUse", "afterShellExecution", "afterFileEdit"),
                    # postToolUse's additional_context goes to the model (the other two only observe)
                    tell=lambda reason, event: ({"additional_context": reason}, 0))

HARNESS = Harness("cursor", "Cursor", PROTOCOL,
                  worktree_files=(".cursor/hooks.json", ".cursor/hooks"),
                  user_files=lambda env: [os.path.join(home(env), ".cursor", "hooks.json"),
                                          os.path.join(home(env), ".cursor", "hooks"), "/etc/cursor/hooks.json"],
                  involves=(r"\.cursor[/\\]hooks",), repo_signs=(".cursor",),
                  user_signs=lambda env: [os.path.join(home(env), ".cursor")])
