"""Qwen Code: a command hook in ``.qwen/settings.json`` (Claude Code's shape) before and after each
tool call, in a trusted folder.

Read in @qwen-code/qwen-code 0.15.10 (the newest release for Node 20; cli.js) and 0.24.4 (chunks),
and run here with 0.15.10 (tests/harness/agent_qwen.py):
- the hook runs as ``bash -c COMMAND`` in the payload's cwd; stdin ``{session_id, transcript_path,
  cwd, hook_event_name, timestamp, permission_mode, tool_name, tool_input, tool_use_id}``;
  run_shell_command / monitor ``{command, directory?, ...}``, write_file ``{file_path, content}``,
  edit ``{file_path, old_string, new_string}``, notebook_edit (0.24) ``{notebook_path, ...}``
  (``HookRunner.executeCommandHook``, ``firePreToolUseHook``; payloads/qwen-*.json).
- a block: exit 2, the reason on stderr (parsed as the hook's output, ``decision: "deny"``); the
  tool does not run and the model's tool result is the reason. Exit 1, any other status, a timeout,
  a crash or output that is not JSON is *allow* (``firePreToolUseHook``: ``if (!response.success
  || !response.output) return { shouldProceed: true }``; no fail-closed switch in either release).
- after the call: PostToolUse (the tool succeeded) and PostToolUseFailure (it failed), whose
  ``hookSpecificOutput.additionalContext`` (exit 0) is appended to the tool result
  (``appendAdditionalContext``).
"""
import os

from .descriptor import Harness, Protocol, context, home

PROTOCOL = Protocol("tool_name", "tool_input", {"run_shell_command": "command", "monitor": "command"},
                    {"write_file": ("file_path",), "edit": ("file_path",), "notebook_edit": ("notebook_path",)},
                    reads=("read_file", "list_directory", "grep_search", "glob", "web_fetch", "todo_write"),
                    workdir={"run_shell_command": "directory", "monitor": "directory"},
                    post=("PostToolUse", "PostToolUseFailure"), tell=context)


def _user_files(env):
    qwen = os.path.join(home(env), ".qwen")
    return [os.path.join(qwen, "settings.json"), os.path.join(qwen, "trustedFolders.json")]


HARNESS = Harness("qwen", "Qwen Code", PROTOCOL,
                  worktree_files=(".qwen/settings.json",), user_files=_user_files,
                  involves=(r"\.qwen",), repo_signs=(".qwen",),
                  user_signs=lambda env: [os.path.join(home(env), ".qwen")])
