"""Names on the remote side (issue #26): the push guard's helper judges every line git hands it
(item 11), a symbolic ref on the remote is judged as the branch it points to by the push guard and by
the server's pre-receive (item 12), and a URL names a configured remote only where git would reach
that same repository through it."""
import os
import subprocess

import pytest

import gitservers
from helpers import Git, agentguard


def _refs(bare):
    out = bare.run("for-each-ref", "--format=%(refname) %(objectname) %(symref)").stdout
    return out.splitlines()


def _helper(repo, data, url):
    """The guarded clone's push guard (git-remote-agw) run directly, as git would, with ``data``."""
    helper = os.path.join(repo.path, ".git", "agentguard", "push-guard")
    return subprocess.run([helper, "origin", url], cwd=repo.path, env=repo.env, input=data.encode(),
                          capture_output=True, timeout=60)


# -- item 11: every line of the helper protocol is judged ----------------------------------------
UNREAD = [
    ("prefix-swapped", "push refs/heads/feat:refs/heads/feat\nXXXXXrefs/heads/feat:refs/heads/main\n\n"),
    ("second-line-bare", "push refs/heads/feat:refs/heads/feat\nrefs/heads/feat:refs/heads/main\n\n"),
    ("glob", "push refs/heads/*:refs/heads/*\n\n"),
    ("short-dst", "push refs/heads/feat:main\n\n"),
    ("double-force", "push ++refs/heads/feat:refs/heads/main\n\n"),
    ("no-colon", "push refs/heads/main\n\n"),
    ("cr", "push refs/heads/feat:refs/heads/main\r\n\n"),
    ("dotdot", "push refs/heads/feat:refs/heads/x/../main\n\n"),
    ("end-inside-batch", "push refs/heads/feat:refs/heads/feat2\npush refs/heads/feat:refs/heads/feat3\n"),
    ("fetch", "fetch 0000000000000000000000000000000000000000 refs/heads/main\n\n"),
    ("connect", "connect git-receive-pack\n"),
    ("export", "export\n"),
]


@pytest.mark.parametrize("case,data", UNREAD, ids=[c[0] for c in UNREAD])
def test_the_helper_forwards_nothing_it_cannot_read(guarded, case, data):
    repo, bare = guarded
    repo.run("push", "-q", "origin", "feat")
    before = _refs(bare)
    proc = _helper(repo, data, bare.path)
    assert proc.returncode != 0, (proc.stdout, proc.stderr)
    assert _refs(bare) == before, "nothing was forwarded"
    assert b"ok " not in proc.stdout
    if case in ("prefix-swapped", "glob", "short-dst"):
        assert b"[rule: unreadable-input]" in proc.stderr, proc.stderr


def test_the_helper_answers_git_and_pushes_what_it_judged(guarded):
    """The neighbour: the commands git sends, in git's order, push a feature branch; an option the
    guard does not know is answered `unsupported` and goes nowhere."""
    repo, bare = guarded
    data = ("capabilities\noption progress false\noption verbosity 1\noption no-such-thing x\nlist for-push\n"
            "push refs/heads/feat:refs/heads/feat2\n\n\n")
    proc = _helper(repo, data, bare.path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.decode().split("\n")
    assert lines[:3] == ["push", "option", ""] and lines[3:6] == ["ok", "ok", "unsupported"], lines
    assert "ok refs/heads/feat2" in lines
    assert bare.rev("refs/heads/feat2") == repo.rev("feat")
    proc = _helper(repo, "push refs/heads/feat:refs/heads/main\n\n", bare.path)
    assert b"error refs/heads/main agentguard: push-protected" in proc.stdout, proc.stdout
    assert bare.rev("refs/heads/main") == repo.rev("main") != repo.rev("feat")
