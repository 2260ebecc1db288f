"""Run git for the installer in a clean environment.

The environment is untrusted input: ``GIT_DIR``, ``GIT_WORK_TREE``, ``GIT_CONFIG_*`` and friends
could point the installer at another repository or another hooks directory, so every ``GIT_*``
variable is dropped and the repository is named explicitly.
"""
import os
import subprocess

from ..hooks.gitio import kill_group, program as gitio_program, scrubbed_env
from ..hooks.textsafe import safe
from .errors import AgentguardError

TIMEOUT = 30


def clean_env():
    """This process's environment without ``GIT_*`` (the runtime's rule: ``gitio.scrubbed_env``)."""
    return scrubbed_env()


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


def isolated_env(home):
    """No user or system config at all: for asking git about itself."""
    env = clean_env()
    env.update({"HOME": home, "XDG_CONFIG_HOME": os.path.join(home, ".config"), "GIT_CONFIG_NOSYSTEM": "1",
                "LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0"})
    return env


def run(args, cwd, timeout, env=None, program=None):
    try:
        proc = subprocess.Popen([program or gitio_program()] + list(args), cwd=cwd, env=env or clean_env(),
                                stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    except OSError as exc:
        raise AgentguardError("cannot run git: %s" % exc.strerror)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        raise AgentguardError("git %s did not answer within %ds" % (args[0], timeout))
    return proc.returncode, out, err
