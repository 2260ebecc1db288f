"""Windsurf (Cascade hooks): command hooks in ``.windsurf/hooks.json`` (published protocol; Windsurf is
an IDE with hosted models only, not run here).

From docs.windsurf.com/windsurf/cascade/hooks (the full text mirrored at patrickcarmichael/claude-docs
docs/ai-coding-tools/codeium/formatted/cascade-hooks-beta.md @a9add26): ``{"hooks": {EVENT: [{"command",
"show_output", "working_directory"}]}}``, no matcher, merged and all run from the system
(``/etc/windsurf/hooks.json``), user (``~/.codeium/windsurf/hooks.json``) and workspace files. The payload
on stdin: ``{agent_action_name, trajectory_id, execution_id, timestamp, tool_info}``, ``tool_info`` =
``{command_line, cwd}`` (``pre_run_command``, ``post_run_command``) or ``{file_path, edits}``
(``pre_write_code``, ``post_write_code``). Exit 2 blocks a pre-hook and "the Cascade agent will see the
error message from stderr"; exit 0 proceeds; any other exit (a crash, a missing interpreter) is an error
and the action proceeds: no timeout documented, no fail-closed switch (the hook never exits otherwise).
"""
import os

from .descriptor import Harness, Protocol, home

RUN, WRITE = ("pre_run_command", "post_run_command"), ("pre_write_code", "post_write_code")


def load(payload):
    """The payload, flat: ``agent_action_name`` names the event and the tool; ``tool_info`` its input."""
    if not isinstance(payload, dict):
        return payload
    info = payload.get("tool_info")
    flat = {"agent_action_name": payload.get("agent_action_name"), "tool_info": info,
            "hook_event_name": payload.get("agent_action_name")}
    if isinstance(info, dict) and isinstance(info.get("cwd"), str):
        flat["cwd"] = info["cwd"]
    return flat


PROTOCOL = Protocol("agent_action_name", "tool_info", {event: "command_line" for event in RUN},
                    {event: ("file_path",) for event in WRITE},
                    reads=("pre_read_code", "post_read_code"), load=load,
                    # a post hook's exit 2 shows the agent its stderr too
                    post=("post_run_command", "post_write_code"))

HARNESS = Harness("windsurf", "Windsurf", PROTOCOL,
                  worktree_files=(".windsurf/hooks.json",),
                  user_files=lambda env: [os.path.join(home(env), ".codeium", "windsurf", "hooks.json"),
                                          os.path.join(home(env), ".codeium", "hooks.json")],
                  involves=(r"\.windsurf", r"\.codeium"), repo_signs=(".windsurf",),
                  user_signs=lambda env: [os.path.join(home(env), ".codeium", "windsurf")])
