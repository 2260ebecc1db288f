"""Pushes with and without agentguard (its hooks and the push guard in git's transport): one new commit
and an up-to-date push to a local bare remote, CPU time, alternating; over ssh (a real sshd on
127.0.0.1, the test suite's) the connections each push opens, counted by a GIT_SSH_COMMAND wrapper that
logs every call, and (full run) the push's cost over ssh and smart HTTP."""
import os
import shlex
import shutil
import sys

from measure import alternate
from workloads import Repo

HERE = os.path.dirname(os.path.abspath(__file__))


def _committer(repo):
    counter = [0]

    def commit():
        counter[0] += 1
        repo.write("f", "push %d\n" % counter[0])
        repo.git("commit", "-q", "-a", "-m", "p%d" % counter[0])
    return commit


def _checked(repo):
    """A push that must succeed: its failure is a problem, not a (cheap) figure."""
    def fn():
        try:
            repo.git("push", "-q", "origin", "feature")
        except RuntimeError as exc:
            return str(exc)
        return None
    return fn


def local(repos, runs):
    """{case: {setup: summary}} for a push of one new commit and an up-to-date push, local path."""
    cases = {}
    for setup in ("none", "agentguard"):
        repo = repos[setup]
        push = _checked(repo)
        commit = _committer(repo)
        push()
        cases[("new", setup)] = (push, None, commit)
        cases[("up-to-date", setup)] = push
    res = alternate(cases, runs, warmup=2)
    return {"push of one new commit (local path)": {s: res[("new", s)] for s in ("none", "agentguard")},
            "up-to-date push (local path)": {s: res[("up-to-date", s)] for s in ("none", "agentguard")}}


def _wrap_ssh(scratch, ssh_command):
    """A GIT_SSH_COMMAND that logs each call to a file, then runs ``ssh_command``. Named `ssh`, so git
    takes it for OpenSSH (another name costs an extra `-G` call to find out which ssh it is)."""
    log = os.path.join(scratch, "ssh-calls.log")
    os.makedirs(os.path.join(scratch, "counting"))
    script = os.path.join(scratch, "counting", "ssh")
    with open(script, "w") as fh:
        fh.write("#!/bin/sh\nprintf '%%s\\n' \"$*\" >> %s\nexec %s \"$@\"\n" % (shlex.quote(log), ssh_command))
    os.chmod(script, 0o755)
    return shlex.quote(script), log


def _served(root, server, setup, env):
    repo = Repo(root, setup, env, install_args=("--no-adapters",) if setup == "agentguard" else ())
    served = os.path.join(root, "srv", setup + ".git")
    shutil.copytree(repo.bare, served)
    repo.git("config", "http.receivepack", "true", cwd=served)
    repo.git("remote", "set-url", "origin", server.url(setup + ".git"))
    repo.git("fetch", "-q", "origin")
    if setup == "agentguard":  # again: the push guard routes the remotes install saw
        repo.install(("--no-adapters",))
    return repo


def transports(tmp, env, runs, quick):
    """Over ssh: connections per push (none and agentguard), and (full run) CPU per push over ssh and
    http. {"ssh_connections": {setup: [count per push]}, "pushes": {name: {setup: summary}}}; servers
    that are not installed are reported as skipped."""
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))
    import gitservers
    out = {"ssh_connections": {}, "pushes": {}, "skipped": {}}
    kinds = (("ssh", gitservers.sshd),) if quick else (("ssh", gitservers.sshd), ("http", gitservers.http_backend))
    for kind, start in kinds:
        root = os.path.join(tmp, kind)
        os.makedirs(os.path.join(root, "srv"))
        try:
            with start(root=os.path.join(root, "srv"), scratch=root) as server:
                run_env = dict(env, **server.env)
                log = None
                if kind == "ssh":
                    run_env["GIT_SSH_COMMAND"], log = _wrap_ssh(root, server.env["GIT_SSH_COMMAND"])
                repos = {setup: _served(root, server, setup, run_env) for setup in ("none", "agentguard")}
                if log:
                    out["ssh_connections"] = _count(repos, log, 3)
                if not quick:
                    print("measuring: push over %s" % kind, file=sys.stderr)
                    res = alternate({s: (_checked(r), None, _committer(r)) for s, r in repos.items()}, runs)
                    out["pushes"]["push of one new commit (%s)" % kind] = res
        except BaseException as exc:  # pytest.skip (server not installed) is a BaseException
            if isinstance(exc, KeyboardInterrupt):
                raise
            out["skipped"][kind] = str(exc)[:300]
            print("push over %s skipped: %s" % (kind, exc), file=sys.stderr)
    return out


def _count(repos, log, pushes):
    counts = {}
    for setup, repo in repos.items():
        commit, push = _committer(repo), _checked(repo)
        counts[setup] = []
        for _ in range(pushes):
            commit()
            before = _lines(log)
            problem = push()
            if problem:
                raise RuntimeError("push over ssh (%s): %s" % (setup, problem))
            counts[setup].append(_lines(log) - before)
    return counts


def _lines(path):
    if not os.path.exists(path):
        return 0
    with open(path) as fh:
        return sum(1 for _ in fh)

