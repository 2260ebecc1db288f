"""Helpers for driving real git repositories, a real bare remote and the real CLI."""
import atexit
import hashlib
import importlib.util
import json
import os
import pty
import select
import stat
import shutil
import subprocess
import sys
import tempfile
import time

import pytest

from agentguard.hooks.gitmodel import procargv

BIN = os.path.dirname(sys.executable)
# False where this system does not give a process's argv (tests/test_platforms.py runs the backstop
# tables again with /proc hidden): the rules then decide on their fallbacks (docs/platforms.md).
ARGV_READABLE = procargv.readable() is not None
AGENTGUARD = shutil.which("agentguard", path=BIN) or shutil.which("agentguard")
ZERO = "0" * 40
# the npm packages sh scripts/test.sh installs: pi, husky and the harness CLIs
NODE_MODULES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "node", "node_modules")
PI_PACKAGE = os.path.join(NODE_MODULES, "@mariozechner", "pi-coding-agent")
INSTALLED_BY_TEST_SH = "sh scripts/test.sh installs it"


def under_ci():
    """CI runs the suite with ``CI`` set (true); there a missing tool is a failure, not a skip."""
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


def need(what, available, how_to_get=INSTALLED_BY_TEST_SH):
    """The one policy for a tool a test drives (a harness CLI, shellcheck, posh, sshd, lighttpd, FUSE,
    node, a venv, ...): when ``available`` is falsy, skip with the reason on a developer's machine and
    fail under CI, where a skipped test would pass silently. Returns ``available``."""
    if available:
        return available
    why = "%s is missing (%s)" % (what, how_to_get)
    if under_ci():
        pytest.fail(why + "; under CI every tool the suite drives must be there", pytrace=False)
    pytest.skip(why)


def need_module(name, how_to_get="the test extra: pip install -e '.[test]'"):
    """``need`` for a Python module the tests import or run (ruff, mypy, mkdocs)."""
    need(name, importlib.util.find_spec(name) is not None, how_to_get)


def need_path(path, how_to_get=INSTALLED_BY_TEST_SH):
    """``need`` for a file the suite installs (a harness's package under tests/node, a venv's python)."""
    return need(path, os.path.exists(path) and path, how_to_get)


def succeeded_unrefused(proc):
    """The command succeeded and agentguard did not refuse it (it may have said something else)."""
    assert proc.returncode == 0 and "agentguard: refused" not in proc.stderr, proc.stdout + proc.stderr
    return proc


def succeeded_silently(proc):
    """The command succeeded and agentguard said nothing at all (no refusal, no warning)."""
    assert proc.returncode == 0 and "agentguard" not in proc.stderr, proc.stdout + proc.stderr
    return proc


# One user's cache for the whole test process, as a person's installs share ~/.cache/agentguard: install asks
# git for its option table once per git binary, not once per test (tests of the cache set their own).
SHARED_CACHE = tempfile.mkdtemp(prefix="agentguard-test-cache-")
atexit.register(shutil.rmtree, SHARED_CACHE, True)


def _base_env(home):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT", "HUSKY"))}
    env["AGENTGUARD_CACHE_HOME"] = SHARED_CACHE
    env.update({
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "t@example.com",
        "GIT_EDITOR": "true", "GIT_SEQUENCE_EDITOR": "true", "GIT_MERGE_AUTOEDIT": "no",
        "LC_ALL": "C",
    })
    env["PATH"] = BIN + os.pathsep + env.get("PATH", "")
    return env


def fresh_home(tmp_path_factory, name):
    """(root, env) for a module-scoped fixture: a fresh directory ``name`` with its own HOME and the tests'
    git environment."""
    root = tmp_path_factory.mktemp(name)
    home = root / "home"
    home.mkdir()
    return root, _base_env(home)


class Git:
    """A working repository driven by the real git binary."""

    def __init__(self, path, env):
        self.path = path
        self.env = env

    def run(self, *args, check=True, input=None, cwd=None, env=None):
        proc = subprocess.run(["git", *args], cwd=cwd or self.path, env=env or self.env, input=input,
                              capture_output=True, text=True, timeout=120)
        if check and proc.returncode != 0:
            raise AssertionError("git %s failed (%d):\n%s%s" % (" ".join(args), proc.returncode,
                                                               proc.stdout, proc.stderr))
        return proc

    def sh(self, script, cwd=None):
        return subprocess.run(["sh", "-c", script], cwd=cwd or self.path, env=self.env, capture_output=True,
                              text=True, timeout=120)

    def rev(self, ref):
        proc = self.run("rev-parse", "-q", "--verify", ref, check=False)
        return proc.stdout.strip() or None

    def commit(self, msg, path=None, content=None):
        name = path or (msg.replace(" ", "_") + ".txt")
        with open(os.path.join(self.path, name), "w") as fh:
            fh.write(content if content is not None else msg + "\n")
        self.run("add", name)
        return self.run("commit", "-q", "-m", msg)

    def agentguard(self, *args, check=True, cwd=None, env=None):
        return agentguard(*args, cwd=cwd or self.path, env=env or self.env, check=check)

    def staged(self):
        return self.run("diff", "--cached", "--name-only").stdout.split()

    def branches(self):
        return self.run("for-each-ref", "--format=%(refname:short)", "refs/heads/").stdout.split()


def module_world(tmp_path_factory, name):
    """(root, env, work, remote path) for a module-scoped fixture: a fresh HOME, a bare remote
    ``root/remote.git`` and a work repository ``root/work`` with one commit on main and the remote
    added as origin (nothing pushed yet, nothing installed)."""
    root, env = fresh_home(tmp_path_factory, name)
    remote = str(root / "remote.git")
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", remote], env=env, check=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(root / "work")], env=env, check=True)
    work = Git(str(root / "work"), env)
    work.commit("initial")
    work.run("remote", "add", "origin", remote)
    return root, env, work, remote


def replace_in_file(path, old, new):
    """Rewrite ``path`` with ``old`` (which must be there) replaced by ``new``: an adapter with one of
    its handlers switched off, for the controls."""
    with open(path) as fh:
        text = fh.read()
    assert old in text, (path, old)
    with open(path, "w") as fh:
        fh.write(text.replace(old, new))


def agentguard(*args, cwd, env, check=True, input=None):
    proc = subprocess.run([AGENTGUARD, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120, input=input)
    if check and proc.returncode != 0:
        raise AssertionError("agentguard %s failed (%d):\n%s%s" % (" ".join(args), proc.returncode,
                                                                  proc.stdout, proc.stderr))
    return proc


def doctor_report(repo, *args, cwd=None, env=None, check_rc=None):
    """`agentguard doctor --json ARGS` in ``repo`` (or ``cwd``): ({check id: check}, the process). The
    doctor never ends in a traceback, its JSON's "ok" agrees with its exit status, and with
    ``check_rc`` that status is the one given."""
    proc = repo.agentguard("doctor", "--json", *args, check=False, cwd=cwd, env=env)
    assert "Traceback" not in proc.stderr, proc.stderr
    data = json.loads(proc.stdout)
    assert data["ok"] == (proc.returncode == 0), proc.stdout
    if check_rc is not None:
        assert proc.returncode == check_rc, proc.stdout
    return {c["id"]: c for c in data["checks"]}, proc


def doctor_checks(repo, *args, cwd=None, env=None):
    """{check id: check} of `agentguard doctor --json ARGS` in ``repo`` (see doctor_report)."""
    return doctor_report(repo, *args, cwd=cwd, env=env)[0]


def refused(proc):
    """The command failed and agentguard said so."""
    out = proc.stdout + proc.stderr
    return proc.returncode != 0 and "agentguard: refused" in out


def upstream_advance(bare, env, tmp_path, msg="upstream"):
    """Another clone pushes a commit to the remote's main; returns its sha."""
    other = tmp_path / ("other-" + msg.replace(" ", "_"))
    subprocess.run(["git", "clone", "-q", bare.path, str(other)], env=env, check=True)
    clone = Git(str(other), env)
    clone.commit(msg)
    clone.run("push", "-q", "origin", "main")
    return clone.rev("HEAD")


# -- snapshots: what must not change ---------------------------------------------------------
USER_HOOK = b"#!/bin/sh\necho 'user pre-commit ran' >&2\n"
USER_TOML = b"# my gptme settings\n[prompt]\nabout_user = \"keep me\"\n"


def tree_snapshot(root):
    """{relative path: (mode, bytes)} of every file below root (symlinks by target)."""
    out = {}
    for base, dirs, files in os.walk(root):
        for name in files + [d for d in dirs if os.path.islink(os.path.join(base, d))]:
            path = os.path.join(base, name)
            st = os.lstat(path)
            data = os.readlink(path) if stat.S_ISLNK(st.st_mode) else open(path, "rb").read()
            out[os.path.relpath(path, root)] = (stat.S_IMODE(st.st_mode), data)
    return out


def snapshot(root):
    """{relative path: ('file', sha256, mode) | ('dir', mode) | ('link', target)} for everything."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", os.readlink(path))
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = ("dir", stat.S_IMODE(st.st_mode))
            else:
                with open(path, "rb") as fh:
                    out[rel] = ("file", hashlib.sha256(fh.read()).hexdigest(), stat.S_IMODE(st.st_mode))
    return out


def state(repo, bare):
    return {"main": repo.rev("refs/heads/main"), "remote": bare.rev("refs/heads/main"),
            "feat": repo.rev("refs/heads/feat"), "branches": sorted(repo.branches())}


def assert_refused_and_kept(proc, repo, bare, before):
    assert refused(proc), proc.stdout + proc.stderr
    after = state(repo, bare)
    assert after == before, "something moved or was lost: %r -> %r" % (before, after)


def abort_step(cmd):
    """The step a refusal in the middle of ``git <cmd>`` names: the command's own ``--abort`` when
    the hook could read it, else ``git status`` (which says what is in progress)."""
    return "git %s --abort" % cmd if ARGV_READABLE else "git status"


# -- a person at a terminal ------------------------------------------------------------------------
def on_a_terminal(argv, cwd, env, timeout=120):
    """(exit status, everything written) of ``argv`` run with stdout and stderr on a pseudo-terminal."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(argv, cwd=cwd, env=dict(env, TERM="xterm", COLUMNS="200"), stdin=subprocess.DEVNULL,
                            stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    return proc.wait(timeout=timeout), out.decode("utf-8", "replace")


def allow_on_pty(repo, *args, typed="main", timeout=60):
    """Run `agentguard allow ARGS` on a new pseudo-terminal, type ``typed`` (None: type nothing and
    close the terminal) when it asks; returns (exit status, everything it wrote)."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: a person's shell in the repository
        try:
            os.chdir(repo.path)
            os.execve(AGENTGUARD, [AGENTGUARD, "allow", *args], repo.env)
        finally:
            os._exit(127)
    out = b""
    sent = False
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(fd, 4096)
                except OSError:  # EIO: the child closed the terminal
                    break
                if not chunk:
                    break
                out += chunk
            if not sent and b"Type the branch name" in out:
                sent = True
                if typed is None:
                    os.write(fd, b"\x04")  # end of input
                else:
                    os.write(fd, typed.encode() + b"\n")
    finally:
        _, status = os.waitpid(pid, 0)
        os.close(fd)
    return os.waitstatus_to_exitcode(status), out.decode("utf-8", "replace")


def counting_git(tmp_path, env):
    """``env`` with a git first on PATH that notes each start in a file (the real git does the work)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    marks = tmp_path / "git-starts"
    real = shutil.which("git", path=env.get("PATH"))
    (bin_dir / "git").write_text('#!/bin/sh\necho "$*" >> %s\nexec %s "$@"\n' % (marks, real))
    os.chmod(bin_dir / "git", 0o755)
    return dict(env, PATH="%s:%s" % (bin_dir, env["PATH"])), marks
