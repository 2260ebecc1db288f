"""Every harness's guarded files as plain data: what ``registry.worktree_files``, ``user_files`` and
``not_watched`` answer, without importing the nineteen harness modules (~5 ms of CPU on every
tool call's pre-check, which snapshots them). Each harness's module stays where its files are
explained; tests/test_harness_watched.py proves this table says what their descriptors say, for every
environment variable they read, set and unset.

A user-level file is (base, parts): the first of ``base``'s alternatives that names a path, joined
with ``parts``. An alternative is ``$VAR`` (that variable, when set and not empty), ``~`` (the home:
``$HOME``, else the user's), an absolute path, a nested (base, parts), or ("dirname", (base, parts)).
A file none of whose alternatives names a path is not watched."""
import os

WORKTREE_FILES = (
    ".pi/extensions", ".pi/settings.json", ".hermes/plugins", "gptme.toml", "gptme.local.toml", ".gptme/plugins",
    ".gptme/verify-completion.sh", ".claude/settings*.json", ".codex/hooks.json", ".codex/config.toml",
    ".gemini/settings.json", ".opencode/plugins", ".opencode/opencode.json", ".opencode/opencode.jsonc",
    "opencode.json", "opencode.jsonc", ".github/hooks", ".github/copilot/settings*.json", ".kilo/plugin",
    ".kilo/plugins", ".kilo/kilo.json", ".kilo/kilo.jsonc", ".kilocode/plugin", ".kilocode/plugins",
    ".kilocode/kilo.json", ".kilocode/kilo.jsonc", "kilo.json", "kilo.jsonc", ".amp/plugins", ".amp/settings.json",
    ".agents/plugins", ".config/goose/settings.json", "crush.json", ".crush.json", ".crushrc", "crushrc",
    ".crush/crush.json", ".kiro/agents", ".kiro/settings", ".clinerules/hooks", ".cline/hooks", ".windsurf/hooks.json",
    ".cursor/hooks.json", ".cursor/hooks", ".qwen/settings.json", ".augment/settings*.json", ".factory/hooks.json",
    ".factory/hooks/*", ".factory/settings*.json")

NOT_WATCHED = (".claude.json",)

HOME = ("~",)
CONFIG = ("$XDG_CONFIG_HOME", (HOME, (".config",)))  # descriptor.config_home
_GEMINI = ("$GEMINI_CLI_HOME", "~")
_GEMINI_SYSTEM = (("$GEMINI_CLI_SYSTEM_SETTINGS_PATH", "/etc/gemini-cli/settings.json"), ())
_CODEX = ("$CODEX_HOME", (HOME, (".codex",)))
_COPILOT = ("$COPILOT_HOME", (HOME, (".copilot",)))
_CRUSH = ("$CRUSH_GLOBAL_CONFIG", (CONFIG, ("crush",)))
_CLINE = ("$CLINE_DIR", (HOME, (".cline",)))
_FACTORY = ("$FACTORY_HOME_OVERRIDE", (HOME, (".factory",)))

USER_FILES = (
    (HOME, (".claude", "settings*.json")), (HOME, (".claude.json",)),  # claude
    (_CODEX, ("config.toml",)),  # codex
    (_GEMINI, (".gemini", "settings.json")), (_GEMINI, (".gemini", "trustedFolders.json")), _GEMINI_SYSTEM,
    (("$GEMINI_CLI_SYSTEM_DEFAULTS_PATH", ((("dirname", _GEMINI_SYSTEM),), ("system-defaults.json",))), ()),
    (CONFIG, ("opencode", "plugin")), (CONFIG, ("opencode", "plugins")), (CONFIG, ("opencode", "opencode.json*")),
    (_COPILOT, ("config.json",)),  # copilot
    (CONFIG, ("kilo", "plugin")), (CONFIG, ("kilo", "plugins")), (HOME, (".kilo", "plugin")),
    (HOME, (".kilo", "plugins")), (HOME, (".kilocode", "plugin")), (HOME, (".kilocode", "plugins")),
    (CONFIG, ("kilo", "*.json")), (CONFIG, ("kilo", "*.jsonc")),
    (CONFIG, ("amp", "plugins")), (HOME, (".amp", "plugins")), (CONFIG, ("amp", "settings.json")),
    (CONFIG, ("goose", "settings.json")),
    (_CRUSH, ("crush.json",)), (_CRUSH, ("crushrc",)),
    (HOME, (".kiro", "agents", "agentguard.json")), (HOME, (".kiro", "settings", "cli.json")),
    (_CLINE, ("hooks",)), (HOME, ("Documents", "Cline", "Hooks")), (("$CLINE_HOOKS_DIR",), ()),
    (HOME, (".codeium", "windsurf", "hooks.json")), (HOME, (".codeium", "hooks.json")),
    (HOME, (".cursor", "hooks.json")), (HOME, (".cursor", "hooks")), (("/etc/cursor/hooks.json",), ()),
    (HOME, (".qwen", "settings.json")), (HOME, (".qwen", "trustedFolders.json")),
    (HOME, (".augment", "settings.json")),
    (_FACTORY, ("hooks.json",)), (_FACTORY, ("settings.json",)), (_FACTORY, ("settings.local.json",)),
)


def path(entry, env):
    """The path one (base, parts) names in ``env``, or None."""
    base, parts = entry
    for alternative in base:
        found = _alternative(alternative, env)
        if found:
            return os.path.join(found, *parts)
    return None


def _alternative(alternative, env):
    if isinstance(alternative, tuple):
        if alternative[0] == "dirname":
            found = path(alternative[1], env)
            return os.path.dirname(found) if found else None
        return path(alternative, env)
    if alternative == "~":
        return env.get("HOME") or os.path.expanduser("~")
    if alternative.startswith("$"):
        return env.get(alternative[1:])
    return alternative


def user_files(env):
    """Every harness's user-level files, where ``env`` puts them (``registry.user_files``)."""
    return [p for p in (path(entry, env) for entry in USER_FILES) if p is not None]
