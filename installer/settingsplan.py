"""Install and uninstall steps for the harness settings agentguard merges into rather than owns:
Claude Code's, Codex's and Gemini CLI's settings files in the work tree (a hook group per event:
before the tool call and after it), and Codex's per-hook trust entries in ``$CODEX_HOME/config.toml``.
Each records what was there before, so uninstall puts back exactly that (byte for byte when nothing
else changed since)."""
import base64
import os

from . import harnesses as H
from .errors import AgentguardError
from .fsops import atomic_write, contained, file_mode, read_contained, read_regular, sha256_bytes
from .gitenv import git


def _b64(data):
    return base64.b64encode(data).decode() if data is not None else None


def _unb64(text):
    return base64.b64decode(text) if text is not None else None


def plan_settings(info, harnesses, previous, want):
    """Merge agentguard's hook groups into each chosen harness's settings file (through ``want``).
    Returns (settings record, codex trust record). ``created`` holds every container that was not
    in the original (an install from before the after-check hooked fewer events: the events added
    now count as created too)."""
    record = {}
    old_records = previous.get("settings") or {}
    for harness in harnesses:
        if harness not in H.SETTINGS:
            continue
        rel = H.SETTINGS[harness][0]
        target = contained(info.top, rel)
        current = read_regular(target)
        old = old_records.get(rel)
        if old and current is not None and sha256_bytes(current) == old.get("sha256"):
            original, created = _unb64(old.get("original")), old.get("created") or []
        elif current is not None and H.positions(current, harness) and (old or not tracked(info, rel)):
            # changed since the last install (or its record was lost), our groups still in it: what
            # was there is the rest (with no record, the containers our groups alone fill count as
            # ours). A tracked file with our groups and no record: the team committed them; they stay.
            created = (old.get("created") or []) if old else H.all_containers(harness)
            original = H.unmerge_settings(current, harness, created)
        else:
            original, created = current, []
        created = list(dict.fromkeys(created + H.created_containers(original, harness)))
        merged = H.merge_settings(current, harness)
        record[rel] = {"harness": harness, "original": _b64(original), "sha256": sha256_bytes(merged),
                       "created": created}
        want(target, merged, file_mode(target) if current is not None else 0o644)
    trust = plan_codex_trust(info, previous, record, want) if "codex" in harnesses else None
    return record, trust


def tracked(info, rel):
    """True when ``rel`` is a file the repository tracks (its entries are the team's, not install's)."""
    return bool(git(["ls-files", "--", rel], info.top, check=False).strip())


def plan_codex_trust(info, previous, settings_record, want):
    """The ``[hooks.state]`` entries without which Codex skips agentguard's hooks, with no message."""
    rel = H.SETTINGS["codex"][0]
    merged_hash = settings_record[rel]["sha256"]
    target = contained(info.top, rel)
    current_hooks = read_regular(target)
    planned = current_hooks if current_hooks is not None and sha256_bytes(current_hooks) == merged_hash \
        else H.merge_settings(current_hooks, "codex")
    entries = H.codex_trust_for(target, planned)
    config = os.path.join(H.codex_home(), "config.toml")
    old = previous.get("codex_trust") or {}
    current = read_regular(config)
    ours = old.get("block") if old.get("config") == config else None
    try:
        new, block = H.add_trust(current, entries, ours)
    except UnicodeDecodeError:
        raise AgentguardError("%s is not UTF-8 text; agentguard cannot record its hook's trust there" % config)
    created = old.get("created") if ours else current is None
    if block is None:  # already trusted: by our earlier block, or by the user
        if ours and current is not None and ours in current.decode("utf-8", "replace"):
            want(config, current, file_mode(config))  # still ours, as written (no write)
            return dict(old)
        found = None if ours else H.found_trust(current, entries)  # an install whose record was lost
        if found:
            want(config, current, file_mode(config))
            return dict(found, config=config, keys=[key for key, _ in entries], created_dir=None)
        return None
    want(config, new, file_mode(config) if current is not None else 0o600)
    made_dir = old.get("created_dir") if ours else (None if os.path.isdir(os.path.dirname(config))
                                                    else os.path.dirname(config))
    return {"config": config, "keys": [key for key, _ in entries], "block": block, "created": bool(created),
            "created_dir": made_dir}


def uninstall_settings(info, record, done, warnings):
    for rel, rec in sorted((record.get("settings") or {}).items()):
        harness = rec.get("harness")
        if harness not in H.SETTINGS or H.SETTINGS[harness][0] != rel:
            continue
        found = read_contained(info.top, rel, warnings)
        if found is None:
            continue
        path, data = found
        original = _unb64(rec.get("original"))
        if data is None or data == original:
            continue  # gone already, or install stopped before it merged
        if sha256_bytes(data) == rec.get("sha256"):
            restored = original
        elif not H.positions(data, harness):
            continue  # someone took our entries out already
        else:
            try:
                restored = H.unmerge_settings(data, harness, rec.get("created") or [])
            except AgentguardError as exc:
                warnings.append("%s; agentguard's hook entry is left in it" % exc)
                continue
        if restored is None:
            os.unlink(path)
            done.append("removed %s" % rel)
        else:
            atomic_write(path, restored, file_mode(path))
            done.append("restored %s" % rel if restored == original else "took agentguard's hook out of %s" % rel)


def uninstall_codex_trust(record, done, warnings):
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
    new = H.remove_trust(data, block)
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
