"""Run git for the installer in a clean environment, through GitPython.

The environment is untrusted input: ``GIT_DIR``, ``GIT_WORK_TREE``, ``GIT_CONFIG_*`` and friends
could point the installer at another repository or another hooks directory, so every ``GIT_*``
variable is dropped and the repository is named explicitly.

GitPython (``git.Repo``, ``git.Git``) builds its children's environment from ``os.environ`` and
``Repo`` reads ``GIT_DIR``, ``GIT_WORK_TREE`` and ``GIT_COMMON_DIR`` from it, so every call into it
runs with ``os.environ`` set to exactly the clean environment (``environment``). It is imported on
first use: the runtime (``hooks/``) never imports it.
"""
import errno
import os
import subprocess
import threading
from contextlib import contextmanager

from ...hooks.gitio import kill_group, program as gitio_program, scrubbed_env
from ...hooks.textsafe import safe
from ..errors import AgentguardError

TIMEOUT = 30

_gitpython = None


def clean_env():
    """This process's environment without ``GIT_*`` (the runtime's rule: ``gitio.scrubbed_env``)."""
    return scrubbed_env()


_environ_lock = threading.RLock()


@contextmanager
def environment(env):
    """``os.environ`` is exactly ``env`` inside the block, restored after it; one thread at a time
    (``gitoptions`` asks git from a thread pool), each holding it only while GitPython reads
    ``os.environ`` (``Repo``'s discovery, ``Git.execute`` starting git)."""
    with _environ_lock:
        removed = {k: os.environ.pop(k) for k in os.environ.keys() - env.keys()}
        changed = {k: os.environ.get(k) for k, v in env.items() if os.environ.get(k) != v}
        os.environ.update((k, env[k]) for k in changed)
        try:
            yield
        finally:
            for k, old in changed.items():
                if old is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = old
            os.environ.update(removed)


def gitpython():
    """GitPython's ``git`` package. Importing it runs ``$GIT_PYTHON_GIT_EXECUTABLE version`` (and
    honours ``GIT_PYTHON_TRACE``, ``GIT_PYTHON_REFRESH``): the import sees the clean environment with
    the executable pinned to the git install runs, so no variable names another program. Commands
    name their executable themselves (``run``)."""
    global _gitpython
    if _gitpython is None:
        with environment(dict(clean_env(), GIT_PYTHON_GIT_EXECUTABLE=gitio_program(), GIT_PYTHON_REFRESH="quiet")):
            import git
        git.Git.GIT_PYTHON_GIT_EXECUTABLE = gitio_program()
        _gitpython = git
    return _gitpython


def git_ok(args, cwd, timeout=TIMEOUT):
    """True when ``git ARGS`` exits 0."""
    return run(args, cwd, timeout)[0] == 0


def git(args, cwd, check=True, timeout=TIMEOUT, env=None, program=None):
    """stdout of ``git ARGS`` run in ``cwd`` (text, trailing newline removed). ``env`` replaces the
    cleaned environment (``isolated_env``); ``program`` names another git binary."""
    rc, out, err = run(args, cwd, timeout, env, program)
    if check and rc != 0:
        raise AgentguardError("git %s failed: %s" % (args[0], safe(err.decode("utf-8", "replace").strip(), 200)))
    return out.decode("utf-8", "surrogateescape").rstrip("\n")


_ABOUT: dict = {}


def git_about(args):
    """What git says about itself (``--version``, ``--exec-path``), the same in every repository: asked
    once per process for one git (the program, and the PATH that finds it) instead of in each of the
    repositories of ``doctor --all``."""
    key = (tuple(args), gitio_program(), os.environ.get("PATH", ""))
    if key not in _ABOUT:
        _ABOUT[key] = git(args, cwd=os.path.sep)
    return _ABOUT[key]


def isolated_env(home):
    """No user or system config at all: for asking git about itself."""
    env = clean_env()
    env.update({"HOME": home, "XDG_CONFIG_HOME": os.path.join(home, ".config"), "GIT_CONFIG_NOSYSTEM": "1",
                "LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0"})
    return env


def run(args, cwd, timeout, env=None, program=None):
    """``(returncode, stdout, stderr)`` of ``git ARGS`` in ``cwd``, started by ``git.Git.execute`` in
    its own session; past ``timeout`` seconds its whole process group is killed (as the runtime does:
    ``gitio.kill_group``), which GitPython's ``kill_after_timeout`` would do by running ``pgrep``."""
    gp = gitpython()
    if not os.path.isdir(cwd) or not os.access(cwd, os.X_OK):
        # GitPython would run git in this process's directory instead: never another repository
        raise AgentguardError("cannot run git: %s" % os.strerror(errno.ENOENT if not os.path.isdir(cwd)
                                                                 else errno.EACCES))
    env = env or clean_env()
    try:
        with environment(env):
            started = gp.Git(cwd).execute([program or gitio_program()] + list(args), as_process=True, env=env,
                                          start_new_session=True)
    except gp.GitCommandNotFound as exc:
        cause = exc.__cause__
        raise AgentguardError("cannot run git: %s" % (getattr(cause, "strerror", None) or cause))
    except OSError as exc:
        raise AgentguardError("cannot run git: %s" % exc.strerror)
    proc = started.proc
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        raise AgentguardError("git %s did not answer within %ds" % (args[0], timeout))
    return proc.returncode, out, err


