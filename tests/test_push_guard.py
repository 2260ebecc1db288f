"""The push guard in git's transport, over real transports: a local path, file://, ssh:// and the
scp form to a real sshd, smart HTTP through git http-backend behind lighttpd, and git daemon, all
on 127.0.0.1, started and stopped here.

Each transport gets one scene, built once: a control clone without agentguard and a guarded clone
with it, byte-for-byte copies pushing to two identical bare remotes. Every case resets both, runs
the same command in each, and compares: a refused push leaves the guarded remote (and the clone's
refs) as they were while the same command lands in the control; an allowed one ends with the same
exit status and the same remote refs as in the control.
"""
import contextlib
import os
import re
import shutil
import subprocess

import pytest

import gitservers
from helpers import Git, _base_env

pytestmark = pytest.mark.slow

TRANSPORTS = ["path", "file", "ssh", "scp", "http", "daemon"]

REFUSED = [
    ("no-verify", ["push", "--no-verify", "origin", "HEAD:main"], {}),
    ("hookspath", ["-c", "core.hooksPath=/dev/null", "push", "origin", "feature:main"], {}),
    ("config-env", ["push", "origin", "feature:main"],
     {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.hooksPath", "GIT_CONFIG_VALUE_0": "/dev/null"}),
    ("force", ["push", "--no-verify", "origin", "+feature:main"], {}),
    ("delete", ["push", "--no-verify", "origin", ":main"], {}),
    ("mirror", ["push", "--no-verify", "--mirror", "origin"], {}),
    ("all", ["push", "--no-verify", "--all", "origin"], {}),
    ("raw-url", ["push", "--no-verify", "{url}", "feature:main"], {}),
    ("scp-spelling", ["push", "--no-verify", "{other}", "feature:refs/heads/main"], {}),
]

ALLOWED = [
    ("feature", ["push", "origin", "feature"]),
    ("upstream", ["push", "-u", "origin", "feature"]),
    ("lease", ["push", "--force-with-lease", "origin", "old"]),
    ("stale-lease", ["push", "--force-with-lease=old:{main}", "origin", "old"]),
    ("atomic-tag", ["push", "--atomic", "origin", "feature", "v1"]),
    ("delete-branch", ["push", "origin", ":gone"]),
    ("tags", ["push", "--tags", "origin"]),
    ("dry-run", ["push", "--dry-run", "origin", "feature", ":gone"]),
    ("up-to-date-main", ["push", "origin", "refs/remotes/origin/main:refs/heads/main"]),
    ("no-verify-feature", ["push", "--no-verify", "origin", "feature"]),
    ("non-fast-forward", ["push", "origin", "old"]),
    ("push-option", ["push", "-o", "ci.skip", "origin", "feature"]),
    ("porcelain", ["push", "--porcelain", "origin", "feature"]),
]


@contextlib.contextmanager
def _server(kind, root, scratch):
    if kind == "ssh" or kind == "scp":
        with gitservers.sshd(root, scratch) as server:
            yield (server.scp_url if kind == "scp" else server.url), server.env
    elif kind == "http":
        with gitservers.http_backend(root, scratch) as server:
            yield server.url, server.env
    elif kind == "daemon":
        with gitservers.git_daemon(root, scratch) as server:
            yield server.url, server.env
    else:
        yield (lambda name: ("file://" if kind == "file" else "") + os.path.join(str(root), name)), {}


class Scene:
    def __init__(self, base, url, env):
        self.url = url
        self.env = env
        self.remote = {side: Git(str(base / "srv" / (side + ".git")), env) for side in ("control", "guarded")}
        self.work = {side: Git(str(base / side), env) for side in ("control", "guarded")}
        self.saved = {}

    def save(self):
        for side in ("control", "guarded"):
            self.saved[side] = (self.refs(self.remote[side]), self.refs(self.work[side]),
                                self.work[side].run("config", "--get-regexp", r"^branch\.", check=False).stdout)

    @staticmethod
    def refs(repo):
        out = repo.run("for-each-ref", "--format=%(objectname) %(refname)").stdout
        return dict(line.split(" ")[::-1] for line in out.splitlines())

    def reset(self):
        for side in ("control", "guarded"):
            remote, work, branch_cfg = self.saved[side]
            for repo, want in ((self.remote[side], remote), (self.work[side], work)):
                lines = ["delete %s" % ref for ref in self.refs(repo) if ref not in want]
                lines += ["update %s %s" % (ref, oid) for ref, oid in want.items()]
                # set-up, not a case: the guarded clone's own hooks would refuse moving main back
                repo.run("-c", "core.hooksPath=/dev/null", "update-ref", "--no-deref", "--stdin",
                         input="\n".join(lines) + "\n")
            work = self.work[side]
            work.run("config", "--unset", "branch.feature.remote", check=False)
            work.run("config", "--unset", "branch.feature.merge", check=False)
            assert work.run("config", "--get-regexp", r"^branch\.", check=False).stdout == branch_cfg


@pytest.fixture(scope="module", params=TRANSPORTS)
def scene(request, tmp_path_factory):
    base = tmp_path_factory.mktemp("pushguard-" + request.param)
    srv = base / "srv"
    srv.mkdir()
    home = base / "home"
    home.mkdir()
    env = _base_env(home)
    with _server(request.param, srv, base) as (url, server_env):
        env = dict(env, **server_env)
        work = Git(str(base / "control"), env)
        subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(srv / "control.git")], env=env, check=True)
        bare = Git(str(srv / "control.git"), env)
        bare.run("config", "receive.denyDeleteCurrent", "false")
        bare.run("config", "http.receivepack", "true")
        bare.run("config", "receive.advertisePushOptions", "true")
        subprocess.run(["git", "init", "-q", "-b", "main", work.path], env=env, check=True)
        work.commit("initial")
        work.run("remote", "add", "origin", url("control.git"))
        for branch in ("old", "gone"):
            work.run("branch", branch)
        work.run("checkout", "-q", "old")
        work.commit("old on the remote")
        work.run("push", "-q", "origin", "main", "old", "gone")
        work.run("fetch", "-q", "origin")
        work.run("reset", "-q", "--hard", "main")
        work.commit("old rewritten here")  # `old` diverges: a plain push is not a fast-forward
        work.run("checkout", "-q", "-b", "feature", "main")
        work.commit("feature work")
        work.run("tag", "-a", "-m", "one", "v1")
        work.run("checkout", "-q", "main")
        work.commit("local work on main")  # main is ahead of its remote: a push to it would move it
        shutil.copytree(bare.path, str(srv / "guarded.git"), symlinks=True)
        shutil.copytree(work.path, str(base / "guarded"), symlinks=True)
        scene = Scene(base, url, env)
        guarded = scene.work["guarded"]
        guarded.run("remote", "set-url", "origin", url("guarded.git"))
        guarded.agentguard("install", "--no-adapters")
        scene.save()
        yield scene


def _run(scene, side, args, extra=None):
    fill = {"url": scene.url(side + ".git"), "main": scene.work[side].rev("refs/remotes/origin/main"),
            "other": _other_spelling(scene.url(side + ".git"))}
    argv = [a.format(**fill) for a in args]
    return scene.work[side].run(*argv, check=False, env=dict(scene.env, **(extra or {})))


def _other_spelling(url):
    """An scp-like URL spelled as ssh:// (install covers the host in both spellings), else None."""
    alias = gitservers.SSH_ALIAS + ":"
    return "ssh://%s%s" % (gitservers.SSH_ALIAS, url[len(alias):]) if url.startswith(alias) else None


@pytest.mark.parametrize("case,args,extra", REFUSED, ids=[c[0] for c in REFUSED])
def test_refused_whatever_the_flags(scene, case, args, extra):
    if "{other}" in args and _other_spelling(scene.url("x")) is None:
        pytest.skip("only for URLs with a second spelling")
    scene.reset()
    control = _run(scene, "control", args, extra)
    assert Scene.refs(scene.remote["control"]) != scene.saved["control"][0], \
        "without agentguard the command lands: " + control.stderr
    proc = _run(scene, "guarded", args, extra)
    assert proc.returncode != 0, proc.stderr
    assert "agentguard: refused" in proc.stderr and "[rule: push-" in proc.stderr, proc.stderr
    assert Scene.refs(scene.remote["guarded"]) == scene.saved["guarded"][0], "the remote did not change"
    assert Scene.refs(scene.work["guarded"]) == scene.saved["guarded"][1], "nothing moved or was lost here"


@pytest.mark.parametrize("case,args", ALLOWED, ids=[c[0] for c in ALLOWED])
def test_allowed_exactly_as_without_the_guard(scene, case, args):
    scene.reset()
    control = _run(scene, "control", args)
    proc = _run(scene, "guarded", args)
    assert proc.returncode == control.returncode, (control.stderr, proc.stderr)
    assert Scene.refs(scene.remote["guarded"]) == Scene.refs(scene.remote["control"]), (control.stderr, proc.stderr)
    assert Scene.refs(scene.work["guarded"]) == Scene.refs(scene.work["control"])
    assert "agentguard" not in proc.stderr
    if case in ("feature", "upstream", "lease", "atomic-tag", "delete-branch", "tags", "push-option"):
        assert control.returncode == 0 and Scene.refs(scene.remote["control"]) != scene.saved["control"][0], \
            "the command changes the remote: " + control.stderr
    if case in ("dry-run", "up-to-date-main", "non-fast-forward", "stale-lease"):
        assert Scene.refs(scene.remote["guarded"]) == scene.saved["guarded"][0]
    if case == "upstream":
        assert scene.work["guarded"].run("config", "branch.feature.remote").stdout.strip() == "origin"
    if case == "porcelain":
        assert _lines(proc.stdout, scene.url("guarded.git")) == _lines(control.stdout, scene.url("control.git"))
    assert _lines(proc.stderr, scene.url("guarded.git")) == _lines(control.stderr, scene.url("control.git"))


def _lines(stderr, url):
    """What git told the user, with the remote's URL (and the guard's agw:: in front of it) as U
    (git shows URLs without their user part)."""
    def bare(text):
        return re.sub(r"(://)[^/@]*@", r"\1", text.replace("agw::", ""))
    return [bare(line).replace(bare(url), "U") for line in stderr.splitlines() if not line.startswith("remote:")]


# -- a branch on the remote that is a symbolic ref (issue #26, item 12) ------------------------------
SYMREF_REFUSED = [
    ("update", ["push", "--no-verify", "origin", "feature:trunk"]),
    ("force", ["push", "--no-verify", "origin", "+old:trunk"]),
    ("delete", ["push", "--no-verify", "origin", ":trunk"]),
    ("chain", ["push", "--no-verify", "origin", "feature:refs/heads/alias-of-trunk"]),
]


@contextlib.contextmanager
def _symrefs(scene, links):
    """Symbolic refs made in both remotes by their administrator (``{ref: target}``), removed after."""
    for side in ("control", "guarded"):
        for ref, target in links.items():
            scene.remote[side].run("symbolic-ref", ref, target)
    try:
        yield
    finally:
        for side in ("control", "guarded"):
            for ref in links:
                scene.remote[side].run("update-ref", "--no-deref", "-d", ref, check=False)


@pytest.mark.parametrize("case,args", SYMREF_REFUSED, ids=[c[0] for c in SYMREF_REFUSED])
def test_a_symbolic_ref_to_main_on_the_remote_is_main(scene, case, args):
    """`git --git-dir=R symbolic-ref refs/heads/trunk refs/heads/main`: a push to trunk moves (or
    deletes) main. The push guard learns the symbolic refs from the remote's protocol v2 listing."""
    scene.reset()
    links = {"refs/heads/trunk": "refs/heads/main", "refs/heads/alias-of-trunk": "refs/heads/trunk"}
    with _symrefs(scene, links):
        before = {side: scene.remote[side].rev("refs/heads/main") for side in ("control", "guarded")}
        control = _run(scene, "control", args)
        assert scene.remote["control"].rev("refs/heads/main") != before["control"], \
            "without agentguard the push moves main: " + control.stderr
        proc = _run(scene, "guarded", args)
        assert proc.returncode != 0 and "[rule: push-protected]" in proc.stderr, proc.stderr
        assert "is a symbolic ref to refs/heads/main there" in proc.stderr, proc.stderr
        assert scene.remote["guarded"].rev("refs/heads/main") == before["guarded"], "main did not move"
        assert Scene.refs(scene.work["guarded"]) == scene.saved["guarded"][1], "nothing moved or was lost here"


def test_a_branch_at_mains_commit_or_a_symbolic_ref_to_another_branch_takes_pushes(scene):
    """The neighbours: a real branch that stands where main does, and a symbolic ref to a feature
    branch, are pushed to as without the guard."""
    scene.reset()
    for side in ("control", "guarded"):
        scene.remote[side].run("update-ref", "refs/heads/same", "refs/heads/main")
    with _symrefs(scene, {"refs/heads/to-old": "refs/heads/gone"}):
        for args in (["push", "--no-verify", "origin", "feature:same"], ["push", "origin", "feature:to-old"]):
            control = _run(scene, "control", args)
            proc = _run(scene, "guarded", args)
            assert proc.returncode == control.returncode == 0, (control.stderr, proc.stderr)
            assert Scene.refs(scene.remote["guarded"]) == Scene.refs(scene.remote["control"])
            assert "agentguard" not in proc.stderr
        assert scene.remote["guarded"].rev("refs/heads/same") == scene.work["guarded"].rev("feature")
        assert scene.remote["guarded"].rev("refs/heads/gone") == scene.work["guarded"].rev("feature")
        assert scene.remote["guarded"].rev("refs/heads/main") == scene.saved["guarded"][0]["refs/heads/main"]
