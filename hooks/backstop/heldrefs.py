"""Branch deletions kept until the git command that made them has finished, where its argv is unknown.

``git branch -M feat main`` deletes ``feat`` in one transaction and only then touches ``main`` (the
files backend writes the new name without a transaction, after deleting the old one). With the
caller's argv the deletion is recognised as a rename's first step and refused. Without it (no /proc,
no sysctl), the deletion of an unprotected branch is allowed but recorded here, per git process;
when a later transaction of the same process is refused, git dies without rolling back, so the
hook puts the deleted branches back itself: a refused rename loses nothing.
"""
import os
import time

from .. import gitio
from ..gitmodel.refnames import ZERO_OID
from ..saferead import read_regular

DIR = "held"
MAX_AGE = 600.0  # seconds; a git process that deleted a branch and still runs after this is rare
MAX_ENTRIES = 256


def _path(ag_home, pid):
    return os.path.join(ag_home, DIR, "%d" % int(pid))


def hold(ag_home, pid, deletions):
    """Record ``deletions`` ([(ref, old oid)]) made by git process ``pid``. Never raises."""
    if not deletions:
        return
    try:
        os.makedirs(os.path.join(ag_home, DIR), exist_ok=True)
        _prune(ag_home)
        text = "".join("%s %s\n" % (oid, ref) for ref, oid in deletions)
        fd = os.open(_path(ag_home, pid), os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK, 0o644)
        try:
            os.write(fd, text.encode("utf-8", "surrogateescape"))
        finally:
            os.close(fd)
    except (OSError, ValueError):
        pass


def restore(ag_home, pid, cwd=None):
    """Put back the branches git process ``pid`` deleted and that do not exist again; return their
    names. The record is consumed."""
    path = _path(ag_home, pid)
    try:
        if time.time() - os.stat(path).st_mtime > MAX_AGE:
            os.unlink(path)
            return []
        lines = (read_regular(path, 1 << 24) or b"").decode("utf-8", "surrogateescape").splitlines()[-MAX_ENTRIES:]
        os.unlink(path)
    except (OSError, ValueError):
        return []
    restored = []
    for line in lines:
        oid, _, ref = line.partition(" ")
        if not ref.startswith("refs/heads/") or ref in restored:
            continue
        try:
            # create only: a branch that exists again (or a name that now conflicts) is left alone
            rc, _ = gitio.run(["update-ref", "-m", "agentguard: put back after a refused command",
                               ref, oid, ZERO_OID], cwd=cwd)
        except gitio.GitError:
            continue
        if rc == 0:
            restored.append(ref)
    return restored


def _prune(ag_home):
    folder = os.path.join(ag_home, DIR)
    now = time.time()
    for name in os.listdir(folder):
        try:
            if now - os.stat(os.path.join(folder, name)).st_mtime > MAX_AGE:
                os.unlink(os.path.join(folder, name))
        except OSError:
            pass
