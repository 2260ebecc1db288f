"""The argv of the process that called a hook, read where the system offers it.

One contract for every system: ``read_process_argv(pid)`` is the exact argv (a list of str, each
byte that is not UTF-8 kept through ``surrogateescape``), or None when this system will not say.

- Linux: ``/proc/<pid>/cmdline``.
- macOS: ``sysctl {CTL_KERN, KERN_PROCARGS2, pid}``: ``int argc``, the exec path, NUL padding, then
  argc NUL-terminated arguments, then the environment (``parse_procargs2``).
- FreeBSD and DragonFly: ``sysctl {CTL_KERN, KERN_PROC, KERN_PROC_ARGS, pid}``; NetBSD
  ``{CTL_KERN, KERN_PROC_ARGS, pid, KERN_PROC_ARGV}``: NUL-separated arguments, as /proc gives them.

Where none of these answers (a container with /proc hidden, another system), every rule that reads
the caller has a fallback that decides on evidence git itself gives (see docs/platforms.md).
"""
import os
import sys

MAX_ARGS = 1 << 20
# sysctl names (from <sys/sysctl.h> of each system)
CTL_KERN = 1
DARWIN_KERN_ARGMAX = 8
DARWIN_KERN_PROCARGS2 = 49
FREEBSD_KERN_PROC, FREEBSD_KERN_PROC_ARGS = 14, 7
NETBSD_KERN_PROC_ARGS, NETBSD_KERN_PROC_ARGV = 48, 1


def _pid(pid):
    """``pid`` as a positive int, or None."""
    try:
        pid = int(pid)
    except (TypeError, ValueError):
        return None
    return pid if pid > 0 else None


def read_process_argv(pid):
    """The argv of process ``pid``, or None when it cannot be read on this system."""
    pid = _pid(pid)
    if pid is None:
        return None
    if sys.platform.startswith("linux"):
        return _from_proc(pid)
    mib = _sysctl_mib(sys.platform, pid)
    if mib is None:
        return _from_proc(pid)
    raw = _sysctl(mib)
    if raw is None:
        return None
    return parse_procargs2(raw) if sys.platform == "darwin" else parse_nul_args(raw)


def _from_proc(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as fh:
            raw = fh.read(MAX_ARGS)
    except OSError:
        return None
    return parse_nul_args(raw)


def parse_nul_args(raw):
    """argv from NUL-terminated arguments (Linux /proc, FreeBSD and NetBSD sysctl), or None."""
    if not raw:
        return None
    parts = raw.split(b"\0")
    if parts[-1] == b"":
        parts.pop()
    return [_text(p) for p in parts] or None


def parse_procargs2(raw):
    """argv from a macOS ``KERN_PROCARGS2`` buffer, or None when it is not laid out as one.

    Layout: a native ``int`` argc; the executable's path, NUL-terminated; NUL padding up to the
    first argument; argc NUL-terminated arguments (an empty argument is a lone NUL); then the
    environment, which is not ours to read."""
    if raw is None or len(raw) < 4:
        return None
    argc = int.from_bytes(raw[:4], sys.byteorder, signed=True)
    if argc <= 0 or argc > MAX_ARGS:
        return None
    end = raw.find(b"\0", 4)
    if end < 0:
        return None
    pos = end
    while pos < len(raw) and raw[pos] == 0:
        pos += 1  # the exec path's terminator and the padding after it
    args = []
    for _ in range(argc):
        stop = raw.find(b"\0", pos)
        if stop < 0:
            return None  # truncated: an argv we cannot read whole is no argv
        args.append(_text(raw[pos:stop]))
        pos = stop + 1
    return args


def _text(raw):
    return raw.decode("utf-8", "surrogateescape")


def _sysctl_mib(platform, pid):
    if platform == "darwin":
        return [CTL_KERN, DARWIN_KERN_PROCARGS2, pid]
    if platform.startswith(("freebsd", "dragonfly")):
        return [CTL_KERN, FREEBSD_KERN_PROC, FREEBSD_KERN_PROC_ARGS, pid]
    if platform.startswith("netbsd"):
        return [CTL_KERN, NETBSD_KERN_PROC_ARGS, pid, NETBSD_KERN_PROC_ARGV]
    return None


def _sysctl(mib):
    """The bytes ``sysctl(mib)`` returns, or None (ctypes is loaded only on the systems that need it)."""
    try:
        import ctypes
        import ctypes.util
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        size = ctypes.c_size_t(_argmax(libc, ctypes))
        buf = ctypes.create_string_buffer(size.value)
        name = (ctypes.c_int * len(mib))(*mib)
        if libc.sysctl(name, len(mib), buf, ctypes.byref(size), None, ctypes.c_size_t(0)) != 0:
            return None
        return buf.raw[:size.value]
    except (OSError, AttributeError, ValueError, TypeError):
        return None


def _argmax(libc, ctypes):
    """The largest argument area a process may have (``KERN_ARGMAX``), 1 MiB when unknown."""
    if sys.platform != "darwin":
        return MAX_ARGS
    value = ctypes.c_int(0)
    size = ctypes.c_size_t(ctypes.sizeof(value))
    name = (ctypes.c_int * 2)(CTL_KERN, DARWIN_KERN_ARGMAX)
    if libc.sysctl(name, 2, ctypes.byref(value), ctypes.byref(size), None, ctypes.c_size_t(0)) != 0:
        return MAX_ARGS
    return max(4096, min(value.value, 16 * MAX_ARGS))


def executable(pid):
    """The path of the program process ``pid`` runs (Linux ``/proc/<pid>/exe``, macOS the exec path
    of ``KERN_PROCARGS2``), or None where this system will not say."""
    pid = _pid(pid)
    if pid is None:
        return None
    if sys.platform == "darwin":
        raw = _sysctl(_sysctl_mib(sys.platform, pid))
        end = raw.find(b"\0", 4) if raw is not None and len(raw) > 4 else -1
        return _text(raw[4:end]) if raw is not None and end > 4 else None
    try:
        return os.readlink("/proc/%d/exe" % pid)
    except OSError:
        return None


def parent_pid(pid):
    """The parent of process ``pid``, or None: /proc where there is one, else POSIX ``ps``."""
    found = _parent_from_proc(pid)
    return found if found is not None else _parent_from_ps(pid)


def _parent_from_proc(pid):
    try:
        with open("/proc/%d/stat" % int(pid), "rb") as fh:
            stat = fh.read().decode("utf-8", "replace")
        return int(stat.rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def _parent_from_ps(pid):
    import subprocess
    try:
        out = subprocess.run(["ps", "-o", "ppid=", "-p", str(int(pid))], capture_output=True,
                             timeout=5, env=dict(os.environ, LC_ALL="C")).stdout
        return int(out.strip() or b"x")
    except (OSError, ValueError, subprocess.SubprocessError):
        return None


def readable():
    """How this system gives a process's argv to agentguard: "proc", "sysctl", or None (the rules
    that read their caller use their fallbacks; the doctor says which)."""
    if read_process_argv(os.getpid()) is None:
        return None
    return "proc" if sys.platform.startswith("linux") or _sysctl_mib(sys.platform, 1) is None else "sysctl"


# What the rules that read their caller do where no argv can be read: (rule, what is weaker). The
# doctor prints these on such a system; SECURITY.md lists each (tests/test_platforms.py checks both).
WITHOUT_ARGV = (
    ("remote-tracking-forge", "a fetch moving origin/<protected> asks the remote (ls-remote) if it is real"),
    ("rename-onto-protected", "`branch -M x main`: x is deleted, then put back when main's change is refused"),
    ("push-mirror", "a mirror push is known only by remote.<name>.mirror or refs pushed to refs/remotes/"),
    ("push-protected", "the pre-commit framework's pre-push entry sees only a push's first ref"),
    ("protected-move", "refusals name `git status`, not the command's --abort"),
)
