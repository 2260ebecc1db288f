"""The break-glass: a person's grant of one push or move of a protected branch (``agentguard allow``).

A grant is ``<git common dir>/agentguard/allow/<hex of the branch name>.json``: the branch, when it was
made and when it expires (absolute seconds), a random nonce. The backstop (reference-transaction,
pre-push) and the push guard in git's transport consult it only where they would refuse, so a
repository with no grant pays one ``stat`` on a refusal and nothing otherwise. The first use consumes
it: it is renamed away before it is read, so of two users only one can win. Each use leaves a record
in ``allow/used/<nonce>.json`` (what moved where): the after-check keeps a record only when the grant
it consumed existed before the tool call, and a protected branch standing exactly where a kept record
put it is not taken back (``moved_by_grant``). The server side never reads any of this.
"""
import binascii
import os
import stat
import time

from . import audit, jsonlite
from . import lazyre as re  # compiled when a grant is read: a refusal without one loads no re

DIR = "allow"
USED = "used"
DEFAULT_MINUTES = 10
MAX_MINUTES = 60
MAX_BYTES = 4096
MAX_USED = 50  # records of uses kept; the oldest go first
MOVE_HOOK = "reference-transaction"  # a use by this hook moved a local branch; the others pushed
CLOCK_SLACK = 120  # seconds a grant's creation time may lie in the future (clocks step)
_NONCE = re.compile(r"\A[0-9a-f]{32}\Z")
_NAME = re.compile(r"\A([0-9a-f]{2,1024})\.json\Z")


def folder(ag_home):
    return os.path.join(ag_home, DIR)


def path_for(ag_home, branch):
    return os.path.join(folder(ag_home), binascii.hexlify(branch.encode("utf-8", "surrogateescape")).decode() + ".json")


def branch_of_name(name):
    """The branch a grant file's name stands for, or None (claims, temp files, anything else)."""
    found = _NAME.match(name)
    if not found or len(found.group(1)) % 2:
        return None
    try:
        return binascii.unhexlify(found.group(1)).decode("utf-8", "surrogateescape")
    except (binascii.Error, ValueError):
        return None


def make(branch, minutes, now=None, tty=None):
    """(the grant dict, its bytes) for ``branch``, valid ``minutes`` from ``now``."""
    now = time.time() if now is None else now
    data = {"branch": branch, "created": now, "expires": now + 60 * minutes, "nonce": os.urandom(16).hex()}
    if tty:
        data["tty"] = tty
    return data, (jsonlite.dumps_sorted(data) + "\n").encode("utf-8", "surrogateescape")


def parse(raw):
    """The grant or use record in ``raw`` (bytes), or None when it is not one."""
    try:
        data = jsonlite.loads(raw.decode("utf-8", "surrogateescape"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("branch"), str) \
            or not isinstance(data.get("nonce"), str) or not _NONCE.match(data["nonce"]):
        return None
    if not all(isinstance(data.get(k), (int, float)) and not isinstance(data.get(k), bool)
               for k in ("created", "expires")):
        return None
    return data


def read(path):
    """The grant or record at ``path`` (a regular file, never through a symlink), or None."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        raw = os.read(fd, MAX_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    return parse(raw) if len(raw) <= MAX_BYTES else None


def valid(grant, branch, now=None):
    """True when ``grant`` is for ``branch``, not expired, and no longer than ``MAX_MINUTES``."""
    now = time.time() if now is None else now
    return grant is not None and grant["branch"] == branch and grant["created"] <= now + CLOCK_SLACK \
        and now < grant["expires"] and grant["expires"] - grant["created"] <= MAX_MINUTES * 60 + 1


def active(ag_home, now=None):
    """[(branch, seconds left)] of every grant that is valid now (the doctor, ``allow --list``)."""
    now = time.time() if now is None else now
    try:
        names = sorted(os.listdir(folder(ag_home)))
    except OSError:
        return []
    out = []
    for name in names:
        branch = branch_of_name(name)
        found = read(os.path.join(folder(ag_home), name)) if branch is not None else None
        if found is not None and valid(found, branch, now):
            out.append((branch, int(found["expires"] - now)))
    return out


def consume(ag_home, uses, hook, argv=None, now=None):
    """Spend one valid grant per branch of ``uses`` ([(branch, ref, old, new)]): all or none.

    Returns True when every branch had one (each is gone then, its use recorded and audited), False
    otherwise (nothing is spent, except a grant found expired, which is removed). Never raises."""
    if not uses or not ag_home or not os.path.isdir(folder(ag_home)):
        return False
    now = time.time() if now is None else now
    claimed = []
    ok = True
    for branch in sorted({u[0] for u in uses}):
        path = path_for(ag_home, branch)
        claim = os.path.join(folder(ag_home), ".claim-%d-%s" % (os.getpid(), os.urandom(4).hex()))
        try:
            os.rename(path, claim)  # whoever renames it owns it
        except OSError:
            ok = False
            break
        grant = read(claim)
        if not valid(grant, branch, now):
            _unlink(claim)
            if grant is not None and grant["branch"] == branch:
                audit.record(ag_home, hook, "break-glass-expired", [("refs/heads/" + branch, "", "")], argv)
            ok = False
            break
        claimed.append((branch, claim, grant))
    if not ok:
        for branch, claim, _ in claimed:  # give back what this all-or-none use took
            try:
                os.link(claim, path_for(ag_home, branch))
            except OSError:
                pass  # a new grant was made meanwhile: that one stands
            _unlink(claim)
        return False
    for branch, claim, grant in claimed:
        _unlink(claim)
        mine = [u for u in uses if u[0] == branch]
        _record_use(ag_home, grant, hook, mine, now)
        audit.record(ag_home, hook, "break-glass-use", [u[1:] for u in mine], argv)
    return True


def _record_use(ag_home, grant, hook, uses, now):
    from .outcome.store import write_atomic
    where = os.path.join(folder(ag_home), USED)
    record = dict(grant, used=now, hook=hook, refs=[{"ref": r, "old": o, "new": n} for _, r, o, n in uses])
    try:
        write_atomic(os.path.join(where, grant["nonce"] + ".json"),
                     (jsonlite.dumps_sorted(record) + "\n").encode("utf-8", "surrogateescape"))
        names = sorted(os.listdir(where), key=lambda n: _mtime(os.path.join(where, n)))
        for name in names[:-MAX_USED]:
            _unlink(os.path.join(where, name))
    except (OSError, ValueError):
        pass


def used_records(ag_home):
    """[record] of the uses kept (``allow/used/``)."""
    where = os.path.join(folder(ag_home), USED)
    try:
        names = sorted(os.listdir(where))
    except OSError:
        return []
    out = []
    for name in names:
        record = read(os.path.join(where, name)) if name.endswith(".json") else None
        if record is not None and isinstance(record.get("refs"), list):
            out.append(record)
    return out


def moved_by_grant(ag_home, branch, oid):
    """True when a kept use record says a grant moved local ``branch`` to ``oid``."""
    ref = "refs/heads/" + branch
    return any(isinstance(r, dict) and r.get("ref") == ref and r.get("new") == oid
               for record in used_records(ag_home) if record.get("hook") == MOVE_HOOK for r in record["refs"])


def _mtime(path):
    try:
        return os.lstat(path).st_mtime
    except OSError:
        return 0.0


def _unlink(path):
    try:
        os.unlink(path)
    except OSError:
        pass
