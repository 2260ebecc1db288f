"""Factory Droid: a command hook in ``.factory/hooks.json`` before and after each tool call.
Published protocol: the binary runs here, but ``droid exec`` needs a Factory login even with a model
of one's own, so its hook is tested with payloads in the shape below.

Read in @factory/cli-linux-x64 0.225.2 (``bin/droid``), docs.factory.ai/harness/hooks.md and
/reference/hooks-reference:
- hooks: user ``~/.factory/hooks.json`` (``$FACTORY_HOME_OVERRIDE``), project ``.factory/hooks.json``,
  legacy ``.factory/hooks/hooks.json`` (where there is no hooks.json), over the ``hooks`` key of the
  scope's settings.json, event by event. hooks.json is the events object itself (``{"PreToolUse": [{matcher,
  hooks}]}``), settings.json's ``hooks`` key is (Claude Code's shape); timeout in seconds; the matcher
  is ``new RegExp(matcher).test(tool_name)`` (an invalid one never matches).
- stdin ``{session_id, transcript_path, cwd, permission_mode, hook_event_name, tool_name, tool_input}``;
  Execute ``{command, ...}``, Create ``{file_path, content}``, Edit / MultiEdit ``{file_path, ...}``,
  ApplyPatch ``{input}`` (a V4A patch).
- a block: exit 2, the reason on stderr, goes to the model. A JSON deny is read from the first hook
  that gives any permissionDecision, so another hook's allow masks ours; exit 2 is read after that and
  still blocks. Exit 1 or any status but 2 and 3, a timeout, a crash or output that is not JSON is
  *allow*; no fail-closed switch.
- after the call: PostToolUse; exit 2 with the text on stderr is given to the model.
- off: ``hooks.hooksDisabled`` in the merged settings; an interactive session in a folder it does
  not trust yet skips every hook (``droid exec`` runs them).
"""
import os

from .descriptor import Harness, Protocol, home

PROTOCOL = Protocol("tool_name", "tool_input", {"Execute": "command"},
                    {"Create": ("file_path",), "Edit": ("file_path",), "MultiEdit": ("file_path",)},
                    patches={"ApplyPatch": "input"},
                    reads=("Read", "LS", "Glob", "Grep", "TodoWrite", "WebSearch", "FetchUrl"),
                    post=("PostToolUse",))


def factory_home(env):
    """Droid's user folder: ``$FACTORY_HOME_OVERRIDE``, else ``~/.factory``."""
    return env.get("FACTORY_HOME_OVERRIDE") or os.path.join(home(env), ".factory")


def _user_files(env):
    return [os.path.join(factory_home(env), name) for name in ("hooks.json", "settings.json", "settings.local.json")]


HARNESS = Harness("droid", "Factory Droid", PROTOCOL,
                  worktree_files=(".factory/hooks.json", ".factory/hooks/*", ".factory/settings*.json"),
                  user_files=_user_files, involves=(r"\.factory",), repo_signs=(".factory",),
                  user_signs=lambda env: [factory_home(env)])
