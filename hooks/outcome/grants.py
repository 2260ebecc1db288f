"""The break-glass folder (``hooks/grant.py``) after a tool call: a grant that appeared or changed
during the call is the agent's, never a person's, and is removed; a grant that is gone was spent,
revoked or expired, and is not put back. A record of a use is kept only when the grant it spent
existed before the call (a person's grant, used by the call); any other record is removed, and a
push it allowed, which has left the machine, is reported as not undone. A local move it allowed is
then put back by the refs check, which believes only the records that are kept."""
import os

from .. import grant
from . import store


def is_grant_path(where, path):
    return path.startswith(grant.folder(where.ag_home) + os.sep)


def persons(where, old):
    """The nonces of the grants ``old`` ({path: entry}, a snapshot's files) holds: a person's, made before the call."""
    before = set()
    for path, entry in old.items():
        data = store.get(where.ag_home, entry[6]) if _is_grant(where, path) else None
        found = grant.parse(data) if data is not None else None
        if found is not None:
            before.add(found["nonce"])
    return before


def pushed_by_persons_grant(where, old, ref):
    """True when a person's grant (one ``old`` holds) was spent on a push to ``ref`` (the push guard's
    record names the pushed source, not always an object id: the push itself decided what landed)."""
    before = persons(where, old)
    return any(isinstance(r, dict) and r.get("ref") == ref
               for record in grant.used_records(where.ag_home)
               if record.get("hook") != grant.MOVE_HOOK and record.get("nonce") in before
               for r in record.get("refs") or ())


def undo(where, old, now, report, same, remove, show):
    """``old``/``now``: {path: entry} of the files below the grant folder before and after the call."""
    before = persons(where, old)
    for path in sorted(set(old) | set(now)):
        b, n = old.get(path), now.get(path)
        if n is None or same(b, n):
            continue  # spent, revoked or expired: never put back
        if _is_grant(where, path):
            remove(path)
            report.add("file", "removed a break-glass grant (%s) that this call made; only a person grants one, "
                       "with `agentguard allow` in their own terminal" % show(where, path), path=path)
            continue
        record = grant.read(path) if os.path.dirname(path) == _used(where) else None
        if record is not None and b is None and record["nonce"] in before:
            continue  # a person's grant, spent by this call: its record stands
        remove(path)
        refs = record.get("refs") if record is not None and record.get("hook") != grant.MOVE_HOOK else None
        pushes = [r.get("ref", "") for r in refs if isinstance(r, dict)] if isinstance(refs, list) else []
        if pushes:
            report.fail("a break-glass grant made during this call let a push update %s; a push that has left "
                        "the machine cannot be undone" % ", ".join(str(p) for p in pushes))
        else:
            report.add("file", "removed %s, which this call added" % show(where, path), path=path)


def _is_grant(where, path):
    return os.path.dirname(path) == grant.folder(where.ag_home) and \
        grant.branch_of_name(os.path.basename(path)) is not None


def _used(where):
    return os.path.join(grant.folder(where.ag_home), grant.USED)
