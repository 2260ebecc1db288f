"""Claude Code: a command hook in ``.claude/settings*.json`` before and after each tool call."""
import os

from .descriptor import Harness, Protocol, context, home

# PowerShell: the tool Claude Code offers for PowerShell (on Windows without Git Bash, or with
# CLAUDE_CODE_USE_POWERSHELL_TOOL=1), input {command, timeout, description, run_in_background} (its
# schema in 2.1.332: "The PowerShell command to execute"); a matcher naming only Bash does not see it
PROTOCOL = Protocol("tool_name", "tool_input", {"Bash": "command", "PowerShell": "command"},
                    {"Write": ("file_path",), "Edit": ("file_path",), "MultiEdit": ("file_path",),
                     "NotebookEdit": ("notebook_path",)},
                    reads=("Read", "Glob", "Grep", "LS", "WebFetch", "WebSearch", "TodoWrite"),
                    # a JSON deny with exit 0: with exit 2 Claude Code would show the model the whole hook
                    # command before the reason
                    deny=lambda reason: ({"hookSpecificOutput": {
                        "hookEventName": "PreToolUse", "permissionDecision": "deny",
                        "permissionDecisionReason": reason}}, 0),
                    # a call that fails (a command's non-zero exit too) gets PostToolUseFailure
                    post=("PostToolUse", "PostToolUseFailure"), tell=context, powershell=("PowerShell",))


def _user_files(env):
    return [os.path.join(home(env), ".claude", "settings*.json"), os.path.join(home(env), ".claude.json")]


def _user_signs(env):
    return [os.path.join(home(env), ".claude"), os.path.join(home(env), ".claude.json")]


HARNESS = Harness("claude", "Claude Code", PROTOCOL,
                  worktree_files=(".claude/settings*.json",), user_files=_user_files,
                  not_watched=(".claude.json",),  # written by Claude Code itself all the time (not by tool calls)
                  involves=(r"\.claude",), repo_signs=(".claude",), user_signs=_user_signs)
