"""Names on the remote side (issue #26): the push guard's helper judges every line git hands it
(item 11), a symbolic ref on the remote is judged as the branch it points to by the push guard and by
the server's pre-receive (item 12), and a URL names a configured remote only where git would reach
that same repository through it."""
import os
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gitservers
from helpers import Git, agentguard, fresh_home


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
    # a local path: `connect` (git then pushes over the guard's stdin and stdout) and `push` for a caller
    # that does not connect; the options go to the runtime's helper
    assert lines[:3] == ["connect", "push", ""] and lines[3:6] == ["ok", "ok", "unsupported"], lines
    assert "ok refs/heads/feat2" in lines
    assert bare.rev("refs/heads/feat2") == repo.rev("feat")
    proc = _helper(repo, "push refs/heads/feat:refs/heads/main\n\n", bare.path)
    assert b"error refs/heads/main agentguard: push-protected" in proc.stdout, proc.stdout
    assert bare.rev("refs/heads/main") == repo.rev("main") != repo.rev("feat")


# -- item 12 on the client: what the remote's listing can tell -------------------------------------
def _remote_with_trunk(tmp_path, env):
    """root/remote.git with main and trunk -> main, and a guarded clone of ``url`` with `feat`."""
    root = tmp_path / "srv"
    root.mkdir()
    bare = Git(str(root / "remote.git"), env)
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", bare.path], env=env, check=True)
    seed = Git(str(tmp_path / "seed"), env)
    subprocess.run(["git", "clone", "-q", bare.path, seed.path], env=env, check=True, capture_output=True)
    seed.commit("one")
    seed.run("push", "-q", "origin", "main")
    bare.run("symbolic-ref", "refs/heads/trunk", "refs/heads/main")
    return root, bare


def _guarded_clone(tmp_path, env, url):
    repo = Git(str(tmp_path / "work"), env)
    subprocess.run(["git", "clone", "-q", url, repo.path], env=env, check=True, capture_output=True)
    repo.run("checkout", "-q", "-b", "feat")
    repo.commit("feature work")
    repo.agentguard("install", "--no-adapters")
    return repo


def test_the_callers_protocol_version_does_not_hide_a_symbolic_ref(tmp_path, env):
    """`-c protocol.version=0` reaches the guard's own listing through GIT_CONFIG_PARAMETERS; the
    guard asks for v2 anyway."""
    _, bare = _remote_with_trunk(tmp_path, env)
    repo = _guarded_clone(tmp_path, env, bare.path)
    main = bare.rev("refs/heads/main")
    for extra in (["-c", "protocol.version=0"], ["-c", "protocol.version=1"]):
        proc = repo.run(*extra, "push", "--no-verify", "origin", "feat:trunk", check=False)
        assert proc.returncode != 0 and "[rule: push-protected]" in proc.stderr, proc.stderr
        assert bare.rev("refs/heads/main") == main
    assert repo.run("push", "origin", "feat").returncode == 0
    assert bare.rev("refs/heads/feat") == repo.rev("feat")


def test_the_helper_lists_the_remote_itself_when_a_caller_did_not(tmp_path, env):
    """git lists the remote before it pushes; a batch fed without `list for-push` is judged on the
    same listing, so a push to `trunk -> main` is still a push to main."""
    _, bare = _remote_with_trunk(tmp_path, env)
    repo = _guarded_clone(tmp_path, env, bare.path)
    main = bare.rev("refs/heads/main")
    proc = _helper(repo, "push refs/heads/feat:refs/heads/trunk\n\n", bare.path)
    assert b"error refs/heads/trunk agentguard: push-protected" in proc.stdout, (proc.stdout, proc.stderr)
    assert bare.rev("refs/heads/main") == main
    proc = _helper(repo, "push refs/heads/feat:refs/heads/feat\n\n", bare.path)
    assert proc.stdout == b"ok refs/heads/feat\n\n" and bare.rev("refs/heads/feat") == repo.rev("feat")


V0_UPLOAD_PACK = "#!/bin/sh\n# a server that speaks only protocol v0 (sshd without AcceptEnv GIT_PROTOCOL)\n" \
                 "unset GIT_PROTOCOL\nexec git upload-pack \"$@\"\n"


def test_hole_a_v0_only_server_hides_a_symbolic_ref_from_the_push_guard(tmp_path, env):
    """The hole SECURITY.md names: a server whose upload-pack speaks only protocol v0 (an sshd that
    does not accept GIT_PROTOCOL) names no symbolic ref but HEAD's, and trunk -> main then looks like
    any branch standing where main does, which ordinary work pushes to; the push guard lets it
    through and main moves. A server-side guard (install --server) still refuses it."""
    root, bare = _remote_with_trunk(tmp_path, env)
    wrappers = tmp_path / "v0bin"
    wrappers.mkdir()
    (wrappers / "git-upload-pack").write_text(V0_UPLOAD_PACK)
    (wrappers / "git-upload-pack").chmod(0o755)
    server_path = str(wrappers) + os.pathsep + os.environ.get("PATH", os.defpath)
    with gitservers.sshd(root, tmp_path / "sshd", path=server_path) as server:
        client_env = dict(env, **server.env)
        url = server.url("remote.git")
        listing = subprocess.run(["git", "-c", "protocol.version=2", "ls-remote", "--symref", url], env=client_env,
                                 capture_output=True, text=True, check=True).stdout
        assert "ref: refs/heads/main\tHEAD" in listing and "\trefs/heads/trunk" in listing
        assert "ref: refs/heads/main\trefs/heads/trunk" not in listing, "the server speaks v0 only"
        repo = _guarded_clone(tmp_path, client_env, url)
        proc = repo.run("push", "--no-verify", "origin", "feat:trunk", check=False)
        assert proc.returncode == 0, proc.stderr
        assert bare.rev("refs/heads/main") == repo.rev("feat"), "the hole: main moved"
        # the server's guard closes it
        bare.run("update-ref", "refs/heads/main", repo.rev("feat~1"))
        agentguard("install", "--server", bare.path, cwd=str(tmp_path), env=env)
        proc = repo.run("push", "--no-verify", "origin", "+feat:trunk", check=False)
        assert proc.returncode != 0 and "[rule: server-push-protected]" in proc.stderr, proc.stderr
        assert bare.rev("refs/heads/main") == repo.rev("feat~1")


# -- which configured remote a URL names: as git reaches it ----------------------------------------
def _bare(path, env):
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(path)], env=env, check=True)
    return str(path)


def test_a_local_path_names_the_repository_git_enters(tmp_path, env, monkeypatch):
    """git's receiving side tries X/.git, X, X.git/.git, X.git: `R` reaches `R.git` while no `R`
    exists, and another repository once one does."""
    from agentguard.hooks.gitmodel.remotes import resolve
    monkeypatch.setenv("PATH", env["PATH"])
    r_git = _bare(tmp_path / "R.git", env)
    work = tmp_path / "work"
    subprocess.run(["git", "init", "-q", str(work)], env=env, check=True)
    remotes = {"origin": r_git}
    assert resolve(str(tmp_path / "R"), remotes, str(tmp_path)) == ["origin"]
    assert resolve("../R", remotes, str(work)) == ["origin"]
    assert resolve("../R.git/", remotes, str(work)) == ["origin"]
    assert resolve("file://" + str(tmp_path / "R"), remotes, str(work)) == ["origin"]
    os.symlink(r_git, str(tmp_path / "link.git"))
    assert resolve(str(tmp_path / "link.git"), remotes, str(work)) == ["origin"]
    (tmp_path / "R").mkdir()  # a directory that is no repository: git goes on to R.git
    assert resolve(str(tmp_path / "R"), remotes, str(work)) == ["origin"]
    (tmp_path / "R").rmdir()
    _bare(tmp_path / "R", env)  # now `R` is a repository of its own
    assert resolve(str(tmp_path / "R"), remotes, str(work)) == []
    assert resolve(str(tmp_path / "R"), {"origin": str(tmp_path / "R")}, str(work)) == ["origin"]
    assert resolve(str(tmp_path / "nothing"), {"x": str(tmp_path / "nothing")}, str(work)) == ["x"]  # same text
    assert resolve(str(tmp_path / "nothing"), {"x": str(tmp_path / "nothing2")}, str(work)) == []


def test_a_url_names_a_remote_only_as_written():
    """Over ssh, http or git://, `repo` and `repo.git` may be two repositories on the server (git's
    enter_repo tries `repo` first), so only trailing slashes, which every server drops, are ignored."""
    from agentguard.hooks.gitmodel.remotes import resolve
    for origin, word, same in (("host:repo.git", "host:repo", False), ("host:repo", "host:repo.git", False),
                               ("host:repo.git", "host:repo.git/", True), ("ssh://h/r.git", "ssh://h/r", False),
                               ("https://h/r/", "https://h/r", True), ("host:repo.git", "/local/repo.git", False)):
        assert resolve(word, {"origin": origin}, "/") == (["origin"] if same else []), (origin, word)


def test_fetching_host_repo_into_main_is_not_fetching_host_repo_git(tmp_path, env):
    """origin is `agtest:<root>/R.git`; `agtest:<root>/R` is another repository on that host, whose
    main `git fetch agtest:<root>/R main:main` would write into the local main."""
    root = tmp_path / "srv"
    root.mkdir()
    origin = Git(_bare(root / "R.git", env), env)
    evil = Git(_bare(root / "R", env), env)
    seed = Git(str(tmp_path / "seed"), env)
    subprocess.run(["git", "clone", "-q", origin.path, seed.path], env=env, check=True, capture_output=True)
    seed.commit("one")
    seed.run("push", "-q", "origin", "main")
    seed.run("checkout", "-q", "-b", "evil")
    seed.commit("not on origin")
    seed.run("push", "-q", evil.path, "HEAD:refs/heads/main")
    seed.run("checkout", "-q", "main")
    with gitservers.sshd(root, tmp_path / "sshd") as server:
        client_env = dict(env, **server.env)
        repo = Git(str(tmp_path / "work"), client_env)
        subprocess.run(["git", "clone", "-q", server.scp_url("R.git"), repo.path], env=client_env, check=True,
                       capture_output=True)
        repo.run("checkout", "-q", "-b", "feat")
        repo.agentguard("install", "--no-adapters")
        seed.commit("two")
        seed.run("push", "-q", "origin", "main")
        main = repo.rev("main")
        proc = repo.run("fetch", server.scp_url("R"), "main:main", check=False)
        assert proc.returncode != 0 and "agentguard: refused" in proc.stderr, proc.stderr
        assert repo.rev("main") == main
        proc = repo.run("fetch", server.scp_url("R.git"), "main:main", check=False)
        assert proc.returncode == 0, proc.stderr  # the neighbour: origin's own URL, origin's main
        assert repo.rev("main") == origin.rev("main") == seed.rev("main") != main


def test_hole_a_dangling_symbolic_ref_creates_the_protected_branch_it_names(tmp_path, env):
    """No listing names a dangling symbolic ref, so `next -> master` (no master yet) looks like a new
    branch and the push creates master. A server-side guard refuses it (test_server.py)."""
    _, bare = _remote_with_trunk(tmp_path, env)
    bare.run("symbolic-ref", "refs/heads/next", "refs/heads/master")
    repo = _guarded_clone(tmp_path, env, bare.path)
    proc = repo.run("push", "--no-verify", "origin", "feat:next", check=False)
    assert proc.returncode == 0, proc.stderr
    assert bare.rev("refs/heads/master") == repo.rev("feat"), "the hole: master was created"


def _unguarded_transport_clone(tmp_path, env):
    _, bare = _remote_with_trunk(tmp_path, env)
    repo = Git(str(tmp_path / "work"), env)
    subprocess.run(["git", "clone", "-q", bare.path, repo.path], env=env, check=True, capture_output=True)
    repo.run("checkout", "-q", "-b", "feat")
    repo.commit("feature work")
    repo.agentguard("install", "--no-adapters", "--no-push-guard")
    return repo, bare


def test_without_the_push_guard_pre_push_follows_a_symbolic_ref_to_main(tmp_path, env):
    """pre-push names only what was pushed: a branch that stands where origin/main says main stands
    is looked up in the remote's v2 listing, and `trunk -> main` is main; a new branch is not."""
    repo, bare = _unguarded_transport_clone(tmp_path, env)
    before, feat = bare.rev("refs/heads/main"), repo.rev("feat")
    proc = repo.run("push", "origin", "feat:trunk", check=False)
    assert proc.returncode != 0 and "[rule: push-protected]" in proc.stderr, proc.stderr
    assert bare.rev("refs/heads/main") == before and repo.rev("feat") == feat
    assert bare.run("symbolic-ref", "refs/heads/trunk").stdout.strip() == "refs/heads/main"
    assert repo.run("push", "-q", "origin", "feat:other").returncode == 0
    assert bare.rev("refs/heads/other") == feat and bare.rev("refs/heads/main") == before


def test_hole_without_the_push_guard_a_missing_tracking_ref_hides_a_symbolic_ref(tmp_path, env):
    """pre-push asks the remote only where this clone's tracking refs say a protected branch stands
    at the pushed branch's commit: without origin/main (or with a stale one), with --no-push-guard, a
    push to `trunk -> main` lands. The push guard lists the remote itself and closes it."""
    repo, bare = _unguarded_transport_clone(tmp_path, env)
    repo.run("update-ref", "-d", "refs/remotes/origin/main")
    assert repo.run("push", "origin", "feat:trunk", check=False).returncode == 0
    assert bare.rev("refs/heads/main") == repo.rev("feat"), "the hole: main moved"


# -- the property: the guards agree with what git updates -------------------------------------------
PROTECTED = ("refs/heads/main", "refs/heads/master")


class World:
    """Three remotes with the same refs (main, old, feat, a tag v1, a tag named main, trunk -> main):
    `control.git` (no guard), `guarded.git` (pushed to through the guarded clone's push guard) and
    `served.git` (a guarded server, pushed to from the control clone); and the two clones."""

    def __init__(self, base, env):
        self.env = env
        self.remotes = {}
        for name in ("control", "guarded", "served"):
            self.remotes[name] = Git(_bare(base / ("%s.git" % name), env), env)
        seed = Git(str(base / "seed"), env)
        subprocess.run(["git", "init", "-q", "-b", "main", seed.path], env=env, check=True)
        seed.commit("zero")
        seed.run("branch", "old")
        seed.commit("one")
        seed.run("tag", "-a", "-m", "v1", "v1")
        seed.run("branch", "feat")
        seed.run("tag", "main", "refs/heads/old")
        for bare in self.remotes.values():
            seed.run("push", "-q", bare.path, "refs/heads/main", "refs/heads/old", "refs/heads/feat", "refs/tags/v1",
                     "refs/tags/main")
            bare.run("symbolic-ref", "refs/heads/trunk", "refs/heads/main")
        self.clones = {}
        for name in ("control", "guarded"):
            clone = Git(str(base / ("work-" + name)), env)
            subprocess.run(["git", "clone", "-q", self.remotes[name].path, clone.path], env=env, check=True,
                           capture_output=True)
            clone.run("checkout", "-q", "-b", "feat", "origin/feat")
            clone.commit("feature work")
            clone.run("checkout", "-q", "main")
            clone.commit("local work on main")
            clone.run("checkout", "-q", "feat")
            self.clones[name] = clone
        self.clones["control"].run("remote", "add", "srv", self.remotes["served"].path)
        self.clones["control"].run("fetch", "-q", "srv")
        self.clones["guarded"].agentguard("install", "--no-adapters")
        agentguard("install", "--server", self.remotes["served"].path, cwd=str(base), env=env)
        self.saved = {name: self.refs(repo) for name, repo in self.repos()}

    def repos(self):
        return [(name + ".git", repo) for name, repo in self.remotes.items()] + list(self.clones.items())

    @staticmethod
    def refs(repo):
        out = repo.run("for-each-ref", "--format=%(refname) %(objectname) %(symref)").stdout
        return {line.split(" ")[0]: tuple(line.split(" ")[1:]) for line in out.splitlines()}

    def reset(self):
        for name, repo in self.repos():
            want = self.saved[name]
            now = self.refs(repo)
            lines = ["delete %s" % ref for ref in now if ref not in want]
            lines += ["update %s %s" % (ref, oid) for ref, (oid, symref) in want.items() if not symref]
            repo.run("-c", "core.hooksPath=/dev/null", "update-ref", "--no-deref", "--stdin",
                     input="\n".join(lines) + "\n")
            for ref, (_, symref) in want.items():
                if symref:
                    repo.run("symbolic-ref", ref, symref)
            assert self.refs(repo) == want


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    return World(*fresh_home(tmp_path_factory, "remote-names"))


def _moved(before, after, refs=None):
    return sorted(r for r in set(before) | set(after)
                  if (refs is None or r in refs) and before.get(r, ("",))[0] != after.get(r, ("",))[0])


SRC = ["feat", "HEAD", "main", "refs/heads/feat", "heads/feat", "feat~0", "feat^{commit}", "v1", "refs/tags/v1",
       "", "old", "refs/heads/*", "origin/main", "refs/tags/main"]
DST = ["main", "refs/heads/main", "heads/main", "trunk", "refs/heads/trunk", "feat", "new", "refs/heads/new",
       "refs/tags/main", "tags/main", "master", "HEAD", "main~0", "refs/heads/*", "Main", "refs/remotes/origin/main",
       "refs/heads/main/x", "refs/heads/trunk/x", "v1", None]
FLAGS = [[], ["--force"], ["--atomic"], ["--delete"], ["--all"], ["--tags"]]


def _spec(force, src, dst):
    return ("+" if force else "") + src + ("" if dst is None else ":" + dst)


# names git may or may not take: check-ref-format's edge characters around "main"
odd_name = st.text("main.-/@{}~^*", min_size=1, max_size=8)
dst = st.one_of(st.sampled_from(DST), odd_name, odd_name.map("refs/heads/".__add__))
push_spec = st.builds(_spec, st.booleans(), st.sampled_from(SRC), dst)

@pytest.mark.slow
@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(st.sampled_from(FLAGS), st.lists(push_spec, min_size=1, max_size=2))
def test_property_a_push_moves_a_protected_branch_only_where_git_would_and_the_guards_refuse(world, flags,
                                                                                                specs):
    """A push of odd names (symbolic refs, a tag and a branch named main, `heads/`, `~0`, globs,
    forces) through the push guard, and to a guarded server: no protected branch moves; a refusal
    moves nothing; and a push that moves no protected branch without a guard lands the same with one."""
    world.reset()
    args = ["push", "--no-verify", "--porcelain"] + flags
    control = world.clones["control"].run(*args, "origin", *specs, check=False)
    control_moved = _moved(world.saved["control.git"], World.refs(world.remotes["control"]))
    guarded = world.clones["guarded"].run(*args, "origin", *specs, check=False)
    guarded_moved = _moved(world.saved["guarded.git"], World.refs(world.remotes["guarded"]))
    served = world.clones["control"].run(*args, "srv", *specs, check=False)
    served_moved = _moved(world.saved["served.git"], World.refs(world.remotes["served"]))
    why = (specs, flags, control.stderr, guarded.stderr, served.stderr)
    for moved in (guarded_moved, served_moved):
        assert not set(moved) & set(PROTECTED), why
    if "agentguard: refused" in guarded.stderr:
        assert guarded_moved == [], why
    if "remote: agentguard: refused" in served.stderr:
        assert served_moved == [], why
    attempted = [line.split("\t")[1].rpartition(":")[2] for line in control.stdout.splitlines()
                 if line.count("\t") == 2 and line[0] != "="]
    # a refusal rejects a push whole; a push into the remote's refs/remotes/ is refused as a mirror's
    if not any(ref in PROTECTED or ref.startswith("refs/remotes/") for ref in control_moved + attempted):
        assert guarded_moved == control_moved and guarded.returncode == control.returncode, why
        assert served_moved == control_moved and served.returncode == control.returncode, why
