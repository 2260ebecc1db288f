"""gptme at install time: agentguard's plugin in .gptme/plugins, the ``gptme.toml`` merge that
switches it on without losing a byte of the user's file, and its completion verifier."""
import base64
import os
import re

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

from ..errors import AgentguardError
from ..fsops import atomic_write, contained, file_mode, read_contained, read_regular, sha256_bytes
from ..setup import gitexclude
from .descriptor import Install, Steps

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


class GptmeSteps(Steps):
    """gptme.toml's merge (record ``gptme_toml``: the original, base64, and the merged file's sha256),
    its restore, and how a merge of ours is recognised without a record."""

    def plan_merge(self, step):
        info, previous = step.info, step.previous
        target = contained(info.top, GPTME_TOML)
        current = read_regular(target)
        old = previous.get("gptme_toml")
        # the file as install creates it, with no record of that install (lost): install's own
        lost = not old and current == merge_gptme_toml(None) and \
            GPTME_TOML not in gitexclude.tracked(info, [GPTME_TOML])
        if old and current is not None and sha256_bytes(current) == old.get("sha256"):
            original = base64.b64decode(old["original"]) if old.get("original") is not None else None
        else:
            original = None if lost else current
        merged = merge_gptme_toml(current if current is not None else None)
        if GPTME_TOML in step.tracked and merged != current:
            return {}  # the team's file: left alone (plan_after_settings says so)
        toml_record = None
        if current is not None and merged == current and not old and not lost:
            pass  # the user enabled it already; nothing to restore later
        else:
            toml_record = {"original": base64.b64encode(original).decode() if original is not None else None,
                           "sha256": sha256_bytes(merged)}
        step.want(target, merged, file_mode(target) if current is not None else 0o644)
        return {"gptme_toml": toml_record}

    def plan_after_settings(self, step):
        if GPTME_TOML in step.tracked and \
                not gptme_enabled(read_regular(contained(step.info.top, GPTME_TOML))):
            step.skipped["gptme"] = GPTME_TOML
        return {}

    def created(self, record):
        toml = record.get("gptme_toml")
        return [GPTME_TOML] if isinstance(toml, dict) and toml.get("original") is None else []

    def uninstall(self, info, record, done, warnings):
        toml = record.get("gptme_toml")
        if toml:
            found = read_contained(info.top, GPTME_TOML, warnings)
            if found is None:
                return
            path, data = found
            original = base64.b64decode(toml["original"]) if toml.get("original") is not None else None
            if data == original:
                pass  # install was stopped before it merged gptme.toml
            elif data is None or sha256_bytes(data) != toml["sha256"]:
                warnings.append("gptme.toml changed since install; remove the agentguard plugin entries by hand")
            elif original is None:
                os.unlink(path)
                done.append("removed gptme.toml")
            else:
                atomic_write(path, original, file_mode(path))
                done.append("restored gptme.toml")

    def recognise(self, info, record, left, warnings):
        fresh = merge_gptme_toml(None)
        found = read_contained(info.top, GPTME_TOML, warnings)
        if found is not None and found[1] is not None and GPTME_TOML not in gitexclude.tracked(info, [GPTME_TOML]):
            if found[1] == fresh:
                record["gptme_toml"] = {"original": None, "sha256": sha256_bytes(fresh)}
            elif gptme_enabled(found[1]):
                left.append("%s (its agentguard plugin entries)" % GPTME_TOML)


HARNESS = Install("gptme", enabled=enabled, problems=problems, merged=(GPTME_TOML,), records=("gptme_toml",),
                  steps=GptmeSteps(),
                  files=[(".gptme/plugins/agentguard/__init__.py", "gptme/__init__.py", 0o644),
                         (".gptme/plugins/agentguard/client.py", "client.py", 0o644),
                         (".gptme/plugins/agentguard/hooks/agentguard_confirm.py", "gptme/hooks/agentguard_confirm.py",
                          0o644),
                         (".gptme/verify-completion.sh", "gptme/verify-completion.sh", 0o755)])
