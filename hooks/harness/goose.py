"""Goose (block/goose): a hook plugin of ours, ``.agents/plugins/agentguard/`` (``plugin.json`` and
``hooks/hooks.json``), which goose loads when started from the project.

Sources: block/goose ``documentation/docs/guides/context-engineering/hooks.md`` @0825b570 ("Where
Hooks Live", "Hook Payload", "Tool Input Keys", "Blocking a Tool Call", "stdout Is the Decision
Channel", "Choose What Happens When a Hook Cannot Decide", "Disable a Hook Plugin");
``crates/goose/src/hooks`` (exit 2 blocks with stderr as the reason; a timeout, a signal, any other
status: no decision).

- Payload (stdin): ``{"event", "session_id", "matcher_context", "tool_name", "tool_input",
  "working_dir", "tool_call_id"}``; ``developer__shell`` takes ``command``, ``developer__write`` and
  ``developer__edit`` a ``path`` (older releases: ``developer__text_editor`` with ``path``).
- Refusal: exit 2 with the reason on stderr (``{"decision":"block"}`` on stdout also blocks; a
  ``"deny"`` does not). The model reads "Tool call denied by policy hook `agentguard`: <reason>. Do
  not retry; this is a policy denial, not a transient failure."
- Fails open: a hook that returns no decision (a crash, exit 1, a timeout, stray stdout) is ignored
  unless the action says ``"on_failure": "block"``: ours does (a PreToolUse-only switch).
- After the call: PostToolUse (success) and PostToolUseFailure (failure) run the after-check, which
  undoes at once; both are observation only ("a block decision from those events is ignored"), so
  what was undone is told at the next pre-call, as that call's refusal (``Protocol.later``).
- Switched off: a plugin named in ``disabledPlugins`` of ``~/.config/goose/settings.json`` or the
  project's ``.config/goose/settings.json`` is skipped; no trust prompt for project plugins.
"""
import os

from .descriptor import Harness, Protocol, config_home, home

PROTOCOL = Protocol("tool_name", "tool_input", {"developer__shell": "command"},
                    {"developer__write": ("path",), "developer__edit": ("path",),
                     "developer__text_editor": ("path",)},
                    reads=("developer__tree", "developer__read_image"),
                    cwd="working_dir", post=("PostToolUse", "PostToolUseFailure"), later=True)


def _user_files(env):
    return [os.path.join(config_home(env), "goose", "settings.json")]


HARNESS = Harness("goose", "Goose", PROTOCOL,
                  worktree_files=(".agents/plugins", ".config/goose/settings.json"), user_files=_user_files,
                  involves=(r"\.agents[/\\]plugins", r"goose[/\\]settings\.json"),
                  repo_signs=(".goosehints", ".agents/plugins", ".config/goose"),
                  user_signs=lambda env: [os.path.join(config_home(env), "goose"),
                                          os.path.join(home(env), ".agents", "plugins")])
