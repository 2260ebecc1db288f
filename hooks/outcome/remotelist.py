"""The git directories of the remotes this repository reaches by a local path, as the last snapshot
found them (``localremotes``): written by each snapshot, read by the analyser with one ``open``."""
import os
import stat

from ..jsonlite import loads
from . import store

FILE = "local-remotes.json"  # in the store's folder


def known(ag_home):
    """The local-path remotes' git directories the last snapshot of this installation found ([] when
    none: one failed ``open``)."""
    try:  # never blocks: a FIFO put in its place is no regular file
        fd = os.open(os.path.join(store.home(ag_home), FILE), os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except OSError:
        return []
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return []
        data = loads(os.read(fd, 1 << 16).decode("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return []
    finally:
        os.close(fd)
    return [d for d in data if isinstance(d, str) and os.path.isabs(d)] if isinstance(data, list) else []


def remember(ag_home, dirs):
    """Keep ``dirs`` for ``known`` (written only when it changed; no file when there is none)."""
    path = os.path.join(store.home(ag_home), FILE)
    if known(ag_home) == dirs:
        return
    if dirs:
        import json
        store.write_atomic(path, json.dumps(dirs).encode("utf-8"), 0o644)
    else:
        try:
            os.unlink(path)
        except OSError:
            pass
