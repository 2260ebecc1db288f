"""Install and uninstall steps for the harness settings agentguard merges into rather than owns:
Claude Code's, Codex's and Gemini CLI's settings files in the work tree (a hook group per event:
before the tool call and after it); what depends on the merge (Codex's per-hook trust entries) is the
harness's own step (``descriptor.Steps``). Each records what was there before, so uninstall puts back
exactly that (byte for byte when nothing else changed since)."""
import base64
import os

from ..setup import gitexclude
from . import settingsfile
from ..errors import AgentguardError
from ..fsops import atomic_write, contained, file_mode, read_contained, read_regular, sha256_bytes


def _b64(data):
    return base64.b64encode(data).decode() if data is not None else None


def _unb64(text):
    return base64.b64decode(text) if text is not None else None


def plan_settings(info, chosen, previous, want, shared=False, change=None):
    """Merge agentguard's hook groups into each chosen harness's settings file (through ``want``).
    Returns (settings record, {harness: file left alone}). ``created`` holds
    every container that was not in the original (an install from before the after-check hooked
    fewer events: the events added now count as created too).

    Unless ``shared``, a file git tracks is never changed (the change would show in ``git status``,
    go into the next commit, and go again with a branch switch): the harness is left out and named
    in the third value. A settings file an earlier install wrote elsewhere (another mode, or before
    Claude Code's entry moved to settings.local.json) gets its original back through ``change``."""
    record, skipped = {}, {}
    old_records = previous.get("settings") or {}
    rels = {h: _where(info, h, shared, old_records) for h in chosen if h in settingsfile.SETTINGS}
    in_git = gitexclude.tracked(info, sorted(set(rels.values())))
    team = set() if shared else in_git  # files install must not change
    for harness, rel in rels.items():
        target = contained(info.top, rel)
        current = read_regular(target)
        old = old_records.get(rel)
        if old and current is not None and sha256_bytes(current) == old.get("sha256"):
            original, created = _unb64(old.get("original")), old.get("created") or []
        elif current is not None and settingsfile.positions(current, harness) and (old or rel not in in_git):
            # changed since the last install (or its record was lost), our groups still in it: what
            # was there is the rest (with no record, the containers our groups alone fill count as
            # ours). A tracked file with our groups and no record: the team committed them; they stay.
            created = (old.get("created") or []) if old else settingsfile.all_containers(harness)
            original = settingsfile.unmerge_settings(current, harness, created)
        else:
            original, created = current, []
        merged = settingsfile.merge_settings(current, harness)
        if rel in team and merged != current:
            skipped[harness] = rel
            continue
        created = list(dict.fromkeys(created + settingsfile.created_containers(original, harness)))
        record[rel] = {"harness": harness, "original": _b64(original), "sha256": sha256_bytes(merged),
                       "created": created}
        want(target, merged, file_mode(target) if current is not None else 0o644)
    for rel, rec in sorted(old_records.items()):
        if (rel not in record and change is not None and isinstance(rec, dict)
                and rec.get("harness") in settingsfile.SETTINGS):
            found = _restored(info, rel, rec, [])
            if found is not None:
                change(found[0], found[1])
    return record, skipped


def _where(info, harness, shared, old_records):
    """The settings file for ``harness``: the local one, unless ``shared`` or the team's file carried
    agentguard's hook before any install here merged it in (a clone of a ``--shared`` team: one
    hook, not two)."""
    team = settingsfile.settings_rel(harness, True)
    if not shared and team != settingsfile.settings_rel(harness):
        old = old_records.get(team)
        try:
            theirs = _unb64(old.get("original")) if isinstance(old, dict) else read_regular(contained(info.top, team))
        except (AgentguardError, ValueError, TypeError):
            theirs = None
        if settingsfile.hooked(theirs, harness):
            return team
    return settingsfile.settings_rel(harness, shared)


def left_alone(harness, rel):
    """(what to say, how to change it) of a harness whose settings file ``rel`` git tracks, so that
    install left it alone."""
    return ("git tracks %s, so agentguard left it alone (a change would show in git status and go into the next "
            "commit): %s runs no agentguard hook here" % (rel, harness),
            "for the whole team: agentguard install --shared --harness %s, then commit %s" % (harness, rel))


def recorded_rel(record, harness):
    """The settings file the install ``record`` (one worktree's view) merged ``harness``'s hook into."""
    for rel, rec in (record.get("settings") or {}).items():
        if isinstance(rec, dict) and rec.get("harness") == harness:
            return rel
    return settingsfile.settings_rel(harness, record.get("shared") is True)


def _restored(info, rel, rec, warnings):
    """(path, bytes or None for no file, what was done) that take agentguard's groups out of the
    settings file ``rel`` as install recorded it (``rec``); None when there is nothing to take out."""
    harness = rec.get("harness")
    if harness not in settingsfile.SETTINGS or rel not in (settingsfile.settings_rel(harness),
                                                          settingsfile.settings_rel(harness, True)):
        return None
    found = read_contained(info.top, rel, warnings)
    if found is None:
        return None
    path, data = found
    original = _unb64(rec.get("original"))
    if data is None or data == original:
        return None  # gone already, or install stopped before it merged
    if sha256_bytes(data) == rec.get("sha256"):
        restored = original
    elif not settingsfile.positions(data, harness):
        return None  # someone took our entries out already
    else:
        try:
            restored = settingsfile.unmerge_settings(data, harness, rec.get("created") or [])
        except AgentguardError as exc:
            warnings.append("%s; agentguard's hook entry is left in it" % exc)
            return None
    said = ("removed %s" if restored is None else "restored %s" if restored == original
            else "took agentguard's hook out of %s") % rel
    return path, restored, said


def uninstall_settings(info, record, done, warnings):
    for rel, rec in sorted((record.get("settings") or {}).items()):
        found = _restored(info, rel, rec, warnings) if isinstance(rec, dict) else None
        if found is None:
            continue
        path, restored, said = found
        if restored is None:
            os.unlink(path)
        else:
            atomic_write(path, restored, file_mode(path))
        done.append(said)
