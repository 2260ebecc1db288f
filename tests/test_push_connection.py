"""The push guard on git's own connection (issue #30): one ssh connection per guarded push, an
up-to-date push to a local path that starts no Python, and each shortcut of the launcher's shell
fast path handing over to the runtime where a protected ref may be at stake."""
import os
import shlex
import stat
import subprocess

import pytest

import gitservers
from agentguard.hooks.pushguard.connect import LOCAL_ENV, parse_ssh, sq
from helpers import Git, _base_env

pytestmark = pytest.mark.slow


def _clone(tmp_path, env, url, bare_path):
    """A bare remote at ``bare_path`` (main, feat) and a guarded clone of ``url`` (that remote) on `feat`."""
    bare = Git(bare_path, env)
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", bare.path], env=env, check=True)
    seed = Git(str(tmp_path / "seed"), env)
    subprocess.run(["git", "init", "-q", "-b", "main", seed.path], env=env, check=True)
    seed.commit("one")
    seed.run("push", "-q", bare.path, "main")
    seed.commit("two")  # feat ahead of main: not where a symbolic ref to main would stand
    seed.run("push", "-q", bare.path, "HEAD:feat")
    repo = Git(str(tmp_path / "work"), env)
    subprocess.run(["git", "clone", "-q", url, repo.path], env=env, check=True, capture_output=True)
    repo.run("checkout", "-q", "feat")
    repo.agentguard("install", "--no-adapters")
    return repo, bare


@pytest.fixture(scope="module")
def ssh_server(tmp_path_factory):
    base = tmp_path_factory.mktemp("pushconn")
    (base / "srv").mkdir()
    with gitservers.sshd(base / "srv", base) as server:
        yield base, server


def _counting_ssh(tmp_path, server, name="ssh"):
    """GIT_SSH_COMMAND: a program called ``name`` that logs each start, then runs the tests' ssh."""
    bindir = tmp_path / ("bin-" + name)
    bindir.mkdir()
    log = tmp_path / ("connections-" + name)
    prog = bindir / name
    prog.write_text("#!/bin/sh\necho \"$*\" >> %s\nexec %s \"$@\"\n" % (shlex.quote(str(log)),
                                                                      server.env["GIT_SSH_COMMAND"]))
    prog.chmod(prog.stat().st_mode | stat.S_IXUSR)
    return str(prog), log


def _connections(log):
    return log.read_text().splitlines() if log.exists() else []


@pytest.mark.parametrize("spelling", ["url", "scp"])
def test_one_ssh_connection_per_guarded_push(ssh_server, tmp_path, spelling):
    """A new commit, an up-to-date push and a refused push to main each open ONE ssh connection (the
    guard judged the commands in the push's own; before #30 it listed the remote first, two), and
    the refused one leaves the remote's main where it was."""
    base, server = ssh_server
    (tmp_path / "home").mkdir()
    env = dict(_base_env(tmp_path / "home"), **server.env)
    root = str(base / "srv")
    name = os.path.basename(str(tmp_path))
    os.makedirs(os.path.join(root, name))
    url = server.scp_url(name + "/remote.git") if spelling == "scp" else server.url(name + "/remote.git")
    repo, bare = _clone(tmp_path, env, url, os.path.join(root, name, "remote.git"))
    ssh, log = _counting_ssh(tmp_path, server)
    env = dict(env, GIT_SSH_COMMAND=ssh)
    repo.commit("feature work")
    pushes = [(["push", "origin", "feat"], 0), (["push", "origin", "feat"], 0),
              (["push", "--no-verify", "origin", "feat:main"], None), (["push", "origin", ":main"], None)]
    main = bare.rev("refs/heads/main")
    for args, rc in pushes:
        before = len(_connections(log))
        proc = repo.run(*args, check=False, env=env)
        if rc == 0:
            assert proc.returncode == 0, proc.stderr
        else:
            assert proc.returncode != 0 and "[rule: push-protected]" in proc.stderr, proc.stderr
        assert len(_connections(log)) - before == 1, (args, _connections(log)[before:])
        assert "git-receive-pack" in _connections(log)[-1]
    assert bare.rev("refs/heads/feat") == repo.rev("feat") and bare.rev("refs/heads/main") == main


def test_another_ssh_program_falls_back_and_is_still_judged(ssh_server, tmp_path):
    """An ssh command git would treat as another variant (here: not called `ssh`) is not opened by
    the guard: it answers `fallback`, git lists and pushes through the helper as before #30 (two
    connections), and a push to main is refused all the same."""
    base, server = ssh_server
    (tmp_path / "home").mkdir()
    env = dict(_base_env(tmp_path / "home"), **server.env)
    name = os.path.basename(str(tmp_path))
    os.makedirs(os.path.join(str(base / "srv"), name))
    repo, bare = _clone(tmp_path, env, server.url(name + "/remote.git"),
                        os.path.join(str(base / "srv"), name, "remote.git"))
    ssh, log = _counting_ssh(tmp_path, server, "othersh")
    env = dict(env, GIT_SSH_COMMAND=ssh, GIT_SSH_VARIANT="ssh")
    main = bare.rev("refs/heads/main")
    proc = repo.run("push", "--no-verify", "origin", "feat:main", check=False, env=env)
    assert proc.returncode != 0 and "[rule: push-protected]" in proc.stderr, proc.stderr
    assert bare.rev("refs/heads/main") == main
    assert any("git-upload-pack" in c for c in _connections(log)), _connections(log)
    repo.commit("more")
    assert repo.run("push", "origin", "feat", env=env).returncode == 0
    assert bare.rev("refs/heads/feat") == repo.rev("feat")


# -- a local path: the launcher's shell fast path ------------------------------------------------
def _count_python(repo):
    """Make the runtime log each start (argv[1]) to a file, then run as before; returns the log."""
    runtime = os.path.join(repo.path, ".git", "agentguard", "runtime")
    log = os.path.join(repo.path, "..", "python-starts")
    os.rename(os.path.join(runtime, "run.py"), os.path.join(runtime, "run_real.py"))
    with open(os.path.join(runtime, "run.py"), "w") as fh:
        fh.write("import sys\nwith open(%r, 'a') as f:\n    f.write(sys.argv[1] + '\\n')\n"
                 "real = __file__[:-len('run.py')] + 'run_real.py'\n"
                 "exec(compile(open(real).read(), real, 'exec'))\n" % log)
    return log


def _starts(log):
    return open(log).read().split() if os.path.exists(log) else []


@pytest.fixture
def local(tmp_path, env):
    (tmp_path / "srv").mkdir()
    path = str(tmp_path / "srv" / "remote.git")
    repo, bare = _clone(tmp_path, env, path, path)
    return repo, bare, _count_python(repo)


def test_an_up_to_date_or_feature_push_to_a_local_path_starts_no_python(local):
    """The shortcut: git's flush (nothing to push) and a command for an ordinary branch go from the
    launcher's shell straight to receive-pack; the runtime is not started at all."""
    repo, bare, log = local
    repo.commit("feature work")
    assert repo.run("push", "origin", "feat").returncode == 0
    assert "Everything up-to-date" in repo.run("push", "origin", "feat").stderr
    repo.run("push", "origin", "feat:other")  # a new branch too
    assert bare.rev("refs/heads/feat") == bare.rev("refs/heads/other") == repo.rev("feat")
    assert _starts(log) == []


@pytest.mark.parametrize("dst", ["main", "MAIN", "refs/remotes/origin/feat", "trunk"])
def test_what_may_touch_a_protected_ref_goes_to_the_runtime(local, dst):
    """The other side of the shortcut: a protected name (also in another letter case: the runtime
    asks the remote's file system), a remote-tracking ref (what a mirror writes) and a branch that
    is a symbolic ref to main there (asked of the remote) are judged by the runtime, which refuses
    what lands on main."""
    repo, bare, log = local
    bare.run("symbolic-ref", "refs/heads/trunk", "refs/heads/main")
    main = bare.rev("refs/heads/main")
    repo.commit("feature work")
    spec = "feat:" + (dst if dst.startswith("refs/") else "refs/heads/" + dst)
    proc = repo.run("push", "--no-verify", "origin", spec, check=False)
    assert "push-relay" in _starts(log), proc.stderr
    if dst in ("main", "trunk", "refs/remotes/origin/feat"):
        assert proc.returncode != 0 and "agentguard: refused" in proc.stderr, proc.stderr
    assert bare.rev("refs/heads/main") == main


def test_a_long_push_is_handed_over_with_what_the_shell_read(local):
    """More than 16 commands: the shell hands the 16 it read (a NUL as a tab) to the runtime, which
    reads the rest: 17 branches land; 16 branches and main are refused whole."""
    repo, bare, log = local
    names = ["b%02d" % i for i in range(17)]
    for name in names:
        repo.run("branch", name)
    assert repo.run("push", "origin", *names).returncode == 0
    assert all(bare.rev("refs/heads/" + n) == repo.rev("feat") for n in names)
    assert _starts(log) == ["push-relay"]
    repo.commit("more")
    main = bare.rev("refs/heads/main")
    proc = repo.run("push", "--no-verify", "origin", *(["+HEAD:refs/heads/%s" % n for n in names[:16]] +
                                                     ["HEAD:refs/heads/main"]), check=False)
    assert proc.returncode != 0 and "[rule: push-protected]" in proc.stderr, proc.stderr
    assert bare.rev("refs/heads/main") == main and bare.rev("refs/heads/b00") != repo.rev("HEAD")


def test_a_linked_worktree_finds_the_guard_through_git(local, tmp_path):
    """The alias reads GIT_DIR only where it is the common dir; from a linked worktree (a commondir
    file there) it asks git, and the push is judged all the same."""
    repo, bare, _ = local
    repo.run("worktree", "add", "-q", "-b", "wt", str(tmp_path / "wt"))
    wt = Git(str(tmp_path / "wt"), repo.env)
    wt.commit("in the worktree")
    main = bare.rev("refs/heads/main")
    proc = wt.run("push", "--no-verify", "origin", "wt:main", check=False)
    assert proc.returncode != 0 and "[rule: push-protected]" in proc.stderr, proc.stderr
    assert bare.rev("refs/heads/main") == main
    assert wt.run("push", "origin", "wt").returncode == 0 and bare.rev("refs/heads/wt") == wt.rev("HEAD")


def test_the_remote_side_runs_without_this_repositorys_environment(env):
    """The launcher and the runtime unset, for receive-pack, every variable git's own
    `rev-parse --local-env-vars` names (git does the same for a local or ssh connection)."""
    from agentguard.installer.setup import pushguard
    names = subprocess.run(["git", "rev-parse", "--local-env-vars"], env=env, capture_output=True, text=True,
                           check=True).stdout.split()
    assert names and set(names) <= set(LOCAL_ENV)
    assert "unset " + " ".join(LOCAL_ENV) in pushguard.launcher("/usr/bin/python3", "/usr/bin/git").decode()


def test_ssh_urls_are_read_as_git_reads_them():
    assert parse_ssh("ssh://me@host:2222/srv/r.git") == ("me@host", "2222", "/srv/r.git")
    assert parse_ssh("ssh://host/~me/r.git") == ("host", None, "~me/r.git")
    assert parse_ssh("git+ssh://host/r") == ("host", None, "/r")
    assert parse_ssh("me@host:r.git") == ("me@host", None, "r.git")
    for left_to_git in ("ssh://host/a%20b", "ssh://[::1]/r", "ssh://host:x/r", "/local/path", "./x:y", "ssh://host"):
        assert parse_ssh(left_to_git) is None, left_to_git
    assert sq("it's!") == "'it'\\''s'\\!''"


def test_what_git_would_connect_otherwise_is_left_to_git(env, tmp_path, monkeypatch):
    """``fallback`` (the helper's list and push, as before #30) wherever git applies a rule the
    relay does not: a protocol allow rule, protocol version 1, another ssh variant, git://."""
    from agentguard.hooks.pushguard import connect
    monkeypatch.chdir(tmp_path)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("GIT_SSH_COMMAND", "ssh -F /dev/null")
    assert connect.target("ssh://h/r")[0][-2:] == ["h", "git-receive-pack '/r'"]
    assert connect.target("/srv/r.git")[0][1:] == ["receive-pack", "/srv/r.git"]
    for key, value in (("protocol.file.allow", "never"), ("protocol.version", "1")):
        monkeypatch.setenv("GIT_CONFIG_PARAMETERS", "'%s'='%s'" % (key, value))
        assert connect.target("ssh://h/r") is None and connect.target("/srv/r.git") is None, key
    monkeypatch.delenv("GIT_CONFIG_PARAMETERS")
    monkeypatch.setenv("GIT_SSH_COMMAND", "plink -batch")
    assert connect.target("ssh://h/r") is None and connect.target("git://h/r") is None


def test_a_protected_pattern_is_matched_by_the_shell_as_by_the_runtime(tmp_path, env):
    """The fast path's names come from the policy (`release/*`): a branch under it goes to the runtime
    and is refused; `releasex`, which the pattern does not match, is forwarded by the shell."""
    (tmp_path / "srv").mkdir()
    path = str(tmp_path / "srv" / "remote.git")
    repo, bare = _clone(tmp_path, env, path, path)
    repo.agentguard("install", "--no-adapters", "--protect", "main", "--protect", "release/*")
    log = _count_python(repo)
    repo.commit("feature work")
    proc = repo.run("push", "--no-verify", "origin", "feat:release/1.0", check=False)
    assert proc.returncode != 0 and "[rule: push-protected]" in proc.stderr, proc.stderr
    assert bare.run("rev-parse", "-q", "--verify", "refs/heads/release/1.0", check=False).returncode != 0
    assert _starts(log) == ["push-relay"]
    assert repo.run("push", "origin", "feat:releasex").returncode == 0 and bare.rev("refs/heads/releasex")
    assert _starts(log) == ["push-relay"]


@pytest.mark.parametrize("rule", ["protocol.file.allow=never", "protocol.allow=never", "-c protocol.file.allow=never",
                                  "GIT_ALLOW_PROTOCOL=ssh", "GIT_PROTOCOL_FROM_USER=0"])
def test_a_protocol_rule_of_the_users_stops_a_local_push_as_it_stops_git(local, tmp_path, rule):
    """git applies protocol.file.allow (and protocol.allow, GIT_ALLOW_PROTOCOL, GIT_PROTOCOL_FROM_USER)
    to a push to a local path: the same push of a new commit through the guard ends as git's own (the
    unguarded seed clone) ends: refused, nothing moved. An up-to-date push sends nothing, and asks no
    rule (one git start fewer on every such push): it ends as up to date. With a rule that allows it,
    both push."""
    repo, bare, log = local
    seed = Git(str(tmp_path / "seed"), repo.env)

    def push(who, spec):
        args, env = ["push", "-q"], dict(who.env)
        if rule.startswith("-c "):
            args = ["-c", rule[3:]] + args
        elif rule.startswith("GIT_"):
            env.update([rule.split("=")])
        proc = subprocess.run(["git"] + args + [bare.path if who is seed else "origin", spec], cwd=who.path,
                              env=env, capture_output=True, text=True, timeout=120)
        return proc.returncode

    if rule.startswith("protocol."):
        for who in (seed, repo):
            who.run("config", *rule.split("="))
    repo.commit("feature work")
    before = bare.rev("refs/heads/feat")
    assert bare.rev("refs/heads/feat") == seed.rev("HEAD") and push(seed, "HEAD:refs/heads/feat") != 0
    seed.commit("control")
    assert push(seed, "HEAD:refs/heads/ctl") != 0  # git's own: up to date or not, refused
    assert bare.run("rev-parse", "-q", "--verify", "refs/heads/ctl", check=False).returncode != 0
    assert push(repo, "feat") != 0 and bare.rev("refs/heads/feat") == before
    repo.run("reset", "-q", "--hard", "HEAD~")
    if rule.startswith(("protocol.file", "-c ")):  # git reaches agw::, and the guard's own path asks git
        # an up-to-date push sends nothing: it ends as up to date, where git alone refuses to connect
        assert push(repo, "feat") == 0 and bare.rev("refs/heads/feat") == before
    else:  # a rule git applies to agw:: itself
        assert push(repo, "feat") != 0
    if rule.startswith("protocol."):
        for who in (seed, repo):
            who.run("config", rule.split("=")[0], "always")
        repo.commit("allowed")
        assert push(seed, "HEAD:refs/heads/ctl") == 0 and push(repo, "feat") == 0
        assert bare.rev("refs/heads/feat") == repo.rev("feat")
