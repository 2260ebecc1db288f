"""gptme at install time: agentguard's plugin in .gptme/plugins, the ``gptme.toml`` merge that
switches it on without losing a byte of the user's file, and its completion verifier."""
import os
import re

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

from ..errors import AgentguardError
from ..fsops import read_regular
from .descriptor import Install

GPTME_TOML = "gptme.toml"
PLUGIN_PATH = ".gptme/plugins"
PLUGIN_NAME = "agentguard"


def enabled(ctx):
    if os.environ.get("GPTME_VERIFY_COMPLETION"):
        return ("warn", "GPTME_VERIFY_COMPLETION is set, so gptme runs it instead of "
                ".gptme/verify-completion.sh", "unset GPTME_VERIFY_COMPLETION")
    return ("pass", "gptme loads the plugin from gptme.toml and verifies completion with "
            ".gptme/verify-completion.sh", None)


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


def problems(top, path, placed):
    """gptme.toml must switch the plugin on, and the verifier be executable."""
    found = []
    toml = read_regular(os.path.join(top, GPTME_TOML))
    if toml is None or not gptme_enabled(toml):
        found.append("gptme.toml does not enable the plugin ([plugins] paths and enabled)")
    script = os.path.join(top, ".gptme", "verify-completion.sh")
    if os.path.exists(script) and not os.access(script, os.X_OK):
        found.append(".gptme/verify-completion.sh is not executable (gptme skips it)")
    return found


HARNESS = Install("gptme", enabled=enabled, problems=problems, merged=(GPTME_TOML,), records=("gptme_toml",),
                  files=[(".gptme/plugins/agentguard/__init__.py", "gptme/__init__.py", 0o644),
                         (".gptme/plugins/agentguard/client.py", "client.py", 0o644),
                         (".gptme/plugins/agentguard/hooks/agentguard_confirm.py", "gptme/hooks/agentguard_confirm.py",
                          0o644),
                         (".gptme/verify-completion.sh", "gptme/verify-completion.sh", 0o755)])
