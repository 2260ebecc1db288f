"""Copilot CLI: the hook file ``.github/hooks/agentguard.json`` (no matcher: every tool call)."""
import os

from .descriptor import Harness, Protocol, home


def copilot_home(env):
    """``$COPILOT_HOME``, or ``~/.copilot``."""
    return env.get("COPILOT_HOME") or os.path.join(home(env), ".copilot")


# preToolUse hands over toolArgs; permissionRequest (1.0.102, run here: after preToolUse allowed, before
# the permission rules, --allow-all-tools too) {hookName, toolName, toolInput: the arguments as they
# stand then, after every preToolUse hook's changes} and reads {"behavior": "deny", "message"}. One
# answer holds both: each event reads its own keys (run here: "Denied by preToolUse hook: R", "Permission
# denied by a PermissionRequest hook: R"); exit 2 with it, since exit 2 alone hides R from the model
PROTOCOL = Protocol("toolName", ("toolArgs", "toolInput"), {"bash": "command"},
                    {"create": ("path",), "edit": ("path",), "str_replace_editor": ("path",)},
                    reads=("view", "glob", "grep", "report_intent", "think"),
                    deny=lambda reason: ({"permissionDecision": "deny", "permissionDecisionReason": reason,
                                          "behavior": "deny", "message": reason}, 2),
                    # postToolUse runs after a call that succeeded, postToolUseFailure after one that
                    # failed; both append additionalContext as "Additional guidance from ... hooks"
                    post=("postToolUse", "postToolUseFailure"),
                    tell=lambda reason, event: ({"additionalContext": reason}, 0))

HARNESS = Harness("copilot", "Copilot CLI", PROTOCOL,
                  worktree_files=(".github/hooks", ".github/copilot/settings*.json"),
                  user_files=lambda env: [os.path.join(copilot_home(env), "config.json")],
                  involves=(r"\.github[/\\](hooks|copilot)", r"\.copilot"),
                  repo_signs=(".github/hooks", ".github/copilot"), user_signs=lambda env: [copilot_home(env)])
