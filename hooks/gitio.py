"""Running git from the runtime: bounded in time, killed as a whole process group.

Spawned with ``os.posix_spawnp`` rather than ``subprocess``: importing subprocess costs ~11 ms, and
this runs on every hook that reaches Python and every ``agentguard check`` an adapter makes. Read
without blocking, waiting between reads in short sleeps rather than in ``select`` (a shared library:
~0.5 ms of CPU to load, more than the few wake-ups a git run costs).
"""
import os
import time

TIMEOUT = 10.0
PAUSE, MAX_PAUSE = 0.0002, 0.002  # the waits between reads of a git's output that has not come yet
PROGRAM_ENV = "AGENTGUARD_GIT"  # the git install recorded; every launcher of the runtime sets it
# Where git finds the programs it runs (upload-pack, remote helpers): the caller's, never the runtime's.
EXEC_PATH_ENV = "GIT_EXEC_PATH"
OWN_EXEC_PATH_ENV = "AGENTGUARD_EXEC_PATH"  # the recorded git's own, as install found it (the hooks set it)
# Before the git command of a repair (the after-check's, the doctor's): the guard's own move, which
# its hooks must not judge.
REPAIR = ["-c", "core.hooksPath=/dev/null"]


class GitError(Exception):
    """git could not be run or did not answer in time."""


def scrubbed_env(environ=None):
    """``environ`` (default: this process's environment) without any ``GIT_*`` variable.

    The environment is untrusted input: ``GIT_DIR``, ``GIT_WORK_TREE``, ``GIT_CONFIG_*`` and friends
    could point git at another repository or another hooks directory."""
    return {k: v for k, v in (os.environ if environ is None else environ).items() if not k.startswith("GIT_")}


def without_command_line_config(environ=None):
    """``environ`` without the configuration a command line put there (``git -c``, ``--config-env``,
    ``GIT_CONFIG_COUNT``): what the repository's own config files say, as git's children would
    otherwise inherit the caller's overrides."""
    env = os.environ if environ is None else environ
    return {k: v for k, v in env.items()
            if k != "GIT_CONFIG_PARAMETERS" and not k.startswith(("GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_",
                                                                  "GIT_CONFIG_VALUE_"))}


def with_config(key, value, environ=None):
    """``environ`` (default: this process's) plus ``git -c key=value`` for the git it starts, after
    any the caller's command line already put there (``GIT_CONFIG_COUNT``)."""
    env = dict(os.environ if environ is None else environ)
    count = env.get("GIT_CONFIG_COUNT", "0")
    n = int(count) if count.isdigit() else 0
    env.update({"GIT_CONFIG_COUNT": str(n + 1), "GIT_CONFIG_KEY_%d" % n: key, "GIT_CONFIG_VALUE_%d" % n: value})
    return env


def program():
    """The git the runtime runs: the absolute path install recorded (``AGENTGUARD_GIT``, set by the
    hook or launcher that started this process), else ``git`` from PATH (the package, in-process)."""
    path = os.environ.get(PROGRAM_ENV, "")
    return path if os.path.isabs(path) else "git"


def _own_programs(env):
    """``env`` for a git the runtime starts: its own exec path, not the caller's ``GIT_EXEC_PATH``."""
    return {k: v for k, v in env.items() if k != EXEC_PATH_ENV} if EXEC_PATH_ENV in env else env


def read_bounded(stream, limit):
    """A hook's stdin, at most ``limit`` bytes. More than that is drained, so that git is not
    blocked writing to us, and raises ValueError: too much to decide on is refused."""
    data = stream.read(limit + 1)
    if len(data) > limit:
        while stream.read(1 << 20):
            pass
        raise ValueError("more than %d bytes of hook input" % limit)
    return data


def run(args, cwd=None, timeout=TIMEOUT, check=False, env=None, git=None):
    """Run ``git ARGS`` (in ``cwd``, with ``env`` or this process's environment; ``git``: another
    git binary than ``program()``); return (returncode, stdout bytes). Never leaves a child behind."""
    rc, out = run_many([args], cwd=cwd, timeout=timeout, env=env, git=git)[0]
    if check and rc != 0:
        raise GitError("git %s failed" % (args[0] if args else ""))
    return rc, out


def run_many(calls, cwd=None, timeout=TIMEOUT, env=None, git=None):
    """Run several git commands at once (``calls``: [args]); [(returncode, stdout)] in order. They
    overlap in time: one git start of latency instead of one per call."""
    return collect(start_many(calls, cwd=cwd, env=env, git=git), timeout)


def start_many(calls, cwd=None, env=None, git=None):
    """Start several git commands now (``calls``: [args]), read and reaped by ``collect``: they run while
    the caller does other work, without a thread."""
    pending = []  # (pid, read end, args) started and not yet reaped
    try:
        for args in calls:
            pending.append(_start(["git"] + (["-C", cwd] if cwd else []) + list(args),
                                  _own_programs(os.environ if env is None else env), args, git))
        return pending
    except BaseException:
        _abandon(pending)
        raise


def collect(pending, timeout=TIMEOUT):
    """[(returncode, stdout)] of what ``start_many`` started, in order; each is read and reaped once."""
    deadline = time.monotonic() + timeout
    try:
        results = []
        while pending:
            pid, rfd, args = pending[0]
            results.append(_collect(pid, rfd, args, deadline, timeout))
            pending.pop(0)
        return results
    except BaseException:  # an alarm, an interrupt or a timeout: never leave one behind
        _abandon(pending)
        raise


def _abandon(pending):
    while pending:
        pid, rfd, _ = pending.pop()
        _kill(pid)
        os.close(rfd)


def _start(argv, env, args, git=None):
    rfd, wfd = os.pipe()
    devnull = os.open(os.devnull, os.O_RDWR)
    actions = [(os.POSIX_SPAWN_DUP2, devnull, 0), (os.POSIX_SPAWN_DUP2, wfd, 1),
               (os.POSIX_SPAWN_DUP2, devnull, 2), (os.POSIX_SPAWN_CLOSE, rfd)]
    try:
        pid = _spawn(argv, env, actions, git or program())
    except OSError as exc:
        os.close(rfd)
        raise GitError("cannot run git: %s" % exc.strerror)
    finally:
        os.close(wfd)
        os.close(devnull)
    return pid, rfd, args


def _collect(pid, rfd, args, deadline, timeout):
    """Read ``git``'s output to the end and reap it; on a timeout it stays for the caller to kill."""
    chunks = []
    os.set_blocking(rfd, False)
    pause = PAUSE
    while True:
        try:
            data = os.read(rfd, 65536)
        except BlockingIOError:  # nothing yet: wait a little longer each time, up to MAX_PAUSE
            left = deadline - time.monotonic()
            if left <= 0:
                raise GitError("git %s did not answer within %gs" % (args[0] if args else "", timeout))
            time.sleep(min(pause, left))  # at most 2 ms late in wall time; ~25 ms of CPU a second of waiting
            pause = min(pause * 2, MAX_PAUSE)
            continue
        if not data:
            break
        chunks.append(data)
        pause = PAUSE
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            os.close(rfd)
            return os.waitstatus_to_exitcode(status), b"".join(chunks)
        if time.monotonic() > deadline:
            raise GitError("git did not exit in time")
        time.sleep(0.001)


def spawn_foreground(args, env, stdin_fd, stdout_fd):
    """Start ``git ARGS`` in this process group, stderr shared: a command that works *for* the user
    (the push guard's forwarded push) prompts on the terminal and stops on Ctrl-C exactly as the
    command it stands in for would. Returns the pid; ``wait`` reaps it."""
    actions = [(os.POSIX_SPAWN_DUP2, stdin_fd, 0), (os.POSIX_SPAWN_DUP2, stdout_fd, 1)]
    try:
        return os.posix_spawnp(program(), ["git"] + list(args), _own_programs(env), file_actions=actions)
    except OSError as exc:
        raise GitError("cannot run git: %s" % exc.strerror)


def wait(pid):
    """Exit status of a child started by ``spawn_foreground``."""
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def _spawn(argv, env, actions, path):
    """git in a session of its own (no terminal to prompt on; killed as a group), or, where
    ``posix_spawn`` cannot start a session, in a process group of its own (POSIX)."""
    try:
        return os.posix_spawnp(path, argv, env, file_actions=actions, setsid=True)
    except NotImplementedError:
        return os.posix_spawnp(path, argv, env, file_actions=actions, setpgroup=0)


def _kill(pid):
    import signal
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def kill_group(proc):
    """Kill a ``subprocess.Popen`` ``proc`` and everything it started (its own session)."""
    import signal
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
