"""OpenCode: agentguard's plugin in ``.opencode/plugins``, which runs the same hook command."""
import os

from .descriptor import Harness, Protocol, config_home

PROTOCOL = Protocol("tool", "args", {"bash": "command"},
                    {"write": ("filePath",), "edit": ("filePath",), "multiedit": ("filePath",)},
                    {"patch": "patchText", "apply_patch": "patchText"},
                    reads=("read", "glob", "grep", "list", "webfetch", "todowrite", "todoread"),
                    workdir={"bash": "workdir"}, post=("tool.execute.after",))


def _user_files(env):
    folder = os.path.join(config_home(env), "opencode")
    return [os.path.join(folder, "plugin"), os.path.join(folder, "plugins"), os.path.join(folder, "opencode.json*")]


HARNESS = Harness("opencode", "OpenCode", PROTOCOL,
                  worktree_files=(".opencode/plugins", ".opencode/opencode.json", ".opencode/opencode.jsonc",
                                  "opencode.json", "opencode.jsonc"),
                  user_files=_user_files, involves=(r"\.opencode", r"opencode\.json"),
                  repo_signs=(".opencode", "opencode.json", "opencode.jsonc"),
                  user_signs=lambda env: [os.path.join(config_home(env), "opencode")])
