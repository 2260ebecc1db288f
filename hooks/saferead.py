"""Reading a file the repository (or a tool call) controls without ever waiting: a FIFO, socket or
device where a file was is never opened for a blocking read (a pipe with no writer would hang the
check, the after-check, a git hook for ever)."""
import os
import stat


def open_regular(path, flags=0):
    """A file descriptor of the regular file ``path`` opened without waiting, or None when it is a pipe,
    device, socket or directory; raises OSError when it cannot be opened."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | flags)
    if stat.S_ISREG(os.fstat(fd).st_mode):
        return fd
    os.close(fd)
    return None


def read_regular(path, limit):
    """The first ``limit`` bytes of the regular file ``path``; None when it cannot be read or is a pipe,
    device or socket (opened without waiting: a pipe with no writer would block the check for ever)."""
    try:
        fd = open_regular(path)
    except OSError:
        return None
    if fd is None:
        return None
    try:
        chunks, size = [], 0
        while size < limit:
            chunk = os.read(fd, limit - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)
