"""Qwen Code at install time: its hook entries in .qwen/settings.json, and whether it runs hooks here
(disableAllHooks, folder trust).

Settings (0.15.10 ``loadSettings``/``mergeSettings``): system ``/etc/qwen-code/settings.json``
(``$QWEN_CODE_SYSTEM_SETTINGS_PATH``) over the workspace's ``.qwen/settings.json`` over the user's
``~/.qwen/settings.json`` over ``system-defaults.json`` next to the system file
(``$QWEN_CODE_SYSTEM_DEFAULTS_PATH``); ``disableAllHooks`` in the merged result switches every hook
off, a project's file included (the user's hooks too, observed). Project hooks load only in a trusted
folder; folder trust is off unless ``security.folderTrust.enabled`` (then ``~/.qwen/trustedFolders.json``,
``$QWEN_CODE_TRUSTED_FOLDERS_PATH``, decides: TRUST_FOLDER, TRUST_PARENT, any rule that covers the
folder). No local, git-ignored settings file: where the team tracks theirs, install leaves it alone.
The timeout is in milliseconds in 0.15.10; 0.24 reads a value of 1000 or more as milliseconds too.
Qwen Code writes ``"$version"`` into a settings file that lacks it: a user's file install merged into
then keeps it after uninstall (Qwen Code's change, not agentguard's)."""
import json
import os

from .descriptor import Install, Settings, disabling, home_path, json_object, under


def _system():
    path = os.environ.get("QWEN_CODE_SYSTEM_SETTINGS_PATH") or "/etc/qwen-code/settings.json"
    defaults = os.environ.get("QWEN_CODE_SYSTEM_DEFAULTS_PATH") or os.path.join(os.path.dirname(path),
                                                                                "system-defaults.json")
    return path, defaults


def _trust_on(paths):
    for path in paths:
        security = (json_object(path) or {}).get("security")
        folder = security.get("folderTrust") if isinstance(security, dict) else None
        if isinstance(folder, dict) and isinstance(folder.get("enabled"), bool):
            return folder["enabled"]
    return False


def trusted(top):
    """``trustedFolders.json`` has a TRUST_FOLDER or TRUST_PARENT rule that covers ``top``."""
    path = os.environ.get("QWEN_CODE_TRUSTED_FOLDERS_PATH") or home_path(".qwen", "trustedFolders.json")
    for rule, level in (json_object(path) or {}).items():
        root = os.path.dirname(rule) if level == "TRUST_PARENT" else rule
        if level in ("TRUST_FOLDER", "TRUST_PARENT") and under(top, root):
            return True
    return False


def enabled(ctx):
    top = ctx.info.top
    system, defaults = _system()
    user = home_path(".qwen", "settings.json")
    off = disabling([system, os.path.join(top, ".qwen", "settings.json"), user, defaults])
    if off:
        return ("fail", "%s sets disableAllHooks, so Qwen Code runs no hook at all" % off,
                "remove \"disableAllHooks\" from %s" % off)
    if _trust_on([system, user, defaults]) and not trusted(top):
        return ("warn", "Qwen Code's folder trust is on and this folder is not trusted: it loads no project settings "
                "and no hook here", "qwen, then trust this folder when asked (or add %s: \"TRUST_FOLDER\" to "
                "~/.qwen/trustedFolders.json)" % json.dumps(top))
    return ("pass", "Qwen Code runs the hook from .qwen/settings.json (unless started with --bare)", None)


HARNESS = Install("qwen", enabled=enabled,
                  settings=Settings(".qwen/settings.json", "PreToolUse",
                                    lambda timeout: {"type": "command", "name": "agentguard",
                                                     "timeout": timeout * 1000}, anchored=True,
                                    # 0.15.10 and 0.24 (``SETTINGS_VERSION = 4``) stamp a file without it
                                    # on every start (``loadSettings``), keeping a copy as settings.json.orig
                                    defaults={"$version": 4}))
