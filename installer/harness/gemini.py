"""Gemini CLI at install time: its hook entry in .gemini/settings.json, and whether it loads project
hooks here (hooksConfig, folder trust)."""
import json
import os

from .descriptor import Install, Settings, home_path, json_object, under


def enabled(ctx):
    top = ctx.info.top
    trust_env = os.environ.get("GEMINI_CLI_TRUST_WORKSPACE", "").lower()
    if trust_env == "false" or os.environ.get("GEMINI_RESTRICTED_MODE", "").lower() == "true":
        return ("fail", "GEMINI_CLI_TRUST_WORKSPACE=false (or GEMINI_RESTRICTED_MODE): Gemini CLI loads no project "
                "hook", "unset GEMINI_CLI_TRUST_WORKSPACE GEMINI_RESTRICTED_MODE")
    user = json_object(home_path(".gemini", "settings.json")) or {}
    project = json_object(os.path.join(top, ".gemini", "settings.json")) or {}
    for where, settings in (("~/.gemini/settings.json", user), (".gemini/settings.json", project)):
        config = settings.get("hooksConfig") if isinstance(settings.get("hooksConfig"), dict) else {}
        disabled = config.get("disabled") if isinstance(config.get("disabled"), list) else []
        if config.get("enabled") is False or "agentguard" in disabled:
            return ("fail", "%s switches Gemini CLI's hooks (or agentguard's) off (hooksConfig)" % where,
                    "remove hooksConfig.enabled=false / \"agentguard\" from hooksConfig.disabled in %s" % where)
    security = user.get("security") if isinstance(user.get("security"), dict) else {}
    folder = security.get("folderTrust") if isinstance(security.get("folderTrust"), dict) else {}
    # folder trust is on unless switched off (0.61 defaults it to true): an untrusted folder loads no hook
    if folder.get("enabled") is not False and trust_env != "true" and not gemini_trusted(top):
        return ("warn", "Gemini CLI trusts no folder it was not told to: in this one it loads no project settings "
                "and no hook (headless: it refuses to start)", "gemini, then trust this folder when asked (or add "
                "%s: \"TRUST_FOLDER\" to ~/.gemini/trustedFolders.json)" % json.dumps(top))
    return ("pass", "Gemini CLI trusts this folder and runs the hook from .gemini/settings.json", None)


def gemini_trusted(top):
    """~/.gemini/trustedFolders.json trusts ``top``: the longest matching rule decides."""
    path = os.environ.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH") or home_path(".gemini", "trustedFolders.json")
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
