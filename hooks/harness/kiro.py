"""Kiro CLI: an agent of ours, ``.kiro/agents/agentguard.json``, whose ``hooks`` run before and after
each tool call, when that agent is the one selected (``kiro-cli chat --agent agentguard``, or
``kiro-cli settings chat.defaultAgent agentguard``).

Sources: kiro.dev/docs/cli/hooks ("Hook event", "Hook output", "Tool matching", "PreToolUse",
"PostToolUse", "Timeout", "Caching"); its open-source predecessor aws/amazon-q-developer-cli@15cc8f3c
``docs/hooks.md``, ``crates/chat-cli/src/cli/chat/mod.rs`` (exit 2 of a preToolUse hook: "PreToolHook
blocked the tool execution: <stderr>", the tool's error result the model reads),
``crates/chat-cli/src/cli/chat/cli/hooks.rs`` (timeout and spawn failure: an error shown, the tool
runs), ``crates/chat-cli/src/cli/agent/hook.rs`` (``HookTrigger`` in camelCase; ``matcher``,
``command``, ``timeout_ms``, ``cache_ttl_seconds``).

- Payload (stdin): ``{"hook_event_name": "preToolUse", "cwd", "tool_name", "tool_input"}``
  (``tool_response`` on postToolUse). The shell tool is ``execute_bash`` (``shell`` in Kiro's docs)
  with ``command``; the file tool ``fs_write`` (``write``) with ``path``: both names are matched.
- Refusal: exit 2 only, the reason on stderr (no JSON decision).
- Fails open: any other status ("Show STDERR warning to user, allow tool execution"), a timeout
  (default 30 s), a hook that cannot start; no fail-closed switch. A cached result is reused for
  ``cache_ttl_seconds``: ours is 0.
- After the call: postToolUse runs the after-check (undone at once); it cannot block or speak to the
  model, so what was undone is told at the next pre-call, as that call's refusal (``Protocol.later``).
- Only the selected agent's hooks run: the built-in default agent, or any other, runs none of ours.
"""
import os

from .descriptor import Harness, Protocol, home

PROTOCOL = Protocol("tool_name", "tool_input", {"execute_bash": "command", "shell": "command"},
                    {"fs_write": ("path",), "write": ("path",)},
                    reads=("fs_read", "read", "glob", "grep", "introspect", "report_issue", "thinking", "todo_list"),
                    post=("postToolUse",), later=True)


def kiro_home(env):
    """``~/.kiro``."""
    return os.path.join(home(env), ".kiro")


HARNESS = Harness("kiro", "Kiro CLI", PROTOCOL,
                  worktree_files=(".kiro/agents", ".kiro/settings"),
                  user_files=lambda env: [os.path.join(kiro_home(env), "agents", "agentguard.json"),
                                          os.path.join(kiro_home(env), "settings", "cli.json")],
                  involves=(r"\.kiro[/\\](agents|settings)",), repo_signs=(".kiro",),
                  user_signs=lambda env: [kiro_home(env)])
