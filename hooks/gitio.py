"""Running git from the runtime: bounded in time, killed as a whole process group."""
import os
import signal
import subprocess

TIMEOUT = 10.0


class GitError(Exception):
    """git could not be run or did not answer in time."""


def run(args, cwd=None, stdin_data=None, timeout=TIMEOUT, check=False):
    """Run ``git ARGS``; return (returncode, stdout bytes). Never leaves a child behind."""
    try:
        proc = subprocess.Popen(
            ["git"] + list(args),
            cwd=cwd,
            stdin=subprocess.PIPE if stdin_data is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError as exc:
        raise GitError("cannot run git: %s" % exc.strerror)
    try:
        out, _ = proc.communicate(stdin_data, timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        raise GitError("git %s did not answer within %gs" % (args[0] if args else "", timeout))
    if check and proc.returncode != 0:
        raise GitError("git %s failed" % (args[0] if args else ""))
    return proc.returncode, out


def kill_group(proc):
    """Kill ``proc`` and everything it started (it runs in its own session)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.kill()
    except OSError:
        pass
    proc.wait()


def out_text(args, cwd=None, timeout=TIMEOUT):
    """stdout of a git command that must succeed, decoded, without the trailing newline."""
    _, out = run(args, cwd=cwd, timeout=timeout, check=True)
    return out.decode("utf-8", "surrogateescape").rstrip("\n")
