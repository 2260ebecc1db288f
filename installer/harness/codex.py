"""Codex at install time: its hook entries in .codex/hooks.json, and the per-hook trust entries in
``$CODEX_HOME/config.toml`` without which Codex skips them without a word."""
import hashlib
import json
import os
import re

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

from ...hooks.harness.codex import codex_home
from ...hooks.textsafe import safe
from ..errors import AgentguardError
from ..fsops import atomic_write, contained, file_mode, read_regular, sha256_bytes
from ..setup.hookscripts import sh_quote
from .descriptor import Install, Settings, Steps

HOOKS_JSON = ".codex/hooks.json"


def _snake(event):
    """Codex's label of a hooks.json event: PreToolUse -> pre_tool_use."""
    return re.sub(r"(?<!^)([A-Z])", r"_\1", event).lower()


def codex_trust(hooks_json, position, group, event="PreToolUse"):
    """(key, value) of the ``[hooks.state."<key>"] trusted_hash`` entry that makes Codex run
    agentguard's hook ``group`` (as install writes it: ``harnesses.settings_group``) for ``event`` at
    ``position`` in ``hooks_json`` (an absolute path): the key ``<path>:<event_label>:<group>:<hook>``,
    the sha256 of the hook's compact, key-sorted identity."""
    hook = group["hooks"][0]
    label = _snake(event)
    identity = {"event_name": label, "matcher": group["matcher"],
                "hooks": [{"type": "command", "command": hook["command"], "timeout": hook["timeout"],
                           "async": False}]}
    canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    key = "%s:%s:%d:%d" % (hooks_json, label, position[0], position[1])
    return key, "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def codex_trust_for(hooks_json, placed):
    """[(key, value)] of the trust entries for agentguard's hooks ``placed`` in ``hooks_json``
    ([(event, position, group)]: ``harnesses.placed_groups``; Codex keys them by the file's real
    path); [] when it holds none."""
    real = os.path.realpath(hooks_json)
    return [codex_trust(real, position, group, event) for event, position, group in placed]


def trust_block(entries):
    return "".join('\n[hooks.state.%s]\ntrusted_hash = %s\n' % (json.dumps(key, ensure_ascii=False), json.dumps(value))
                   for key, value in entries)


def trusted_hash(config_bytes, key):
    """The trusted_hash recorded for ``key`` in Codex's config.toml bytes, or None."""
    entry = ((_toml(config_bytes).get("hooks") or {}).get("state") or {}).get(key)
    return entry.get("trusted_hash") if isinstance(entry, dict) else None


def _toml(config_bytes):
    try:
        data = tomllib.loads((config_bytes or b"").decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def add_trust(config_bytes, entries, ours=None):
    """``config_bytes`` (None: no file) with the trust ``entries`` [(key, value)]; ``ours`` is the
    block an earlier install appended (replaced, not duplicated). An entry the user recorded
    already is left to them. Returns (new bytes, the block added), (config_bytes, None) when every
    entry is in place."""
    text = (config_bytes or b"").decode("utf-8", "strict") if config_bytes is not None else ""
    if all(trusted_hash(config_bytes, key) == value for key, value in entries):
        return config_bytes, None
    if ours and ours in text:
        text = text.replace(ours, "", 1)
    rest = text.encode("utf-8")
    for key, value in entries:
        if trusted_hash(rest, key) not in (None, value):
            raise AgentguardError("%s already trusts another hook at agentguard's place (%s); remove that "
                                  "[hooks.state] entry and run agentguard install again"
                                  % (os.path.join(codex_home(os.environ), "config.toml"), safe(key, 200)))
    block = trust_block([(key, value) for key, value in entries if trusted_hash(rest, key) is None])
    if not text:
        block = block.lstrip("\n")
    sep = "" if not text or text.endswith("\n") else "\n"
    new = (text + sep + block).encode("utf-8")
    if any(trusted_hash(new, key) != value for key, value in entries):
        raise AgentguardError("%s could not be given agentguard's hook trust entries safely; run "
                              "codex once with --dangerously-bypass-hook-trust or trust the hooks in codex"
                              % os.path.join(codex_home(os.environ), "config.toml"))
    return new, sep + block


def remove_trust(config_bytes, block):
    """``config_bytes`` without the ``block`` install appended (None when it is no longer there)."""
    text = (config_bytes or b"").decode("utf-8", "replace")
    if not block or block not in text:
        return None
    return text.replace(block, "", 1).encode("utf-8")


def found_trust(config_bytes, entries):
    """{"block", "created"} of the block that trusts ``entries`` in ``config_bytes`` exactly as install
    writes it (``created``: it is the whole file), or None: how agentguard's trust entries are
    recognised when no record names them."""
    if not entries or config_bytes is None:
        return None
    text = config_bytes.decode("utf-8", "replace")
    block = trust_block(entries)
    for candidate in (block, block.lstrip("\n")):
        if candidate in text:
            return {"block": candidate, "created": text == candidate.lstrip("\n")}
    return None


def codex_project_trusted(top):
    """True/False: Codex's config.toml marks ``top`` as a trusted project (None: unreadable)."""
    try:
        with open(os.path.join(codex_home(os.environ), "config.toml"), "rb") as fh:
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


def codex_hook_untrusted(hooks_json, placed):
    """Why Codex would skip one of agentguard's hooks ``placed`` in ``hooks_json``
    (``harnesses.placed_groups``), or None. Codex skips a hook whose hash its config does not
    record, without a word; install records them (so ``doctor --fix`` puts them back)."""
    config = os.path.join(codex_home(os.environ), "config.toml")
    entries = codex_trust_for(hooks_json, placed)
    if not entries:
        return "%s holds no agentguard hook" % HARNESS.settings.rel
    recorded = read_regular(config)
    for key, value in entries:
        if trusted_hash(recorded, key) != value:
            return ("Codex skips agentguard's hook without a word: %s does not record its trust ([hooks.state] %s)"
                    % (config, key))
    return None


def switched_off(top, config):
    """What in Codex's ``config`` switches agentguard's hooks in ``top`` off without a word (verified with
    0.171, tests/harness/agent_codex.py): ``hooks = false`` in [features] (``--disable hooks``), or
    ``enabled = false`` in a [hooks.state] entry of this work tree's hooks.json; or None."""
    data = _toml(read_regular(config))
    features = data.get("features")
    if isinstance(features, dict) and features.get("hooks") is False:
        return "%s sets hooks = false in [features], so Codex runs no hook" % config, "remove it from %s" % config
    prefix = os.path.join(os.path.realpath(top), *HOOKS_JSON.split("/")) + ":"
    for key, entry in ((data.get("hooks") or {}).get("state") or {}).items():
        if key.startswith(prefix) and isinstance(entry, dict) and entry.get("enabled") is False:
            return ("%s sets enabled = false for agentguard's hook (%s), so Codex skips it" % (config, key),
                    "remove that enabled = false from %s" % config)
    return None


def enabled(ctx):
    top = ctx.info.top
    config = os.path.join(codex_home(os.environ), "config.toml")
    off = switched_off(top, config)
    if off:
        return ("fail",) + off
    if not codex_project_trusted(top):
        return ("warn", "Codex loads no project hook here until the project is trusted (%s: projects.\"%s\")"
                % (config, top), "printf '%%s\\n' %s >> %s"
                % (sh_quote("\n[projects.%s]\ntrust_level = \"trusted\"" % json.dumps(top)), sh_quote(config)))
    return ("pass", "Codex trusts this project (%s)" % config, None)


def problems(top, path, placed):
    """Codex skips a hook its config does not trust."""
    untrusted = codex_hook_untrusted(path, placed)
    return [untrusted] if untrusted else []


class CodexSteps(Steps):
    """The per-hook trust entries in ``$CODEX_HOME/config.toml`` (record ``codex_trust``: the config
    file, the keys, the block install appended, whether it created the file or its folder), planned
    after the settings merge, taken out last, recognised without a record."""

    def plan_after_settings(self, step):
        if HOOKS_JSON not in step.settings:
            return {}
        return {"codex_trust": self._plan_trust(step)}

    def _plan_trust(self, step):
        """The ``[hooks.state]`` entries without which Codex skips agentguard's hooks, with no message."""
        merged_hash = step.settings[HOOKS_JSON]["sha256"]
        target = contained(step.info.top, HOOKS_JSON)
        current_hooks = read_regular(target)
        planned = current_hooks if current_hooks is not None and sha256_bytes(current_hooks) == merged_hash \
            else step.merge_settings(current_hooks, "codex")
        entries = codex_trust_for(target, step.placed_groups(planned, "codex"))
        config = os.path.join(codex_home(os.environ), "config.toml")
        old = step.previous.get("codex_trust") or {}
        current = read_regular(config)
        ours = old.get("block") if old.get("config") == config else None
        try:
            new, block = add_trust(current, entries, ours)
        except UnicodeDecodeError:
            raise AgentguardError("%s is not UTF-8 text; agentguard cannot record its hook's trust there" % config)
        created = old.get("created") if ours else current is None
        if block is None:  # already trusted: by our earlier block, or by the user
            if ours and current is not None and ours in current.decode("utf-8", "replace"):
                step.want(config, current, file_mode(config))  # still ours, as written (no write)
                return dict(old)
            found = None if ours else found_trust(current, entries)  # an install whose record was lost
            if found:
                step.want(config, current, file_mode(config))
                return dict(found, config=config, keys=[key for key, _ in entries], created_dir=None)
            return None
        step.want(config, new, file_mode(config) if current is not None else 0o600)
        made_dir = old.get("created_dir") if ours else (None if os.path.isdir(os.path.dirname(config))
                                                        else os.path.dirname(config))
        return {"config": config, "keys": [key for key, _ in entries], "block": block, "created": bool(created),
                "created_dir": made_dir}

    def outside_dirs(self, record):
        trust = record.get("codex_trust") or {}
        return [os.path.dirname(trust["config"])] if isinstance(trust.get("config"), str) else []

    def uninstall_outside(self, record, done, warnings):
        rec = record.get("codex_trust") or {}
        config, block = rec.get("config"), rec.get("block")
        if not config or not block:
            return
        try:
            data = read_regular(config)
        except AgentguardError as exc:
            warnings.append(str(exc))
            return
        if data is None:
            return
        new = remove_trust(data, block)
        if new is None:
            warnings.append("%s no longer holds agentguard's hook trust entry as install wrote it; check "
                            "[hooks.state] there by hand" % config)
            return
        if not new and rec.get("created"):
            os.unlink(config)
            done.append("removed %s" % config)
            if rec.get("created_dir") == os.path.dirname(config):
                try:
                    os.rmdir(rec["created_dir"])
                except OSError:
                    pass  # something else is in it now
        else:
            atomic_write(config, new, file_mode(config))
            done.append("took agentguard's hook trust entry out of %s" % config)

    def recognise_settings(self, path, data, record, left, placed_groups):
        config = os.path.join(codex_home(os.environ), "config.toml")
        entries = codex_trust_for(path, placed_groups(data, "codex"))
        try:
            current = read_regular(config)
        except AgentguardError:
            current = None
        found = found_trust(current, entries)
        if found:
            record["codex_trust"] = dict(found, config=config, created_dir=None)
        elif any(trusted_hash(current, key) == value for key, value in entries):
            left.append("the trust entries for agentguard's hook in %s ([hooks.state])" % config)


# Codex (.codex/hooks.json or .codex/config.toml of a trusted project, $CODEX_HOME for every project)
# has no local, git-ignored settings file: where the team tracks theirs, install leaves it alone
HARNESS = Install("codex", enabled=enabled, problems=problems, records=("codex_trust",), steps=CodexSteps(),
                  settings=Settings(HOOKS_JSON, "PreToolUse", lambda timeout: {"type": "command",
                                                                                        "timeout": timeout}))
