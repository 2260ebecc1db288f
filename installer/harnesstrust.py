"""Would each settings-file harness load agentguard's hook here? A harness that silently skips an
untrusted hook is the same as no hook, so the doctor asks, per harness in use, what that harness
itself reads: switches that turn every hook off, project and folder trust, Codex's per-hook trust.
Each answer is (status, summary, the one command or setting that makes it so)."""
import json
import os

from ..hooks.guardpaths import inside
from . import harnesses as H
from .fsops import read_regular
from .hookscripts import sh_quote


def _json(path):
    """The JSON object in ``path`` (whole-line ``//`` comments allowed, as Copilot CLI writes its
    config.json and Gemini CLI accepts), or None."""
    try:
        data = read_regular(path, limit=4 << 20)
        if data is None:
            return None
        text = "\n".join(line for line in data.decode("utf-8").splitlines() if not line.lstrip().startswith("//"))
        value = json.loads(text)
    except Exception:
        return None
    return value if isinstance(value, dict) else None


def _disabling(paths):
    """The file of ``paths`` (highest precedence first) whose ``disableAllHooks`` decides, when it
    switches hooks off: the first one that sets the key at all wins."""
    for path in paths:
        value = (_json(path) or {}).get("disableAllHooks")
        if value is not None:
            return path if value is True else None
    return None


def enabled_claude(ctx):
    top = ctx.info.top
    off = _disabling(["/etc/claude-code/managed-settings.json", os.path.join(top, ".claude", "settings.local.json"),
                      os.path.join(top, ".claude", "settings.json"), H.home_path(".claude", "settings.json")])
    if off:
        return ("fail", "%s sets disableAllHooks, so Claude Code runs no hook at all" % off,
                "remove \"disableAllHooks\" from %s" % off)
    return ("pass", "Claude Code runs the hook from .claude/settings.local.json or settings.json (claude -p at "
            "once; an interactive session once the folder is trusted)", None)


def codex_hook_untrusted(hooks_json, data):
    """Why Codex would skip one of agentguard's hooks in ``data`` (the bytes of ``hooks_json``), or
    None. Codex skips a hook whose hash its config does not record, without a word; install records
    them (so ``doctor --fix`` puts them back)."""
    config = os.path.join(H.codex_home(), "config.toml")
    entries = H.codex_trust_for(hooks_json, data)
    if not entries:
        return "%s holds no agentguard hook" % H.SETTINGS["codex"][0]
    recorded = read_regular(config)
    for key, value in entries:
        if H.trusted_hash(recorded, key) != value:
            return ("Codex skips agentguard's hook without a word: %s does not record its trust ([hooks.state] %s)"
                    % (config, key))
    return None


def enabled_codex(ctx):
    top = ctx.info.top
    config = os.path.join(H.codex_home(), "config.toml")
    if not H.codex_project_trusted(top):
        return ("warn", "Codex loads no project hook here until the project is trusted (%s: projects.\"%s\")"
                % (config, top), "printf '%%s\\n' %s >> %s"
                % (sh_quote("\n[projects.%s]\ntrust_level = \"trusted\"" % json.dumps(top)), sh_quote(config)))
    return ("pass", "Codex trusts this project (%s)" % config, None)


def enabled_gemini(ctx):
    top = ctx.info.top
    trust_env = os.environ.get("GEMINI_CLI_TRUST_WORKSPACE", "").lower()
    if trust_env == "false" or os.environ.get("GEMINI_RESTRICTED_MODE", "").lower() == "true":
        return ("fail", "GEMINI_CLI_TRUST_WORKSPACE=false (or GEMINI_RESTRICTED_MODE): Gemini CLI loads no project "
                "hook", "unset GEMINI_CLI_TRUST_WORKSPACE GEMINI_RESTRICTED_MODE")
    user = _json(H.home_path(".gemini", "settings.json")) or {}
    for where, settings in (("~/.gemini/settings.json", user),
                            (".gemini/settings.json", _json(os.path.join(top, ".gemini", "settings.json")) or {})):
        config = settings.get("hooksConfig") if isinstance(settings.get("hooksConfig"), dict) else {}
        disabled = config.get("disabled") if isinstance(config.get("disabled"), list) else []
        if config.get("enabled") is False or "agentguard" in disabled:
            return ("fail", "%s switches Gemini CLI's hooks (or agentguard's) off (hooksConfig)" % where,
                    "remove hooksConfig.enabled=false / \"agentguard\" from hooksConfig.disabled in %s" % where)
    security = user.get("security") if isinstance(user.get("security"), dict) else {}
    folder = security.get("folderTrust") if isinstance(security.get("folderTrust"), dict) else {}
    # folder trust is on unless switched off (0.61 defaults it to true): an untrusted folder loads no hook
    if folder.get("enabled") is not False and trust_env != "true" and not _gemini_trusted(top):
        return ("warn", "Gemini CLI trusts no folder it was not told to: in this one it loads no project settings "
                "and no hook (headless: it refuses to start)", "gemini, then trust this folder when asked (or add "
                "%s: \"TRUST_FOLDER\" to ~/.gemini/trustedFolders.json)" % json.dumps(top))
    return ("pass", "Gemini CLI trusts this folder and runs the hook from .gemini/settings.json", None)


def _gemini_trusted(top):
    """~/.gemini/trustedFolders.json trusts ``top``: the longest matching rule decides."""
    path = os.environ.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH") or H.home_path(".gemini", "trustedFolders.json")
    rules = []
    for rule, level in (_json(path) or {}).items():
        root = os.path.dirname(rule) if level == "TRUST_PARENT" else rule
        if isinstance(rule, str) and _under(top, root):
            rules.append((len(os.path.realpath(root)), level))
    return bool(rules) and max(rules)[1] in ("TRUST_FOLDER", "TRUST_PARENT")


def _under(path, root):
    return inside(os.path.realpath(path), os.path.realpath(root))


def enabled_copilot(ctx):
    top = ctx.info.top
    home = os.environ.get("COPILOT_HOME") or H.home_path(".copilot")
    config = os.path.join(home, "config.json")
    # disableAllHooks in the repository's Copilot settings switches repository hooks off (the user's
    # settings.json only switches off the user's own hooks)
    off = _disabling([os.path.join(top, ".github", "copilot", n) for n in ("settings.local.json", "settings.json")])
    if off:
        return ("fail", "%s sets disableAllHooks, so Copilot CLI runs no hook" % off,
                "remove \"disableAllHooks\" from %s" % off)
    folders = (_json(config) or {}).get("trustedFolders") or []
    if os.environ.get("COPILOT_ALLOW_ALL", "").lower() == "true" or \
            any(isinstance(f, str) and _under(top, f) for f in folders):
        return ("pass", "Copilot CLI trusts this folder and runs .github/hooks/agentguard.json", None)
    return ("warn", "Copilot CLI silently skips repository hooks until the folder is trusted (trustedFolders in %s)"
            % config, "copilot, then trust this folder when asked (or add %s to trustedFolders in %s)"
            % (json.dumps(top), config))


def enabled_opencode(ctx):
    return ("pass", "OpenCode loads every plugin in .opencode/plugins when it starts (no trust step)", None)


ENABLED = {"claude": enabled_claude, "codex": enabled_codex, "gemini": enabled_gemini,
           "copilot": enabled_copilot, "opencode": enabled_opencode}
