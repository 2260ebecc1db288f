"""Run the agentguard CLI and SIGKILL it just before its Nth filesystem change below ROOT.

    python kill_at_write.py ROOT N agentguard-args...

Python's audit hooks see every open-for-writing, rename, replace, remove, chmod and mkdir before it
happens; the Nth one below ROOT gets a real SIGKILL, so the test exercises exactly what a crash or
``kill -9`` at that moment leaves behind. With N past the last change the command runs to its end and
the number of changes it made is printed to stderr as ``writes=<count>``. With N = 0 nothing is killed
and every counted change is listed on stderr as ``write<TAB>event<TAB>path[<TAB>destination]``.
"""
import atexit
import os
import signal
import sys

root = os.path.realpath(sys.argv[1])
limit = int(sys.argv[2])
sys.argv = ["agentguard"] + sys.argv[3:]

from agentguard.installer.cli import main  # noqa: E402  (imported before counting starts)

EVENTS = {"os.rename", "os.replace", "os.remove", "os.rmdir", "os.chmod", "os.mkdir", "os.symlink",
          "os.truncate", "shutil.rmtree", "shutil.copyfile"}
WRITING = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
count = 0


def resolve(event, args):
    """The absolute path an event is about (shutil.rmtree removes by name relative to a dir fd)."""
    path = args[0]
    if not isinstance(path, (str, bytes, os.PathLike)):
        return None  # a file descriptor: its open was counted
    path = os.fsdecode(path)
    dir_fd = args[1] if event in ("os.remove", "os.rmdir") and len(args) > 1 else None
    if isinstance(dir_fd, int) and not os.path.isabs(path):
        path = os.path.join(os.readlink("/proc/self/fd/%d" % dir_fd), path)
    return os.path.realpath(path)


def hook(event, args):
    global count
    if event == "open":
        if not (args[2] or 0) & WRITING:
            return
    elif event not in EVENTS:
        return
    path = resolve(event, args) if args else None
    if path is None or not (path == root or path.startswith(root + os.sep)):
        return
    count += 1
    if limit == 0:
        dst = [os.fsdecode(args[1])] if event in ("os.rename", "os.replace") else []
        sys.stderr.write("\t".join(["write", event, path] + dst) + "\n")
    elif count == limit:
        os.kill(os.getpid(), signal.SIGKILL)


atexit.register(lambda: sys.stderr.write("writes=%d\n" % count))
sys.addaudithook(hook)
main()
