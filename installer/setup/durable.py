"""Many files written durably at once: what install writes into one repository.

Each file still lands atomically (a temp file beside it, renamed over it: the old bytes or the new,
never half) and durably (its data is on disk before the rename that names it is, and every directory
a rename changed is synced), but the syncs are grouped: all temp files are written first, then synced
at once (``syncfs(2)`` of each file system they are on, else ``sync(2)``: on Linux both return once
everything is written; ``syncfs`` does not wait for the other file systems' dirty pages), then all are
renamed in order, then each directory is synced once (beyond a few directories, again one
``syncfs``: it commits the renames with everything else, where an ``fsync`` per directory waited for a
journal commit each). An ``fsync`` per file (~230 with the compiled runtime) and
per file's directory, one after the other, was most of an install's wall time on a busy disk."""
import os

from ...hooks.outcome.store import fsync_dir


FEW = 4  # up to this many files, each is synced on its own; beyond, one sync(2) is cheaper
_SYNCFS: list = []  # libc's syncfs, once looked up ([None]: not there)


def sync_filesystems(directories):
    """Everything written on the file systems of ``directories`` is on disk (``syncfs(2)`` of each one,
    or one ``sync(2)`` where that call is missing or fails)."""
    if not _SYNCFS:
        try:
            import ctypes
            _SYNCFS.append(ctypes.CDLL(None, use_errno=True).syncfs)
        except (ImportError, OSError, AttributeError):
            _SYNCFS.append(None)
    syncfs = _SYNCFS[0]
    devices: dict = {}
    for directory in directories:
        devices.setdefault(os.stat(directory).st_dev, directory)
    if syncfs is None:
        os.sync()
        return
    for directory in devices.values():
        fd = os.open(directory, os.O_RDONLY)
        try:
            if syncfs(fd) != 0:
                os.sync()  # what this did before syncfs: never less
                return
        finally:
            os.close(fd)


class Batch:
    """``write(path, data, mode)`` now, in place only once ``commit()`` returns."""

    def __init__(self):
        self.items = []  # (temp file, its path) not renamed yet
        self.renamed = set()  # the directories a rename changed
        self.made = set()  # the directories made (or found) for this batch: not asked again per file

    def write(self, path, data, mode=0o644):
        directory = os.path.dirname(path)
        if directory not in self.made:
            os.makedirs(directory, exist_ok=True)
            self.made.add(directory)
        while True:
            tmp = os.path.join(directory, ".agentguard-tmp-" + os.urandom(4).hex())  # fsops.TEMP_NAME
            try:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                break
            except FileExistsError:
                continue
        self.items.append((tmp, path))  # before writing: a failure removes it (discard)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, mode)

    def commit(self):
        """Sync every temp file, rename each over its path (in the order written), sync each directory."""
        try:
            if len(self.items) > FEW:
                sync_filesystems({os.path.dirname(tmp) for tmp, _ in self.items})  # one flush for them all
            for tmp, _ in self.items if len(self.items) <= FEW else ():
                fd = os.open(tmp, os.O_RDONLY)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
            while self.items:
                tmp, path = self.items[0]
                os.replace(tmp, path)
                self.items.pop(0)
                self.renamed.add(os.path.dirname(path))
        finally:
            self.discard()
        if len(self.renamed) > FEW:
            sync_filesystems(self.renamed)  # the renames on disk: one journal commit, not one per directory
            return
        for directory in sorted(self.renamed):
            fsync_dir(directory)

    def discard(self):
        """Remove the temp files not renamed (a failure midway: what is in place stays)."""
        for tmp, _ in self.items:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        self.items = []

