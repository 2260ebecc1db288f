"""Copilot CLI: the hook file ``.github/hooks/agentguard.json`` (no matcher: every tool call)."""
import os

from .descriptor import Harness, Protocol, home


def copilot_home(env):
    """``$COPILOT_HOME``, or ``~/.copilot``."""
    return env.get("COPILOT_HOME") or os.path.join(home(env), ".copilot")


PROTOCOL = Protocol("toolName", "toolArgs", {"bash": "command"},
                    {"create": ("path",), "edit": ("path",), "str_replace_editor": ("path",)},
                    reads=("view", "glob", "grep", "report_intent", "think"),
                    deny=lambda reason: ({"permissionDecision": "deny", "permissionDecisionReason": reason}, 2),
                    # postToolUse runs after a call that succeeded, postToolUseFailure after one that
                    # failed; both append additionalContext as "Additional guidance from ... hooks"
                    post=("postToolUse", "postToolUseFailure"),
                    tell=lambda reason, event: ({"additionalContext": reason}, 0))

HARNESS = Harness("copilot", "Copilot CLI", PROTOCOL,
                  worktree_files=(".github/hooks", ".github/copilot/settings*.json"),
                  user_files=lambda env: [os.path.join(copilot_home(env), "config.json")],
                  involves=(r"\.github[/\\](hooks|copilot)", r"\.copilot"),
                  repo_signs=(".github/hooks", ".github/copilot"), user_signs=lambda env: [copilot_home(env)])
