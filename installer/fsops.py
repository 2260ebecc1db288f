"""Every file the installer writes or removes goes through here: atomic, inside its root."""
import hashlib
import os
import re
import stat

from ..hooks.outcome.store import write_atomic
from ..hooks.saferead import open_regular
from ..hooks.textsafe import safe
from .errors import AgentguardError


def sha256_bytes(data):
    return hashlib.sha256(data).hexdigest()


def read_regular(path, limit=16 * 1024 * 1024):
    """Bytes of a regular file (not following a final symlink), or None when absent."""
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):  # a parent that is a file: `core.hooksPath=/dev/null`
        return None
    fd = open_regular(path, os.O_NOFOLLOW) if stat.S_ISREG(st.st_mode) else None  # never waits on a FIFO swapped in
    if fd is None:
        raise AgentguardError("%s is not a regular file" % safe(path, 300))
    with os.fdopen(fd, "rb") as fh:
        # asked for the size it has (and a byte more), not ``limit``: read(n) allocates n bytes first
        first = min(limit, os.fstat(fd).st_size + 1)
        data = fh.read(first)
        return data + fh.read(limit - first) if len(data) == first < limit else data


def file_mode(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


TEMP_NAME = re.compile(r"\A\.agentguard-tmp-[a-z0-9_]{8}\Z")  # the prefix and 8 characters (store.write_atomic)


def remove_stale_temps(directory, pattern=TEMP_NAME):
    """Remove the temp files (names matching ``pattern``) that a killed install left in ``directory``
    between writing and renaming. Only called under the install lock: no install writes them now."""
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        path = os.path.join(directory, name)
        if pattern.search(name) and stat.S_ISREG(os.lstat(path).st_mode):
            os.unlink(path)


def atomic_write(path, data, mode=0o644):
    """Write ``data`` to ``path`` so that a crash leaves the old file or the new one, never half."""
    write_atomic(path, data, mode, durable=True)


def copy_exact(src, dst):
    """Copy bytes and mode of ``src`` to ``dst`` atomically (used to keep a chained hook)."""
    data = read_regular(src)
    atomic_write(dst, data, file_mode(src))


def _flock_within(fd, wait, pause, busy):
    """An exclusive ``flock`` on ``fd``, tried until ``wait`` seconds have passed; then ``fd`` is closed
    and AgentguardError(``busy``) raised."""
    import fcntl
    import time
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except OSError:
            if time.monotonic() > deadline:
                os.close(fd)
                raise AgentguardError(busy)
            time.sleep(pause)


def lock_generation(ag_home):
    """The generation of ``<ag_home>/lock``: its mtime in ns, which every holder of the InstallLock moves
    forward when it takes the lock (None: no lock file). A plan reads it before anything else; the same
    generation under the lock means no install or uninstall ran in between (the manifest alone reads the
    same after an install and an uninstall, while a plan made then saw the files half-way)."""
    try:
        return os.stat(os.path.join(ag_home, "lock")).st_mtime_ns
    except OSError:
        return None


class InstallLock:
    """``<ag_home>/lock``: one install or uninstall at a time per repository. ``before``: the
    generation found when the lock was taken (``lock_generation``); the holder moves it forward."""

    def __init__(self, ag_home, wait=5.0):
        self.path = os.path.join(ag_home, "lock")
        self.wait = wait
        self.fd = None
        self.before = None

    def __enter__(self):
        import time
        deadline = time.monotonic() + self.wait
        while True:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            created = not os.path.exists(self.path)
            self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            _flock_within(self.fd, max(0.0, deadline - time.monotonic()), 0.05, "another agentguard install or "
                          "uninstall is running in this repository; try again when it has finished")
            held = os.fstat(self.fd)
            try:
                now_there = os.stat(self.path)
            except FileNotFoundError:
                now_there = None
            if now_there is not None and (now_there.st_dev, now_there.st_ino) == (held.st_dev, held.st_ino):
                break
            os.close(self.fd)  # the holder before took the lock file away (an uninstall that found nothing)
        old = held.st_mtime_ns
        self.before = None if created else old
        # strictly later than before, whatever the clock's grain: no two holders leave the same generation
        now = max(time.time_ns(), old + 1)
        os.utime(self.fd, ns=(now, now))
        return self

    def __exit__(self, *exc):
        os.close(self.fd)

    def remove(self):
        """Take the lock file and its folder away while holding it (the folder only when empty): a run
        waiting on it finds it gone once it has the lock, and opens it again."""
        try:
            os.unlink(self.path)
            os.rmdir(os.path.dirname(self.path))
        except OSError:
            pass


class UserFilesLock:
    """One install at a time writes the files several repositories share (a harness's trust entries in
    the user's home, such as ``$CODEX_HOME/config.toml``): ``install --all`` runs installs side by side,
    and two read-modify-writes of one file lose an update. An ``flock`` on the home folder itself (no
    file of ours there); no lock where the home cannot be opened."""

    def __init__(self, wait=120.0):
        self.wait = wait
        self.fd = None

    def __enter__(self):
        try:
            fd = os.open(os.path.expanduser("~"), os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        except OSError:
            return self
        _flock_within(fd, self.wait, 0.02, "another agentguard install is writing the files in your home "
                                           "folder; try again when it has finished")
        self.fd = fd
        return self

    def __exit__(self, *exc):
        if self.fd is not None:
            os.close(self.fd)


def contained(root, rel):
    """The path of ``rel`` below ``root``, refusing anything that would leave it.

    The one resolver for every path install and uninstall write or delete in a work tree:
    relative paths only; lexical containment with path semantics (``/tmp/repo`` is not
    ``/tmp/repo-other``); every existing component, symlinks resolved, must stay inside; a missing
    target needs an existing ancestor inside.
    """
    if os.path.isabs(rel) or not rel:
        raise AgentguardError("refusing to write %s: not a relative path" % safe(rel, 200))
    root_real = os.path.realpath(root)
    target = os.path.normpath(os.path.join(root_real, rel))
    if not _inside(target, root_real):
        raise AgentguardError("refusing to write %s: it is outside the repository" % safe(rel, 200))
    probe = root_real
    for part in os.path.relpath(target, root_real).split(os.sep):
        probe = os.path.join(probe, part)
        if os.path.islink(probe) or os.path.lexists(probe):
            if not _inside(os.path.realpath(probe), root_real):
                raise AgentguardError("refusing to write %s: %s is a link that leads outside the repository"
                                      % (safe(rel, 200), safe(os.path.relpath(probe, root_real), 200)))
        else:
            break
    return target


def read_contained(root, rel, warnings):
    """(path, bytes or None) of ``rel`` below ``root`` (see ``contained``); None, with the reason added
    to ``warnings``, when it cannot be read safely (uninstall then leaves it alone)."""
    try:
        path = contained(root, rel)
        return path, read_regular(path)
    except AgentguardError as exc:
        warnings.append(str(exc))
        return None


def parents(rel):
    """The directories above the relative path ``rel``, innermost first."""
    rel = os.path.dirname(rel)
    while rel:
        yield rel
        rel = os.path.dirname(rel)


def _inside(path, root):
    rel = os.path.relpath(path, root)
    return rel == "." or not (rel == ".." or rel.startswith(".." + os.sep))
