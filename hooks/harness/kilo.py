"""Kilo Code (the ``kilo`` CLI, a fork of OpenCode): agentguard's plugin in ``.kilo/plugins``, the
same template as OpenCode's plugin (the same plugin API), which runs the hook command.

Read from ``@kilocode/cli-linux-x64`` 7.7.9 ``bin/kilo`` (its JS is plain text) and run here:
- Plugins: every ``{plugin,plugins}/*.{ts,js}`` in each config directory loads at start, no trust
  step: ``.kilo/`` and ``.kilocode/`` (legacy) from the cwd up to the git worktree root,
  ``~/.config/kilo/``, ``~/.kilo/``, ``~/.kilocode/``, ``$KILO_CONFIG_DIR`` (the built-in "Config File
  Locations" doc; loader ``L.glob("{plugin,plugins}/*.{ts,js}")``). ``.opencode/`` is not read. Config
  files: ``kilo.json[c]``, legacy ``opencode.json[c]`` (project and ``~/.config/kilo``), ``config.json``
  (legacy, user); their ``plugin`` list adds npm plugins, which run before or after ours.
- ``tool.execute.before(input, output)``: input {tool, sessionID, callID}, output {args} as the model
  sent them (``Plugin.trigger`` in the tool wrapper, before the permission ask; also for each child
  tool of code mode). A hook that throws blocks: the tool does not run and its result is the error's
  message (observed, tests/test_harness_e2e.py). ``tool.execute.after`` runs after the call.
- Tools (``a_("name", ...)`` and bash): bash {command, workdir, timeout, description}, write
  {filePath, content}, edit {filePath, oldString, newString}, apply_patch {patchText}, notebook_edit
  {path, action, ...}.
- Fails open: a plugin that fails to load is skipped with only a log line ("failed to load plugin",
  ``x.catch(() => x.void)``); ``--pure``/``KILO_PURE`` drops external plugins and
  ``KILO_DISABLE_PROJECT_CONFIG`` every project ``.kilo`` directory. No hook timeout (a hook that
  hangs holds the call: ours ends its child itself)."""
import os

from .descriptor import Harness, Protocol, config_home, home

PROTOCOL = Protocol("tool", "args", {"bash": "command"},
                    {"write": ("filePath",), "edit": ("filePath",), "notebook_edit": ("path",)},
                    {"apply_patch": "patchText"},
                    reads=("read", "glob", "grep", "webfetch", "websearch", "todowrite", "semantic_search", "lsp",
                           "skill", "question", "notebook_read", "repo_overview", "get_context_info"),
                    workdir={"bash": "workdir"}, post=("tool.execute.after",))

_FOLDERS = (".kilo", ".kilocode")


def _user_files(env):
    folders = [os.path.join(config_home(env), "kilo")] + [os.path.join(home(env), f) for f in _FOLDERS]
    out = [os.path.join(folder, name) for folder in folders for name in ("plugin", "plugins")]
    return out + [os.path.join(folders[0], "*.json"), os.path.join(folders[0], "*.jsonc")]  # every config file


HARNESS = Harness("kilo", "Kilo Code", PROTOCOL,
                  worktree_files=tuple("%s/%s" % (folder, name) for folder in _FOLDERS
                                       for name in ("plugin", "plugins", "kilo.json", "kilo.jsonc"))
                  + ("kilo.json", "kilo.jsonc"),
                  user_files=_user_files, involves=(r"\.kilo", r"kilo\.jsonc?"),
                  repo_signs=(".kilo", ".kilocode", "kilo.json", "kilo.jsonc"),
                  user_signs=lambda env: [os.path.join(config_home(env), "kilo"),
                                          os.path.join(home(env), ".kilo"), os.path.join(home(env), ".kilocode")])
