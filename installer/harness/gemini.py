"""Gemini CLI at install time: its hook entry in .gemini/settings.json, and whether it loads project
hooks here (hooksConfig, folder trust)."""
import json
import os

from ...hooks.harness.gemini import PROTOCOL, gemini_dir, system_files
from .descriptor import Install, Settings, json_object, under
from .hookcommand import hook_command


def enabled(ctx):
    top = ctx.info.top
    trust_env = os.environ.get("GEMINI_CLI_TRUST_WORKSPACE", "").lower()
    if trust_env == "false" or os.environ.get("GEMINI_RESTRICTED_MODE", "").lower() == "true":
        return ("fail", "GEMINI_CLI_TRUST_WORKSPACE=false (or GEMINI_RESTRICTED_MODE): Gemini CLI loads no project "
                "hook", "unset GEMINI_CLI_TRUST_WORKSPACE GEMINI_RESTRICTED_MODE")
    off = switched_off(top)
    if off:
        return ("fail",) + off
    user = json_object(os.path.join(gemini_dir(os.environ), "settings.json")) or {}
    security = user.get("security") if isinstance(user.get("security"), dict) else {}
    folder = security.get("folderTrust") if isinstance(security.get("folderTrust"), dict) else {}
    # folder trust is on unless switched off (0.61 defaults it to true): an untrusted folder loads no hook
    if folder.get("enabled") is not False and trust_env != "true" and not gemini_trusted(top):
        return ("warn", "Gemini CLI trusts no folder it was not told to: in this one it loads no project settings "
                "and no hook (headless: it refuses to start)", "gemini, then trust this folder when asked (or add "
                "%s: \"TRUST_FOLDER\" to ~/.gemini/trustedFolders.json)" % json.dumps(top))
    return ("pass", "Gemini CLI trusts this folder and runs the hook from .gemini/settings.json", None)


def scopes(top):
    """Every settings file Gemini CLI reads, highest precedence first (0.61 mergeSettings: system
    over workspace over user over system defaults). It skips a system file whose folders are not
    secure (isFileAndDirectorySecureSync: a folder others can write, as /tmp); the doctor reads it
    all the same."""
    system, defaults = system_files(os.environ)
    return [system, os.path.join(top, ".gemini", "settings.json"), os.path.join(gemini_dir(os.environ),
                                                                                "settings.json"), defaults]


def switched_off(top):
    """(what, fix) when a scope switches agentguard's hook off, or None. 0.61: ``hooksConfig.enabled``
    is the highest scope's that sets it ("When disabled, no hooks will be executed");
    ``hooksConfig.disabled`` is a union over every scope (mergeStrategy "union"), matched against
    each hook's ``name || command`` (getHookName): any scope naming our hook, or (were it unnamed)
    its command, silences it."""
    ours = {"agentguard"} | {hook_command("gemini", event) for event in (None,) + tuple(PROTOCOL.post)}
    enabled = None
    for path in scopes(top):
        settings = json_object(path) or {}
        config = settings.get("hooksConfig") if isinstance(settings.get("hooksConfig"), dict) else {}
        if enabled is None and isinstance(config.get("enabled"), bool):
            enabled = config["enabled"]
            if enabled is False:
                return ("%s sets hooksConfig.enabled false, so Gemini CLI runs no hook" % path,
                        "remove hooksConfig.enabled from %s" % path)
        disabled = config.get("disabled") if isinstance(config.get("disabled"), list) else []
        if any(isinstance(name, str) and name in ours for name in disabled):
            return ("%s names agentguard's hook in hooksConfig.disabled, so Gemini CLI skips it (the list is "
                    "merged over every settings file)" % path, "remove it from hooksConfig.disabled in %s" % path)
    return None


def gemini_trusted(top):
    """~/.gemini/trustedFolders.json trusts ``top``: the longest matching rule decides."""
    path = os.environ.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH") or os.path.join(gemini_dir(os.environ),
                                                                             "trustedFolders.json")
    rules = []
    for rule, level in (json_object(path) or {}).items():
        root = os.path.dirname(rule) if level == "TRUST_PARENT" else rule
        if isinstance(rule, str) and under(top, root):
            rules.append((len(os.path.realpath(root)), level))
    return bool(rules) and max(rules)[1] in ("TRUST_FOLDER", "TRUST_PARENT")


# Gemini CLI (0.61: system, system defaults, ~/.gemini/settings.json, <workspace>/.gemini/settings.json)
# has no local, git-ignored settings file: where the team tracks theirs, install leaves it alone
HARNESS = Install("gemini", enabled=enabled,
                  settings=Settings(".gemini/settings.json", "BeforeTool",
                                    lambda timeout: {"type": "command", "name": "agentguard",
                                                     "timeout": timeout * 1000}))
