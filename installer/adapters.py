"""The harness adapters install writes into the work tree (each harness's files, from
``harnessinstall``; the settings entries are merged by ``harnesses``), and the ``gptme.toml``
merge that switches the gptme plugin on without losing a byte of the user's file."""
import json
import re
from importlib import resources

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

from ..hooks.analyser.constructs import INVOLVES
from ..hooks.version import VERSION
from ..hooks.harness.hook import PATCH_FILE, TIMEOUT, UNCHECKED, not_installed
from .errors import AgentguardError, UsageError
from .harnesses import HOOK_TIMEOUT, NAMES, hook_script
from .harnessinstall import registry
from .hookscripts import sh_quote

PLUGIN_HARNESSES = registry.PLUGIN_HARNESSES  # what a plain install always sets up
HARNESSES = PLUGIN_HARNESSES + NAMES
GPTME_TOML = "gptme.toml"
PLUGIN_PATH = ".gptme/plugins"
PLUGIN_NAME = "agentguard"

# harness -> [(path in the work tree, template under templates/adapters or a function, mode)]; the
# settings entries are merged by ``harnesses``
FILES = {harness: registry.files(harness) for harness in HARNESSES}
ALL_PATHS = tuple(rel for harness in HARNESSES for rel, _, _ in FILES[harness])


def parse_harnesses(text):
    """The harnesses ``--harness LIST`` names (``all``: every one), or None for the default."""
    if text is None:
        return None
    names = [n.strip() for n in text.split(",") if n.strip()]
    if names == ["all"]:
        return list(HARNESSES)
    bad = [n for n in names if n not in HARNESSES]
    if bad or not names:
        raise UsageError("unknown harness %r (choose from %s, or all)"
                              % (bad[0] if bad else text, ", ".join(HARNESSES)))
    return list(dict.fromkeys(names))


def render(template, agentguard_bin):
    text = resources.files("agentguard.templates").joinpath("adapters", template).read_text("utf-8")
    # Every placeholder sits where the template is still valid source (a string literal, or a
    # shell word), so the templates parse and lint as they are.
    text = (text.replace("@INVOLVES@", INVOLVES.pattern)
                .replace('"@INVOLVES_JSON@"', json.dumps(INVOLVES.pattern))
                .replace("@PATCH_FILE@", PATCH_FILE.pattern)
                .replace('"@HOOK_SCRIPT_JSON@"', json.dumps(hook_script()))
                .replace('"@UNCHECKED_JSON@"', json.dumps(UNCHECKED))
                .replace("@UNCHECKED@", UNCHECKED)
                .replace('"@NOT_INSTALLED_JSON@"', json.dumps(not_installed()))
                .replace("@NOT_INSTALLED@", not_installed())
                .replace("@HOOK_TIMEOUT@", str(HOOK_TIMEOUT))
                .replace("@TIMEOUT@", str(TIMEOUT))
                .replace("@VERSION@", VERSION)
                .replace("@AGENTGUARD_BIN@", sh_quote(agentguard_bin)))
    return text.encode("utf-8")


def files_for(harnesses, agentguard_bin):
    """[(relative path, bytes, mode)] of every adapter file for ``harnesses``."""
    out = []
    for harness in harnesses:
        for rel, template, mode in FILES[harness]:
            out.append((rel, template() if callable(template) else render(template, agentguard_bin), mode))
    return out


# -- gptme.toml ---------------------------------------------------------------------------------

_HEADER = re.compile(r"^\s*\[([^\[\]]+)\]\s*(#.*)?$")


def _is_header(line, name):
    match = _HEADER.match(line)
    return match is not None and match.group(1).strip() == name


def merge_gptme_toml(original):
    """``original`` (bytes or None) with the agentguard plugin enabled; comments and every other
    key kept as they are. Raises AgentguardError when it cannot be done safely."""
    if original is None:
        return ("# Written by agentguard install: loads the agentguard guard plugin (see .gptme/plugins).\n"
                "[plugins]\npaths = [\"%s\"]\nenabled = [\"%s\"]\n" % (PLUGIN_PATH, PLUGIN_NAME)).encode()
    try:
        text = original.decode("utf-8")
        before = tomllib.loads(text)
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise AgentguardError("gptme.toml cannot be read (%s); fix it or pass --harness without gptme" % exc)
    plugins = before.get("plugins", {})
    if not isinstance(plugins, dict):
        raise AgentguardError("gptme.toml: [plugins] is not a table; add the agentguard plugin by hand")
    need = [(k, v) for k, v in (("paths", PLUGIN_PATH), ("enabled", PLUGIN_NAME))
            if v not in (plugins.get(k) or [])]
    if not need:
        return original
    lines = text.splitlines(keepends=True)
    header = next((i for i, line in enumerate(lines) if _is_header(line, "plugins")), None)
    if header is None:
        sep = "" if text.endswith("\n") or not text else "\n"
        text += sep + "\n[plugins]\n" + "".join('%s = ["%s"]\n' % (k, v) for k, v in need)
    else:
        end = next((i for i in range(header + 1, len(lines)) if _HEADER.match(lines[i])), len(lines))
        for key, value in need:
            at = next((i for i in range(header + 1, end) if re.match(r"\s*%s\s*=" % key, lines[i])), None)
            if at is None:
                lines.insert(header + 1, '%s = ["%s"]\n' % (key, value))
                end += 1
                continue
            line = lines[at]
            bracket = line.index("[", line.index("="))
            rest = line[bracket + 1:]
            empty = rest.lstrip().startswith("]")
            lines[at] = line[:bracket + 1] + '"%s"%s' % (value, "" if empty else ", ") + rest
        text = "".join(lines)
    try:
        after = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        raise AgentguardError("gptme.toml could not be merged safely; add [plugins] paths=[\"%s\"] "
                              "enabled=[\"%s\"] by hand" % (PLUGIN_PATH, PLUGIN_NAME))
    check = dict(after)
    merged = dict(check.get("plugins", {}))
    for key, value in need:
        merged[key] = [v for v in merged.get(key, []) if v != value]
        if not merged[key] and key not in plugins:
            del merged[key]
    if merged != plugins or {k: v for k, v in check.items() if k != "plugins"} != \
            {k: v for k, v in before.items() if k != "plugins"}:
        raise AgentguardError("gptme.toml could not be merged without changing other settings")
    return text.encode("utf-8")


def gptme_enabled(data):
    """True when gptme.toml ``data`` enables the plugin from its project path."""
    try:
        plugins = tomllib.loads(data.decode("utf-8")).get("plugins", {})
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, AttributeError):
        return False
    return PLUGIN_PATH in (plugins.get("paths") or []) and PLUGIN_NAME in (plugins.get("enabled") or [])


CHECK_LAUNCHER = """#!/bin/sh
# agentguard decision command (runtime copy), written by agentguard install.
# The harness adapters run it: check [--cwd DIR] [--json] (COMMAND | --write PATH).
AGENTGUARD_GIT=%s
export AGENTGUARD_GIT
exec %s -I -S -B "${0%%/*}/runtime/run.py" check "$@"
"""


def check_launcher(python):
    from .hookscripts import tools
    return (CHECK_LAUNCHER % (sh_quote(tools()["git"]), sh_quote(python))).encode()
