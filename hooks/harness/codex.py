"""Codex: a command hook in ``.codex/hooks.json``, trusted hook by hook in ``$CODEX_HOME/config.toml``."""
import os

from .descriptor import Harness, Protocol, context, home


def codex_home(env):
    """``$CODEX_HOME``, or ``~/.codex``."""
    return env.get("CODEX_HOME") or os.path.join(home(env), ".codex")


PROTOCOL = Protocol("tool_name", "tool_input", {"Bash": "command"}, {}, {"apply_patch": "command"},
                    unmatched_shell={"shell": "command", "local_shell": "command", "exec_command": "cmd"},
                    post=("PostToolUse",), tell=context)

HARNESS = Harness("codex", "Codex", PROTOCOL,
                  worktree_files=(".codex/hooks.json", ".codex/config.toml"),
                  user_files=lambda env: [os.path.join(codex_home(env), "config.toml")],
                  involves=(r"\.codex",), repo_signs=(".codex",), user_signs=lambda env: [codex_home(env)])
