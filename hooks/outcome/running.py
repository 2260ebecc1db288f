"""The processes a tool call left running in the repository: started after the call's pre-check (on
the kernel's clock, ``/proc/<pid>/stat`` field 22), still alive at its after-check, their working
directory inside the work tree or the git dir, and not one of this process's ancestors (the harness,
the shell that runs this check). They are named, never killed: a dev server or a watcher is
ordinary work, and a job that acts later is undone by the next check (``baseline``).

Linux only (``/proc``); elsewhere nothing is named. Cheap: only the pids allocated since the
pre-check (``/proc/loadavg`` names the last one) are read."""
import os

from ..textsafe import safe

PROC = "/proc"
MAX_NAMED = 10
MAX_COMMAND = 160


def ticks():
    """[start of this process in clock ticks since boot, the last pid allocated], or None off Linux."""
    mine = _stat("self")
    last = _last_pid()
    return [mine[1], last] if mine is not None and last is not None else None


def left_running(where, call):
    """[{"pid", "command"}] of the processes started since the pre-check that recorded ``call``
    (``baseline.call_record``) that work inside ``where``'s work tree or git dir."""
    mark = call.get("ticks") if isinstance(call, dict) else None
    if not (isinstance(mark, list) and len(mark) == 2 and all(isinstance(x, int) for x in mark)):
        return []
    start, first = mark
    last = _last_pid()
    if last is None:
        return []
    try:
        pids = [int(n) for n in os.listdir(PROC) if n.isdigit()]
    except OSError:
        return []
    fresh = [p for p in pids if (first < p <= last if first <= last else p > first or p <= last)]
    if not fresh:
        return []
    mine = _ancestors()
    roots = {os.path.realpath(d) for d in (where.top, where.git_dir, where.common_dir)}
    out = []
    for pid in sorted(fresh):
        found = _stat(str(pid))
        if pid in mine or found is None or found[1] < start:
            continue
        try:
            cwd = os.readlink(os.path.join(PROC, str(pid), "cwd"))
        except OSError:
            continue  # gone, or not ours to read
        if any(cwd == r or cwd.startswith(r.rstrip(os.sep) + os.sep) for r in roots):
            out.append({"pid": pid, "command": _command(pid)})
            if len(out) >= MAX_NAMED:
                break
    return out


def _last_pid():
    try:
        with open(os.path.join(PROC, "loadavg"), "rb") as fh:
            return int(fh.read(200).split()[4])
    except (OSError, ValueError, IndexError):
        return None


def _stat(pid):
    """(parent pid, start time in ticks) of ``pid``, or None."""
    try:
        with open(os.path.join(PROC, pid, "stat"), "rb") as fh:
            data = fh.read(4096)
    except OSError:
        return None
    fields = data.rpartition(b")")[2].split()
    try:
        return int(fields[1]), int(fields[19])
    except (IndexError, ValueError):
        return None


def _ancestors():
    out: set = set()
    pid = os.getpid()
    while pid > 1 and pid not in out and len(out) < 200:
        out.add(pid)
        found = _stat(str(pid))
        if found is None:
            break
        pid = found[0]
    return out


def _command(pid):
    try:
        with open(os.path.join(PROC, str(pid), "cmdline"), "rb") as fh:
            data = fh.read(MAX_COMMAND * 4)
    except OSError:
        data = b""
    return safe(b" ".join(a for a in data.split(b"\0") if a) or b"?", MAX_COMMAND)
