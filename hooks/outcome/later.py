"""What an after-check found, kept for the next pre-call of a harness whose post-call hooks cannot
tell the model anything (``descriptor.Protocol.later``): one file per work tree next to its
snapshot, written by ``check --after`` and taken (read and removed) by the next ``check --hook``."""
import os

from ..saferead import read_regular
from . import snapshot, store

MAX = 64 * 1024


def _path(where):
    return store.snapshot_path(where.ag_home, where.top)[:-len(".json")] + ".later"


def _where(cwd):
    where = snapshot.locate_guarded(cwd)[0]  # (a work tree git no longer answers for: its after-check's report)
    return where if where is not None and os.path.isdir(where.ag_home) else None


def keep(cwd, reason):
    """Add ``reason`` to what the next pre-call in the work tree at ``cwd`` tells the model."""
    where = _where(cwd)
    if where is None or not reason:
        return
    path = _path(where)
    before = _read(path)
    text = (before + "\n" + reason) if before and reason not in before else (before or reason)
    store.write_atomic(path, text[-MAX:].encode("utf-8"))


def take(cwd):
    """What the after-checks since the last pre-call in the work tree at ``cwd`` found ("" for
    nothing), removed as it is read."""
    where = _where(cwd)
    if where is None:
        return ""
    path = _path(where)
    text = _read(path)
    if text:
        try:
            os.unlink(path)
        except OSError:
            pass
    return text


def _read(path):
    return (read_regular(path, MAX) or b"").decode("utf-8", "replace")
