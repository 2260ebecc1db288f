"""A case-insensitive, case-preserving pass-through file system (FUSE), as macOS and Windows have.

``python casefs.py BACKING MOUNTPOINT`` mounts BACKING at MOUNTPOINT in the foreground: a name is
looked up in any letter case, and a new name is stored as written, unless another spelling of it
exists (then that file is used, as APFS and NTFS do). Used by tests/test_names.py to prove what a ref
update of ``refs/heads/MAIN`` does there; fusepy and libfuse2 are test-only dependencies.
"""
import errno
import os
import sys

from fuse import FUSE, FuseOSError, Operations


class CaseFolding(Operations):
    def __init__(self, root):
        self.root = os.path.realpath(root)

    def _real(self, path, create=False):
        """The backing path of ``path``: each component matched in any case. ``create``: the last one
        may be missing (then kept as written)."""
        real = self.root
        parts = [p for p in path.split("/") if p]
        for i, part in enumerate(parts):
            exact = os.path.join(real, part)
            if os.path.lexists(exact):
                real = exact
                continue
            try:
                found = [n for n in os.listdir(real) if n.lower() == part.lower()]
            except OSError:
                found = []
            if found:
                real = os.path.join(real, found[0])
            elif create and i == len(parts) - 1:
                real = exact
            else:
                raise FuseOSError(errno.ENOENT)
        return real

    # -- reading ------------------------------------------------------------------------------------
    def getattr(self, path, fh=None):
        st = os.lstat(self._real(path))
        return {k: getattr(st, k) for k in ("st_atime", "st_ctime", "st_gid", "st_mode", "st_mtime", "st_nlink",
                                             "st_size", "st_uid", "st_ino")}

    def readdir(self, path, fh):
        return [".", ".."] + os.listdir(self._real(path))

    def readlink(self, path):
        return os.readlink(self._real(path))

    def access(self, path, amode):
        if not os.access(self._real(path), amode):
            raise FuseOSError(errno.EACCES)

    def statfs(self, path):
        st = os.statvfs(self._real(path))
        return {k: getattr(st, k) for k in ("f_bavail", "f_bfree", "f_blocks", "f_bsize", "f_favail", "f_ffree",
                                             "f_files", "f_flag", "f_frsize", "f_namemax")}

    def open(self, path, flags):
        return os.open(self._real(path), flags)

    def read(self, path, size, offset, fh):
        os.lseek(fh, offset, os.SEEK_SET)
        return os.read(fh, size)

    # -- writing ------------------------------------------------------------------------------------
    def create(self, path, mode, fi=None):
        real = self._real(path, create=True)
        flags = os.O_WRONLY | os.O_CREAT | (fi.flags & (os.O_EXCL | os.O_TRUNC) if fi is not None else os.O_TRUNC)
        return os.open(real, flags, mode)

    def write(self, path, data, offset, fh):
        os.lseek(fh, offset, os.SEEK_SET)
        return os.write(fh, data)

    def truncate(self, path, length, fh=None):
        with open(self._real(path), "r+b") as f:
            f.truncate(length)

    def flush(self, path, fh):
        return 0

    def release(self, path, fh):
        os.close(fh)
        return 0

    def fsync(self, path, datasync, fh):
        os.fsync(fh)
        return 0

    def mkdir(self, path, mode):
        os.mkdir(self._real(path, create=True), mode)

    def rmdir(self, path):
        os.rmdir(self._real(path))

    def unlink(self, path):
        os.unlink(self._real(path))

    def symlink(self, target, source):
        os.symlink(source, self._real(target, create=True))

    def link(self, target, source):
        os.link(self._real(source), self._real(target, create=True))

    def rename(self, old, new):
        os.rename(self._real(old), self._real(new, create=True))

    def chmod(self, path, mode):
        os.chmod(self._real(path), mode)

    def chown(self, path, uid, gid):
        os.chown(self._real(path), uid, gid)

    def utimens(self, path, times=None):
        os.utime(self._real(path), times)


if __name__ == "__main__":
    FUSE(CaseFolding(sys.argv[1]), sys.argv[2], foreground=True, nothreads=True, use_ino=True)
