"""Auggie (Augment's CLI): a command hook in ``.augment/settings.local.json`` (or settings.json) before
and after each tool call. Published protocol: the binary runs here, but only against Augment's own
backend protocol, so its hook is tested with payloads in the shape below.

Read in @augmentcode/auggie 0.36.0 (``augment.mjs``) and docs.augmentcode.com/cli/v0/hooks.md:
- settings: ``/etc/augment/settings.json``, ``~/.augment/settings.json``, the workspace's
  ``.augment/settings.local.json`` (git-ignored by Auggie) and ``.augment/settings.json``; hook groups
  are merged by matcher, their handlers unioned. The matcher is ``new RegExp(matcher).test(tool_name)``.
- the hook: a command with a shell character runs as ``bash -c COMMAND`` (``${VAR}`` replaced from the
  environment first), cwd = the payload's cwd, else ``workspace_roots[0]``; stdin ``{hook_event_name,
  conversation_id, workspace_roots, tool_name, tool_input, is_mcp_tool, tool_use_id}``. Tools:
  launch-process ``{command, wait, max_wait_seconds, cwd}``, write-process ``{terminal_id, input_text}``
  (typed into a running process, a shell too), save-file ``{path, file_content}``, str-replace-editor
  ``{command, path, ...}``, remove-files ``{file_paths: [...]}``, apply_patch ``{input}`` (a V4A patch);
  and bash ``{command}``, setup-script ``{script_content, test_commands}``, write ``{path, content}``,
  edit ``{path, edits}``.
- a block: exit 2 on PreToolUse (``shouldContinue: false``; the stderr text goes to the model). A JSON
  deny counts only with ``hookSpecificOutput.hookEventName: "PreToolUse"``. Exit 1 or any other status,
  a crash, a timeout (default 60 s) or a JSON deny without hookEventName is *allow*; no fail-closed
  switch.
- after the call: PostToolUse; ``hookSpecificOutput.additionalContext`` (with hookEventName
  ``PostToolUse``, exit 0) goes to the model.
"""
import os

from .descriptor import Harness, Protocol, context, home

PROTOCOL = Protocol("tool_name", "tool_input", {"launch-process": "command", "write-process": "input_text",
                                                 "bash": "command", "setup-script": "script_content"},
                    {"save-file": ("path",), "str-replace-editor": ("path",), "remove-files": ("file_paths",),
                     "write": ("path",), "edit": ("path",)},
                    patches={"apply_patch": "input"},
                    reads=("view", "read", "ls", "find", "grep", "grep-search", "read-process", "list-processes",
                           "codebase-retrieval", "web-fetch"),
                    workdir={"launch-process": "cwd"},
                    post=("PostToolUse",), tell=context)

HARNESS = Harness("auggie", "Auggie", PROTOCOL,
                  worktree_files=(".augment/settings*.json",),
                  user_files=lambda env: [os.path.join(home(env), ".augment", "settings.json")],
                  involves=(r"\.augment",), repo_signs=(".augment",),
                  user_signs=lambda env: [os.path.join(home(env), ".augment")])
