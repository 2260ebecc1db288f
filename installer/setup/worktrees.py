"""Every work tree of a repository gets the harness adapters, not only the one install ran in.

The backstop (hooks, runtime, policy, manifest) lives once in the git common dir and serves every
worktree; the adapter and settings files are untracked files of one work tree. So the manifest keeps
them per worktree: its top level for the main worktree (as before), and ``worktrees[<name>]`` for a
linked one, ``<name>`` being its git dir's name under ``<common dir>/worktrees`` (stable across
``git worktree move``). The ``post-checkout`` hook runs ``agentguard install <new worktree>`` when
``git worktree add`` (or ``git clone``) checks one out; uninstall and the doctor visit every worktree
``git worktree list`` names.
"""
import os
from dataclasses import dataclass
from typing import Optional

from . import manifest
from ..errors import AgentguardError
from ..gitaccess.gitenv import git
from ..harness import registry
from ..gitaccess.repo import discover

# the manifest keys that describe one work tree's files (everything else is shared)
KEYS = ("top", "harnesses", "adapters", "settings", "created_dirs", "skipped") + registry.record_keys()
MAP = "worktrees"


@dataclass
class Listed:
    path: str
    why: str = ""  # what makes it unusable (bare, prunable, missing); "" for a work tree to visit

    @property
    def usable(self):
        return not self.why


def listed(info):
    """[Listed] of ``git worktree list --porcelain``, main worktree first."""
    out = git(["worktree", "list", "--porcelain"], cwd=info.top, check=False)
    found: list = []
    for block in out.split("\n\n"):
        lines = [line for line in block.split("\n") if line]
        if not lines or not lines[0].startswith("worktree "):
            continue
        path = lines[0][len("worktree "):]
        attrs = {line.split(" ", 1)[0] for line in lines[1:]}
        why = ("bare" if "bare" in attrs else "prunable" if "prunable" in attrs
               else "missing" if not os.path.isdir(path) else "")
        found.append(Listed(path, why))
    return found


def key_of(info):
    """None for the main worktree (the manifest's top level), else the linked worktree's name
    (``Layout.worktree``)."""
    return info.worktree


def _sub(record, key):
    entry = (record.get(MAP) or {}).get(key) if key is not None else None
    return entry if isinstance(entry, dict) else None


def inherited_harnesses(record):
    """The harnesses a worktree with no record of its own gets: the main worktree's, else those of
    the first linked worktree recorded."""
    if isinstance(record.get("harnesses"), list):
        return list(record["harnesses"])
    for key in sorted(record.get(MAP) or {}):
        sub = _sub(record, key)
        if sub and isinstance(sub.get("harnesses"), list):
            return list(sub["harnesses"])
    return []


def view(record, key):
    """``record`` as install planned it for one worktree: the shared keys, and that worktree's own
    (the harnesses inherited when it has no record yet). ``manifest.accepted`` works on it."""
    record = record or {}
    shared = {k: v for k, v in record.items() if k not in KEYS and k not in (MAP, "accept")}
    if key is None:
        own = {k: record[k] for k in KEYS if k in record}
        accept = record.get("accept")
    else:
        sub = _sub(record, key)
        own = {k: sub[k] for k in KEYS if k in sub} if sub else {}
        accept = dict((record.get("accept") or {}), adapters=((sub or {}).get("accept") or {}).get("adapters") or {})
    if "harnesses" not in own and record:
        own["harnesses"] = inherited_harnesses(record)
    out = dict(shared, **own)
    if accept:
        out["accept"] = accept
    return out


def has_record(record, key):
    return bool(record) and (any(k in record for k in KEYS) if key is None else _sub(record, key) is not None)


def merge(local, previous, key, top, plan_owned):
    """The whole manifest after an install planned ``local`` (shared keys and this worktree's) in
    the worktree ``key`` at ``top``: the other worktrees' records kept as they were."""
    previous = previous or {}
    if key is None:
        out = dict(local, top=top)
    else:
        out = {k: v for k, v in local.items() if k not in KEYS}
        out.update({k: previous[k] for k in KEYS if k in previous})
    subs = {k: v for k, v in (previous.get(MAP) or {}).items() if isinstance(v, dict)}
    if key is not None:
        subs[key] = dict({k: local[k] for k in KEYS if k in local}, top=top)
    if subs:
        out[MAP] = dict(sorted(subs.items()))
    out["owned"] = _owned(previous, top, plan_owned)
    return out


def _owned(previous, top, plan_owned):
    """install's ``owned`` table (path -> [sha256, mode], what the after-check restores) after an
    install in the work tree ``top``: what it wrote now, and the adapter and settings files the
    installs in the other worktrees wrote."""
    from ..harness.adapters import ALL_PATHS
    from ..harness.settingsfile import settings_rels
    rels = ALL_PATHS + registry.merged_files() + settings_rels()
    kept = {}
    for path, value in (previous.get("owned") or {}).items():
        if not isinstance(path, str) or path in plan_owned:
            continue
        if any(path.endswith(os.sep + rel) and path != os.path.join(top, rel) for rel in rels):
            kept[path] = value
    return dict(kept, **plan_owned)


def intent(record, previous, key):
    """``manifest.intent`` for a plan made in worktree ``key``: a linked worktree's record also
    accepts the adapter hashes its previous (complete or interrupted) install recorded."""
    out = manifest.intent(record, previous)
    if key is None:
        return out
    now = _sub(record, key) or {}
    table = manifest.accept_table(now, view(previous, key), "adapters")
    out[MAP] = dict(out.get(MAP) or {}, **{key: dict(now, accept={"adapters": table})})
    return out


@dataclass
class Place:
    """One worktree's part of the manifest: where it is (None when it is gone) and its record."""
    key: Optional[str]
    info: object  # hooks.layout.Layout, or None: the worktree no longer exists
    record: dict
    shown: str  # how to name it in messages


def live(info):
    """{key: Layout} of every worktree git lists that can be used now, and [(path, why)] of the others."""
    found, skipped = {}, []
    for wt in listed(info):
        if not wt.usable:
            skipped.append((wt.path, wt.why))
            continue
        if os.path.realpath(wt.path) == info.top:
            found[key_of(info)] = info
            continue
        try:
            other = discover(wt.path)
        except AgentguardError:
            skipped.append((wt.path, "unreadable"))
            continue
        if other.common_dir == info.common_dir:
            found[key_of(other)] = other
    return found, skipped


def places(info, record):
    """Every worktree the manifest records, linked ones first (in name order), then the main one:
    an uninstall in that order takes the trust blocks install appended outside them out last-in first-out."""
    found, _ = live(info)
    out = []
    for key in sorted(record.get(MAP) or {}):
        sub = _sub(record, key)
        if sub is None:
            continue
        where = found.get(key)
        out.append(Place(key, where, view(record, key), where.top if where else str(sub.get("top") or key)))
    if has_record(record, None):
        where = found.get(None)
        out.append(Place(None, where, view(record, None), where.top if where else "the main worktree"))
    return out
