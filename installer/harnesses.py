"""The harnesses whose hook is a command in a settings file: Claude Code, Codex, Gemini CLI and
Copilot CLI (and OpenCode, whose plugin runs the same command). One hook command for all of them;
merging its entry into a settings file the user may already have, and taking exactly that entry
out again; Codex's per-hook trust entry; and which harnesses a plain install sets up.

Every harness here runs the same POSIX-sh hook (``templates/adapters/harness-hook.sh``), which
hands the call to the runtime copy (``check --hook HARNESS``) and blocks with exit 2: Claude Code,
Codex and Gemini CLI take exit 1 as *allow*.
"""
import functools
import hashlib
import json
import os
import re
import shutil
from importlib import resources

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

from ..hooks.analyser.analyse import INVOLVES
from ..hooks.textsafe import safe
from .errors import AgentguardError

HOOK_TIMEOUT = 30  # seconds the harness gives the hook; the runtime gives up after 10 (harnesshook.TIMEOUT)
SETTINGS_HARNESSES = ("claude", "codex", "gemini")
WHOLE_FILE_HARNESSES = ("opencode", "copilot")
NAMES = SETTINGS_HARNESSES + WHOLE_FILE_HARNESSES


@functools.lru_cache(maxsize=None)
def hook_script():
    """The hook as one shell program: the template without its comments, the INVOLVES pattern
    filled in as a POSIX ERE inside double quotes."""
    text = resources.files("agentguard.templates").joinpath("adapters", "harness-hook.sh").read_text("utf-8")
    ere = INVOLVES.pattern.replace(r"\b", "")
    assert not set(ere) & set("\"$`'\n"), "INVOLVES must stay a plain ERE"
    body = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    return "\n".join(body).replace("@INVOLVES_ERE@", ere.replace("\\\\", "\\\\\\\\")) + "\n"


def hook_command(harness):
    """What each harness's settings run: ``sh -c '<hook>' agentguard HARNESS``."""
    script = hook_script()
    assert "'" not in script
    return "sh -c '%s' agentguard %s" % (script, harness)


# -- settings files (Claude Code, Codex, Gemini CLI) ---------------------------------------------
# harness -> (path in the work tree, hook event, matcher, the hook's entry without its command)
SETTINGS = {
    "claude": (".claude/settings.json", "PreToolUse", "Bash|Write|Edit|MultiEdit|NotebookEdit",
               {"type": "command", "timeout": HOOK_TIMEOUT}),
    "codex": (".codex/hooks.json", "PreToolUse", "Bash|apply_patch",
              {"type": "command", "timeout": HOOK_TIMEOUT}),
    "gemini": (".gemini/settings.json", "BeforeTool", "run_shell_command|write_file|replace",
               {"type": "command", "name": "agentguard", "timeout": HOOK_TIMEOUT * 1000}),
}


def settings_group(harness):
    """The one matcher group install adds to ``harness``'s settings file."""
    _, _, matcher, hook = SETTINGS[harness]
    entry = {"type": hook["type"], "command": hook_command(harness)}
    entry.update(hook)
    return {"matcher": matcher, "hooks": [entry]}


def _is_ours(group, harness):
    if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
        return False
    tail = "' agentguard %s" % harness
    return any(isinstance(h, dict) and isinstance(h.get("command"), str) and h["command"].endswith(tail)
               and h["command"].startswith("sh -c '") for h in group["hooks"])


def _load_settings(original, harness):
    rel, event = SETTINGS[harness][:2]
    if original is None:
        return {}
    try:
        data = json.loads(original.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise AgentguardError("%s is not JSON agentguard can merge into (%s); fix it, or leave this harness out "
                              "with --harness" % (rel, safe(str(exc), 80)))
    if not isinstance(data, dict) or not isinstance(data.get("hooks", {}), dict) \
            or not isinstance(data.get("hooks", {}).get(event, []), list):
        raise AgentguardError("%s has an unexpected shape (hooks is not an object of lists); add agentguard's hook "
                              "by hand or leave this harness out with --harness" % rel)
    return data


def _dump(data, like=None):
    """JSON text indented the way ``like`` (the file's bytes before) was: its diff stays ours alone."""
    indent = 2
    found = re.search(rb'^([ \t]+)"', like or b"", re.M)
    if found:
        indent = found.group(1).decode() if b"\t" in found.group(1) else len(found.group(1))
    return (json.dumps(data, indent=indent, ensure_ascii=False) + "\n").encode("utf-8")


def merge_settings(original, harness):
    """``original`` settings bytes (None: no file) with agentguard's hook group in place: an older
    agentguard group is replaced where it stands, otherwise the group is appended. Every other key,
    hook and permission stays. Returns the bytes to write (``original`` itself when nothing changes)."""
    event = SETTINGS[harness][1]
    data = _load_settings(original, harness)
    groups = data.setdefault("hooks", {}).setdefault(event, [])
    want = settings_group(harness)
    at = [i for i, g in enumerate(groups) if _is_ours(g, harness)]
    if len(at) == 1 and groups[at[0]] == want:
        return original
    for i in reversed(at[1:]):
        del groups[i]
    if at:
        groups[at[0]] = want
    else:
        groups.append(want)
    return _dump(data, original)


def unmerge_settings(current, harness, created):
    """``current`` without agentguard's group; ``created`` lists the containers install created
    ("file", "hooks", "event"), which go again when empty. Returns bytes, or None for no file."""
    event = SETTINGS[harness][1]
    data = _load_settings(current, harness)
    hooks = data.get("hooks", {})
    groups = [g for g in hooks.get(event, []) if not _is_ours(g, harness)]
    if groups or "event" not in created:
        hooks[event] = groups
    else:
        hooks.pop(event, None)
    if not hooks and "hooks" in created:
        data.pop("hooks", None)
    if not data and "file" in created:
        return None
    return _dump(data, current)


def created_containers(original, harness):
    """What merge_settings will create in ``original``: the file, the hooks object, the event list."""
    if original is None:
        return ["file", "hooks", "event"]
    data = _load_settings(original, harness)
    out = [] if "hooks" in data else ["hooks"]
    if SETTINGS[harness][1] not in data.get("hooks", {}):
        out.append("event")
    return out


def _groups(data_bytes, harness):
    """The hook groups of ``harness``'s event in a settings file ([] when unreadable)."""
    try:
        return _load_settings(data_bytes, harness).get("hooks", {}).get(SETTINGS[harness][1], [])
    except AgentguardError:
        return []


def group_position(data_bytes, harness):
    """(group index, hook index) of agentguard's hook in a settings file, or None."""
    return next(((i, 0) for i, group in enumerate(_groups(data_bytes, harness)) if _is_ours(group, harness)), None)


def hooked(data_bytes, harness):
    """True when the settings bytes carry exactly the group install writes."""
    return settings_group(harness) in _groups(data_bytes, harness)


# -- whole files (Copilot CLI, OpenCode) ------------------------------------------------------------
COPILOT_FILE = ".github/hooks/agentguard.json"
OPENCODE_FILE = ".opencode/plugins/agentguard.js"


def copilot_hooks():
    return _dump({"version": 1, "hooks": {"preToolUse": [
        {"type": "command", "bash": hook_command("copilot"), "timeoutSec": HOOK_TIMEOUT}]}})


# -- Codex: the per-hook trust entry in $CODEX_HOME/config.toml -------------------------------------
def codex_home():
    return os.environ.get("CODEX_HOME") or os.path.join(os.path.expanduser("~"), ".codex")


def codex_trust(hooks_json, position, harness="codex"):
    """(key, value) of the ``[hooks.state."<key>"] trusted_hash`` entry that makes Codex run
    agentguard's hook at ``position`` in ``hooks_json`` (an absolute path)."""
    group = settings_group(harness)
    hook = group["hooks"][0]
    identity = {"event_name": "pre_tool_use", "matcher": group["matcher"],
                "hooks": [{"type": "command", "command": hook["command"], "timeout": hook["timeout"],
                           "async": False}]}
    canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    key = "%s:pre_tool_use:%d:%d" % (hooks_json, position[0], position[1])
    return key, "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def codex_trust_for(hooks_json, data):
    """(key, value) of the trust entry for agentguard's hook in ``data``, the bytes of ``hooks_json``
    (Codex keys it by the file's real path), or None when the file holds no agentguard hook."""
    position = group_position(data, "codex")
    return None if position is None else codex_trust(os.path.realpath(hooks_json), position)


def trust_block(key, value):
    return '\n[hooks.state.%s]\ntrusted_hash = %s\n' % (json.dumps(key, ensure_ascii=False), json.dumps(value))


def trusted_hash(config_bytes, key):
    """The trusted_hash recorded for ``key`` in Codex's config.toml bytes, or None."""
    try:
        data = tomllib.loads((config_bytes or b"").decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    entry = ((data.get("hooks") or {}).get("state") or {}).get(key)
    return entry.get("trusted_hash") if isinstance(entry, dict) else None


def add_trust(config_bytes, key, value, ours=None):
    """``config_bytes`` (None: no file) with the trust entry; ``ours`` is the block an earlier
    install appended (replaced, not duplicated). Returns (new bytes, the block added)."""
    text = (config_bytes or b"").decode("utf-8", "strict") if config_bytes is not None else ""
    if trusted_hash(config_bytes, key) == value:
        return config_bytes, None
    if ours and ours in text:
        text = text.replace(ours, "", 1)
    elif trusted_hash(config_bytes, key) is not None:
        raise AgentguardError("%s already trusts another hook at agentguard's place (%s); remove that "
                              "[hooks.state] entry and run agentguard install again"
                              % (os.path.join(codex_home(), "config.toml"), safe(key, 200)))
    block = trust_block(key, value)
    if not text:
        block = block.lstrip("\n")
    sep = "" if not text or text.endswith("\n") else "\n"
    new = (text + sep + block).encode("utf-8")
    if trusted_hash(new, key) != value:
        raise AgentguardError("%s could not be given agentguard's hook trust entry safely; run "
                              "codex once with --dangerously-bypass-hook-trust or trust the hook in codex"
                              % os.path.join(codex_home(), "config.toml"))
    return new, sep + block


def remove_trust(config_bytes, block):
    """``config_bytes`` without the ``block`` install appended (None when it is no longer there)."""
    text = (config_bytes or b"").decode("utf-8", "replace")
    if not block or block not in text:
        return None
    return text.replace(block, "", 1).encode("utf-8")


def codex_project_trusted(top):
    """True/False: Codex's config.toml marks ``top`` as a trusted project (None: unreadable)."""
    try:
        with open(os.path.join(codex_home(), "config.toml"), "rb") as fh:
            data = tomllib.loads(fh.read(1 << 20).decode("utf-8"))
    except FileNotFoundError:
        return False
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    projects = data.get("projects") or {}
    for path in {top, os.path.realpath(top)}:
        entry = projects.get(path)
        if isinstance(entry, dict) and entry.get("trust_level") == "trusted":
            return True
    return False


# -- which harnesses a plain install sets up ------------------------------------------------------
def home_path(*parts):
    return os.path.join(os.path.expanduser("~"), *parts)


def _config_home(*parts):
    return os.path.join(os.environ.get("XDG_CONFIG_HOME") or home_path(".config"), *parts)


def in_use_signs(harness, top):
    """Where ``harness`` shows it is used here: its folder in the repository, its user-level
    configuration, or its binary (named as the harness is) on PATH."""
    repo, user = {
        "claude": ([".claude"], [home_path(".claude"), home_path(".claude.json")]),
        "codex": ([".codex"], [codex_home()]),
        "gemini": ([".gemini"], [home_path(".gemini")]),
        "opencode": ([".opencode", "opencode.json", "opencode.jsonc"], [_config_home("opencode")]),
        "copilot": ([".github/hooks", ".github/copilot"], [os.environ.get("COPILOT_HOME") or home_path(".copilot")]),
    }[harness]
    found = [rel for rel in repo if os.path.lexists(os.path.join(top, rel))]
    found += [path for path in user if os.path.lexists(path)]
    if shutil.which(harness):
        found.append("%s on PATH" % harness)
    return found


def detected(top):
    return [h for h in NAMES if in_use_signs(h, top)]
