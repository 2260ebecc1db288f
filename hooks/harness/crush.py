"""Charm Crush: a hook entry in ``.crush/crush.json`` (the workspace file, loaded last; ``crush.json``
with ``--shared``), before each shell and file-writing tool call. Crush has no post-call event.

Sources: charmbracelet/crush ``docs/hooks/README.md`` @0388f5f4 ("Configuration", "Events",
"Output", "Exit codes", "Aggregation", "Timeouts"), ``internal/hooks/hooks.go`` @0388f5f4 (events
``PreToolUse`` and ``PreCompact`` only), ``internal/hooks/input.go`` (payload, ``parseStdout``),
``internal/config/load.go`` (the files it merges: ``~/.config/crush/crush.json``, walking up from the
working directory ``.crushrc``, ``crushrc``, ``.crush.json``, ``crush.json``, and last
``.crush/crush.json``).

- Entries are flat: ``{"name", "matcher" (a Go regexp on the tool name), "command", "timeout"}``.
- Payload (stdin): ``{"event": "PreToolUse", "session_id", "cwd", "tool_name", "tool_input"}``;
  ``bash`` takes ``command`` and ``working_dir``; ``edit``, ``multiedit``, ``write``, ``download`` a
  ``file_path``.
- Refusal: exit 2, stderr "becomes the deny reason" the model sees. ``{"decision": "deny"}`` on
  stdout also denies; exit 49 halts the turn.
- Fails open: "Other: non-blocking error. Logged and ignored; the tool call proceeds" (exit 1, a
  crash), a timeout (default 30 s), stdout that is not JSON; no fail-closed switch.
- After the call: no event. The after-check of a call runs at the next pre-call (``Protocol.later``
  with no post events), and what it undid reaches the model as that call's ``context`` ("appended
  to what the model sees"; exit 0 with no decision: the call still goes through the permission flow),
  or with its refusal. The last call of a session, and a guard change the user makes between two calls,
  are seen only then (the git hooks stand meanwhile).
- "PreToolUse only fires on the top-level agent's tool calls": a sub-agent's calls (the ``agent``
  tool, ``agentic_fetch``) are not hooked (SECURITY.md).
"""
import os

from .descriptor import Harness, Protocol, config_home

PROTOCOL = Protocol("tool_name", "tool_input", {"bash": "command"},
                    {"edit": ("file_path",), "multiedit": ("file_path",), "write": ("file_path",),
                     "download": ("file_path",)},
                    reads=("view", "ls", "glob", "grep", "fetch", "sourcegraph", "diagnostics"),
                    workdir={"bash": "working_dir"}, later=True,
                    note=lambda reason: ({"context": reason}, 0))


def crush_config(env):
    """``$CRUSH_GLOBAL_CONFIG``, or ``~/.config/crush``."""
    return env.get("CRUSH_GLOBAL_CONFIG") or os.path.join(config_home(env), "crush")


HARNESS = Harness("crush", "Crush", PROTOCOL,
                  worktree_files=("crush.json", ".crush.json", ".crushrc", "crushrc", ".crush/crush.json"),
                  user_files=lambda env: [os.path.join(crush_config(env), "crush.json"),
                                          os.path.join(crush_config(env), "crushrc")],
                  involves=(r"crush\.json", r"crushrc"),
                  repo_signs=("crush.json", ".crush.json", ".crush"), user_signs=lambda env: [crush_config(env)])
