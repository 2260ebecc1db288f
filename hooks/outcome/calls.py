"""Which tool call a snapshot was taken for, and the pre-check's repairs kept until an after-check
tells the model (``<snapshot>.pending`` next to the work tree's snapshot): a repair the pre-check
makes reaches the model by the route the after-check's report takes (``after.run`` folds it in)."""
import os
import time

from ..jsonlite import loads
from ..saferead import read_regular
from ..textsafe import safe
from . import store

MAX_CALL = 200  # characters of the call's command kept for attribution
PENDING = store.PENDING
MAX_KEPT = 5


def call_record(call):
    """What the snapshot keeps of the tool call it is taken for: its command (bounded, one printable
    line), the time, and this process's start on the kernel's clock (``running.ticks``)."""
    from .running import ticks
    return {"what": safe(call or "", MAX_CALL), "at": time.time(), "ticks": ticks()}


def pending_path(where):
    return store.pending_path(where.ag_home, where.top)


_path = pending_path


def keep(where, report, call):
    """Add the pre-check's ``report`` to what the next after-check in this work tree tells; ``call``:
    the snapshot's record of the call it happened after."""
    import json
    kept = take_kept(where)
    store.write_atomic(_path(where), json.dumps((kept + [report.earlier_entry(call)])[-MAX_KEPT:]).encode("utf-8"))


def take_kept(where):
    """The repairs pre-checks made since the last after-check ([] for none), removed as they are read."""
    path = _path(where)
    raw = read_regular(path, 1 << 20)  # a FIFO put there never makes the after-check wait
    if raw is None:
        return []
    try:
        data = loads(raw.decode("utf-8"))
        os.unlink(path)
    except (OSError, ValueError, UnicodeDecodeError):
        return []
    return [e for e in data if isinstance(e, dict)] if isinstance(data, list) else []
