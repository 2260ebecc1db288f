"""``<git common dir>/agentguard/manifest.json``: what install wrote, with hashes.

Uninstall and the doctor trust only this record (and the scripts' own header) to decide what
is agentguard's; anything else in the hooks directory belongs to the user.
"""
import json
import os

from ...hooks.saferead import read_regular
from ..fsops import atomic_write

NAME = "manifest.json"
FORMAT = 1


def load(ag_home):
    return read(ag_home)[0]


def read(ag_home):
    """(record, None), or (None, why there is none: "missing", "unreadable", "not a record this agentguard
    reads")."""
    path = os.path.join(ag_home, NAME)
    raw = read_regular(path, 1 << 20)  # a FIFO put there is never waited on
    if raw is None:
        return None, "unreadable" if os.path.lexists(path) else "missing"
    try:
        data = json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None, "unreadable"
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("hooks"), dict):
        return None, "not a record this agentguard reads"
    return data, None


def save(ag_home, data):
    data = dict(data, format=FORMAT)
    atomic_write(os.path.join(ag_home, NAME), (json.dumps(data, indent=2, sort_keys=True) + "\n").encode())


INSTALLING = "installing"


def intent(record, previous):
    """The manifest written before install changes anything: the new record, marked ``installing``,
    that also accepts every hash the previous (complete or interrupted) install recorded, so that
    uninstall recognises a file this install has not rewritten yet."""
    accept = {kind: accept_table(record, previous, kind) for kind in ("hooks", "adapters")}
    return dict(record, state=INSTALLING, accept=accept)


def accept_table(record, previous, kind):
    """{entry: [hashes]} of ``kind`` that an install between ``previous`` and ``record`` accepts."""
    previous = previous or {}
    return {key: sorted(accepted(previous, kind, key))
            for key in set(previous.get(kind) or {}) | set(record.get(kind) or {})}


def accepted(record, kind, key):
    """The hashes of ``kind`` (hooks/adapters) entry ``key`` that are agentguard's own."""
    entry = (record.get(kind) or {}).get(key)
    digest = entry.get("sha256") if isinstance(entry, dict) else entry
    found = {digest} if isinstance(digest, str) else set()
    extra = ((record.get("accept") or {}).get(kind) or {}).get(key) or []
    return found | {d for d in extra if isinstance(d, str)}


def recorded_policy(record):
    """The policy the manifest records, or None."""
    from ...hooks.policy import Policy, PolicyError
    try:
        return Policy.from_json(record["policy"]) if record else None
    except (KeyError, TypeError, PolicyError):
        return None


def interrupted(record):
    return bool(record) and record.get("state") == INSTALLING
