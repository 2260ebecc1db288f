"""agentguard install/doctor/uninstall --server: a pre-receive guard in a bare repository, driven by
clients WITHOUT agentguard (pushing with --no-verify) over real servers started here (git daemon,
sshd with per-key environment=, lighttpd + git http-backend with basic auth setting REMOTE_USER).

Every refusal test also checks that nothing was lost: the bare repository's refs did not move and
the client's branches are still there."""
import json
import os
import stat
import subprocess

import pytest

import gitservers
from helpers import Git, agentguard, need, snapshot

RULE_NOT_ALLOWED = "[rule: server-push-protected]"
RULE_REWRITE = "[rule: server-rewrite-protected]"


@pytest.fixture
def site(tmp_path, env):
    """A bare repository root/remote.git with main (two commits), and a seed clone."""
    root = tmp_path / "srv"
    root.mkdir()
    bare_path = root / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(bare_path)], env=env, check=True)
    for key, value in (("receive.autogc", "false"), ("maintenance.auto", "false"), ("gc.auto", "0")):
        # no maintenance detached after a push (git 2.47) writing while a test compares the tree
        subprocess.run(["git", "-C", str(bare_path), "config", key, value], env=env, check=True)
    seed = Git(str(tmp_path / "seed"), env)
    subprocess.run(["git", "clone", "-q", str(bare_path), seed.path], env=env, check=True, capture_output=True)
    seed.commit("one")
    seed.commit("two")
    seed.run("push", "-q", "origin", "main")
    return Site(tmp_path, env, Git(str(bare_path), env), seed)


class Site:
    def __init__(self, tmp_path, env, bare, seed):
        self.tmp, self.env, self.bare, self.seed = tmp_path, env, bare, seed
        self.root = os.path.dirname(bare.path)
        self.n = 0

    def install(self, *args, check=True):
        return agentguard("install", "--server", self.bare.path, *args, cwd=str(self.tmp), env=self.env, check=check)

    def doctor(self, *args, check=False):
        return agentguard("doctor", "--server", self.bare.path, *args, cwd=str(self.tmp), env=self.env, check=check)

    def refs(self):
        out = self.bare.run("for-each-ref", "--format=%(refname) %(objectname)").stdout
        return dict(line.split(" ") for line in out.splitlines())

    def client(self, url, extra_env=None):
        """A fresh clone (no agentguard anywhere) with one new commit on main."""
        self.n += 1
        env = dict(self.env, **(extra_env or {}))
        repo = Git(str(self.tmp / ("client%d" % self.n)), env)
        subprocess.run(["git", "clone", "-q", url, repo.path], env=env, check=True, capture_output=True)
        repo.commit("client work %d" % self.n)
        return repo

    def audit(self):
        path = os.path.join(self.bare.path, "agentguard", "audit.jsonl")
        if not os.path.exists(path):
            return []
        with open(path) as fh:
            return [json.loads(line) for line in fh]


def push(repo, *args, env=None):
    return repo.run("push", "--no-verify", "origin", *args, check=False, env=env)


def assert_refused(proc, site, before, repo, rule):
    """Refused by agentguard with ``rule``, as remote: lines; nothing moved, nothing lost."""
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out
    assert "remote: agentguard: refused" in out and rule in out, out
    assert "To carry on:" in out, out
    assert site.refs() == before, "the bare repository changed"
    assert "main" in repo.branches() and repo.rev("main") == repo.rev("HEAD"), "the client lost its work"


# -- the three serving layers ---------------------------------------------------------------------
def test_git_daemon_refuses_protected_pushes_and_accepts_the_rest(site):
    site.install()
    with gitservers.git_daemon(site.root, site.tmp / "daemon") as server:
        repo = site.client(server.url("remote.git"))
        before = site.refs()
        assert_refused(push(repo, "HEAD:main"), site, before, repo, RULE_NOT_ALLOWED)
        proc = push(repo, "+HEAD~2:main")
        assert_refused(proc, site, before, repo, RULE_NOT_ALLOWED)
        # a push with several refs is rejected whole, and says so
        repo.run("branch", "feat")
        proc = push(repo, "HEAD:main", "feat")
        assert_refused(proc, site, before, repo, RULE_NOT_ALLOWED)
        assert "none of its 2 refs was updated" in proc.stderr and "feat" in repo.branches()
        # feature branches and tags land
        assert push(repo, "feat").returncode == 0
        repo.run("tag", "v1")
        assert push(repo, "v1").returncode == 0
        assert push(repo, ":feat").returncode == 0  # deleting a feature branch is fine
        assert site.refs() == dict(before, **{"refs/tags/v1": repo.rev("v1")})
    entries = site.audit()
    assert [e["rule"] for e in entries] == ["server-push-protected"] * 3
    assert all(e["pusher"] == "(unknown)" and e["command"] == "git-receive-pack" for e in entries)


def test_ssh_identity_per_key(site):
    site.install("--allow-pusher", "alice")
    keys = {"alice": {"AGENTGUARD_PUSHER": "alice"}, "bob": {"AGENTGUARD_PUSHER": "bob"}}
    with gitservers.sshd(site.root, site.tmp / "sshd", keys=keys) as server:
        url = server.url("remote.git")
        alice_env, bob_env = (dict(site.env, **server.env_for(k)) for k in ("alice", "bob"))
        nobody_env = dict(site.env, **server.env)
        repo = site.client(url, nobody_env)
        before = site.refs()
        # the key without an identity, and bob, who is not allowed
        assert_refused(push(repo, "HEAD:main"), site, before, repo, RULE_NOT_ALLOWED)
        proc = push(repo, "HEAD:main", env=bob_env)
        assert_refused(proc, site, before, repo, RULE_NOT_ALLOWED)
        assert "by bob (from AGENTGUARD_PUSHER), who is not an allowed pusher" in proc.stderr
        # alice: a fast-forward lands; a rewrite and a deletion do not
        assert push(repo, "HEAD:main", env=alice_env).returncode == 0
        moved = site.refs()
        assert moved["refs/heads/main"] == repo.rev("HEAD")
        proc = push(repo, "+HEAD~2:main", env=alice_env)
        assert_refused(proc, site, moved, repo, RULE_REWRITE)
        assert "non-fast-forward update of protected branch 'main' by alice" in proc.stderr
        repo.commit("more")
        proc = push(repo, ":main", env=alice_env)
        assert_refused(proc, site, moved, repo, RULE_REWRITE)
        assert "deleting protected branch 'main'" in proc.stderr
        # bob's feature branch lands
        assert push(repo, "HEAD:refs/heads/bob-feature", env=bob_env).returncode == 0
    pushers = [e["pusher"] for e in site.audit()]
    assert pushers == ["(unknown)", "bob (AGENTGUARD_PUSHER)", "alice (AGENTGUARD_PUSHER)",
                       "alice (AGENTGUARD_PUSHER)"]


def test_smart_http_remote_user(site):
    site.install("--allow-pusher", "alice")
    users = {"alice": "pw-a", "bob": "pw-b"}
    with gitservers.http_backend(site.root, site.tmp / "http", users=users) as server:
        env = dict(site.env, **server.env)
        bob = site.client(server.url("remote.git", user="bob"), env)
        before = site.refs()
        proc = push(bob, "HEAD:main")
        assert_refused(proc, site, before, bob, RULE_NOT_ALLOWED)
        assert "by bob (from REMOTE_USER)" in proc.stderr
        assert push(bob, "HEAD:refs/heads/bob-feature").returncode == 0
        alice = site.client(server.url("remote.git", user="alice"), env)
        assert push(alice, "HEAD:main").returncode == 0
        assert site.refs()["refs/heads/main"] == alice.rev("HEAD")
    assert [e["pusher"] for e in site.audit()] == ["bob (REMOTE_USER)"]


def test_identity_sources_and_disagreement(site):
    """gitolite's GL_USER and Gitea/Forgejo's GITEA_PUSHER_NAME name the pusher too; two sources that
    disagree make the pusher unknown. (Over a local path the pusher sets them: the boundary.)"""
    site.install("--allow-pusher", "alice")
    for var in ("GL_USER", "GITEA_PUSHER_NAME", "REMOTE_USER"):
        repo = site.client(site.bare.path)
        assert push(repo, "HEAD:main", env=dict(site.env, **{var: "alice"})).returncode == 0, var
    repo = site.client(site.bare.path)
    before = site.refs()
    proc = push(repo, "HEAD:main", env=dict(site.env, AGENTGUARD_PUSHER="alice", REMOTE_USER="bob"))
    assert_refused(proc, site, before, repo, RULE_NOT_ALLOWED)
    assert "name different pushers; agentguard believes neither" in proc.stderr
    proc = push(repo, "HEAD:main", env=dict(site.env, AGENTGUARD_PUSHER="al ice"))
    assert_refused(proc, site, before, repo, RULE_NOT_ALLOWED)


# -- chaining, install, uninstall ------------------------------------------------------------------
USER_HOOK = (b"#!/bin/sh\nwhile read -r old new ref; do echo \"$ref\" >> user-hook.log\n"
             b"  case $ref in refs/heads/blocked) echo 'user hook: no' >&2; exit 1;; esac\ndone\n")


def test_chained_user_pre_receive_runs_and_uninstall_restores_it(site):
    hooks = os.path.join(site.bare.path, "hooks")
    user_hook = os.path.join(hooks, "pre-receive")
    with open(user_hook, "wb") as fh:
        fh.write(USER_HOOK)
    os.chmod(user_hook, 0o750)
    tree_before = snapshot(hooks)
    out = site.install().stdout
    assert "chains the hook that was here" in out
    log = os.path.join(site.bare.path, "user-hook.log")
    repo = site.client(site.bare.path)
    assert push(repo, "HEAD:refs/heads/feature").returncode == 0
    with open(log) as fh:
        assert fh.read() == "refs/heads/feature\n"
    before = site.refs()
    proc = push(repo, "HEAD:refs/heads/blocked")
    assert proc.returncode != 0 and "user hook: no" in proc.stderr and site.refs() == before
    # agentguard refuses first: the user's hook does not even see the push
    assert_refused(push(repo, "HEAD:main"), site, before, repo, RULE_NOT_ALLOWED)
    with open(log) as fh:
        assert fh.read() == "refs/heads/feature\nrefs/heads/blocked\n"
    assert site.doctor().returncode == 0
    done = agentguard("uninstall", "--server", site.bare.path, cwd=str(site.tmp), env=site.env)
    assert "restored hooks/pre-receive" in done.stdout
    assert snapshot(hooks) == tree_before


# The shape of Gitea's/Forgejo's generated pre-receive: it runs every program in pre-receive.d, found
# by its own name, with the push's input (written for this test).
DISPATCHER = (b"#!/bin/sh\n# generated by the forge; do not modify\ndata=$(cat)\nname=${0##*/}\n"
              b"for hook in \"${0%/*}/$name.d\"/*; do\n  test -x \"$hook\" && test -f \"$hook\" || continue\n"
              b"  printf '%s\\n' \"$data\" | \"$hook\" || exit 1\ndone\n")


def test_forge_dispatcher_gets_the_hook_in_its_folder(site):
    hooks = os.path.join(site.bare.path, "hooks")
    os.makedirs(os.path.join(hooks, "pre-receive.d"))
    forge = os.path.join(hooks, "pre-receive.d", "forge")
    with open(forge, "wb") as fh:
        fh.write(b"#!/bin/sh\ncat >> forge-hook.log\n")
    with open(os.path.join(hooks, "pre-receive"), "wb") as fh:
        fh.write(DISPATCHER)
    for path in (forge, os.path.join(hooks, "pre-receive")):
        os.chmod(path, 0o755)
    tree_before = snapshot(hooks)
    out = site.install("--allow-pusher", "alice").stdout
    assert "pre-receive.d/agentguard" in out
    assert not os.path.exists(os.path.join(hooks, "pre-receive.agentguard-chained"))
    repo = site.client(site.bare.path)
    before = site.refs()
    assert_refused(push(repo, "HEAD:main", env=dict(site.env, GITEA_PUSHER_NAME="bob")), site, before, repo,
                   RULE_NOT_ALLOWED)
    assert push(repo, "HEAD:main", env=dict(site.env, GITEA_PUSHER_NAME="alice")).returncode == 0
    with open(os.path.join(site.bare.path, "forge-hook.log")) as fh:
        assert "refs/heads/main" in fh.read()  # the forge's own hook still runs
    assert site.doctor().returncode == 0
    os.unlink(os.path.join(hooks, "pre-receive"))
    proc = site.doctor()
    assert proc.returncode == 1 and "FAIL hooks.dispatcher" in proc.stdout
    with open(os.path.join(hooks, "pre-receive"), "wb") as fh:
        fh.write(DISPATCHER)
    os.chmod(os.path.join(hooks, "pre-receive"), 0o755)
    agentguard("uninstall", "--server", site.bare.path, cwd=str(site.tmp), env=site.env)
    assert snapshot(hooks) == tree_before


def test_install_twice_dry_run_and_uninstall_are_exact(site):
    before = snapshot(site.bare.path)
    dry = site.install("--dry-run", "--protect", "main", "--protect", "release/*", "--allow-pusher", "alice")
    assert "would:" in dry.stdout and snapshot(site.bare.path) == before
    site.install("--protect", "main", "--protect", "release/*", "--allow-pusher", "alice")
    installed = snapshot(site.bare.path)
    again = site.install("--protect", "main", "--protect", "release/*", "--allow-pusher", "alice")
    assert "nothing changed" in again.stdout and snapshot(site.bare.path) == installed
    # a repair run without the options keeps what the last install recorded
    again = site.install()
    assert "nothing changed" in again.stdout and "release/*" in again.stdout and "alice" in again.stdout
    repo = site.client(site.bare.path)
    refs = site.refs()
    assert_refused(push(repo, "HEAD:release/1"), site, refs, repo, RULE_NOT_ALLOWED)
    agentguard("uninstall", "--server", site.bare.path, cwd=str(site.tmp), env=site.env)
    after = snapshot(site.bare.path)
    audit_dir = {k: v for k, v in after.items() if k.startswith("agentguard")}
    assert sorted(audit_dir) == ["agentguard", os.path.join("agentguard", "audit.jsonl")]  # the record stays
    assert {k: v for k, v in after.items() if k not in audit_dir} == before
    second = agentguard("uninstall", "--server", site.bare.path, cwd=str(site.tmp), env=site.env)
    assert second.returncode == 0 and snapshot(site.bare.path) == after


def test_not_bare_and_bare_messages(site, env):
    proc = agentguard("install", "--server", site.seed.path, cwd=str(site.tmp), env=env, check=False)
    assert proc.returncode == 1 and "is not a bare repository" in proc.stderr and "Traceback" not in proc.stderr
    assert not os.path.exists(os.path.join(site.seed.path, ".git", "hooks", "pre-receive"))
    proc = agentguard("install", cwd=site.bare.path, env=env, check=False)
    assert proc.returncode == 1 and "agentguard install --server" in proc.stderr


# -- the doctor ----------------------------------------------------------------------------------
def test_doctor_passes_changes_nothing_and_catches_a_non_executable_hook(site):
    site.install("--allow-pusher", "alice")
    before = snapshot(site.bare.path)
    proc = site.doctor("--json")
    report = json.loads(proc.stdout)
    assert proc.returncode == 0 and report["ok"], proc.stdout
    probe = next(c for c in report["checks"] if c["id"] == "probe.pre-receive")
    assert "by no known pusher: refused" in probe["summary"] and "fast-forward of main by alice: accepted" \
        in probe["summary"] and "rewrite of main by alice: refused" in probe["summary"]
    assert snapshot(site.bare.path) == before, "the doctor changed the repository"
    hook = os.path.join(site.bare.path, "hooks", "pre-receive")
    os.chmod(hook, 0o644)
    proc = site.doctor()
    assert proc.returncode == 1 and "FAIL hooks.pre-receive" in proc.stdout and "not executable" in proc.stdout
    assert "FAIL probe.pre-receive" in proc.stdout and "chmod +x" in proc.stdout
    # the hole the doctor reports is real: git skips the hook and the push lands
    repo = site.client(site.bare.path)
    assert push(repo, "HEAD:main").returncode == 0
    assert site.refs()["refs/heads/main"] == repo.rev("HEAD")


def test_doctor_catches_a_modified_runtime_and_a_redirected_hooks_path(site, tmp_path):
    site.install()
    target = os.path.join(site.bare.path, "agentguard", "runtime", "hooks", "server", "prereceive.py")
    with open(target, "a") as fh:
        fh.write("\n# changed\n")
    proc = site.doctor()
    assert proc.returncode == 1 and "FAIL runtime.files" in proc.stdout and "was modified" in proc.stdout
    assert "agentguard install --server" in proc.stdout
    site.install()  # repairs it
    assert site.doctor().returncode == 0
    site.bare.run("config", "core.hooksPath", str(tmp_path / "elsewhere"))
    proc = site.doctor()
    assert proc.returncode == 1 and "FAIL hooks.location" in proc.stdout and "--unset core.hooksPath" in proc.stdout


def test_missing_runtime_fails_closed(site):
    site.install()
    import shutil
    shutil.rmtree(os.path.join(site.bare.path, "agentguard", "runtime"))
    repo = site.client(site.bare.path)
    before = site.refs()
    proc = push(repo, "HEAD:main")
    assert_refused(proc, site, before, repo, "[rule: guard-broken]")
    assert "agentguard install --server" in proc.stderr
    assert push(repo, "HEAD:refs/heads/feature").returncode == 0  # no Python needed for this one


def test_a_server_policy_of_the_wrong_type_fails_closed(site):
    """A server.json whose branches is a string is no list of patterns (m, a, i, n): a broken guard,
    and the doctor names it (#26)."""
    site.install()
    path = os.path.join(site.bare.path, "agentguard", "server.json")
    with open(path) as fh:
        data = json.load(fh)
    data["policy"]["branches"] = "main"
    with open(path, "w") as fh:
        json.dump(data, fh)
    repo = site.client(site.bare.path)
    before = site.refs()
    assert_refused(push(repo, "HEAD:main"), site, before, repo, "[rule: guard-broken]")
    assert site.doctor().returncode != 0


def test_unreadable_input_is_refused(site):
    site.install()
    hook = os.path.join(site.bare.path, "hooks", "pre-receive")
    oid = site.bare.rev("main")
    for data in ("%s %s refs/heads/main extra\n" % (oid, oid), "zz %s refs/heads/main\n" % oid,
                 "%s %s refs/heads/main\n" % (oid, oid[:39] + "x"), "%s %s refs/heads/main\n" % (oid, oid[:20])):
        proc = subprocess.run([hook], cwd=site.bare.path, env=site.env, input=data, capture_output=True, text=True)
        assert proc.returncode == 1 and "[rule: unreadable-input]" in proc.stderr, (data, proc.stderr)


# -- the documented boundary -----------------------------------------------------------------------
def test_local_path_pusher_chooses_the_receiving_command(site):
    """Over a local path (or an ssh shell account) the pusher names the receiving command: the hole
    SECURITY.md cites. The guard holds only where the server fixes that command."""
    site.install()
    repo = site.client(site.bare.path)
    assert push(repo, "HEAD:main").returncode != 0
    proc = push(repo, "--receive-pack=git -c core.hooksPath=/dev/null receive-pack", "HEAD:main")
    assert proc.returncode == 0, proc.stderr
    assert site.refs()["refs/heads/main"] == repo.rev("HEAD")


def test_hook_is_posix_sh_and_shellcheck_clean(site):
    import shutil
    site.install("--protect", "main", "--protect", "rel[ab]?-&;<>#!")
    hook = os.path.join(site.bare.path, "hooks", "pre-receive")
    assert stat.S_IMODE(os.stat(hook).st_mode) == 0o755
    with open(hook, "rb") as fh:
        assert fh.read().startswith(b"#!/bin/sh\n")
    need("shellcheck", shutil.which("shellcheck"))
    proc = subprocess.run(["shellcheck", "--shell=sh", "--format=gcc", hook], capture_output=True, text=True)
    assert proc.returncode == 0 and not proc.stdout.strip(), proc.stdout


# -- a symbolic ref on the server (issue #26, item 12) ---------------------------------------------
def _link(site, ref, target):
    site.bare.run("symbolic-ref", ref, target)


def test_a_symbolic_ref_to_a_protected_branch_is_that_branch(site):
    """receive-pack updates (or deletes) the ref a symbolic ref points to, and pre-receive sees only
    the name pushed: `trunk -> main` is judged as main, however deep the chain, and a dangling one
    to `master` would create master."""
    site.install()
    _link(site, "refs/heads/trunk", "refs/heads/main")
    _link(site, "refs/heads/alias", "refs/heads/trunk")
    _link(site, "refs/heads/next-master", "refs/heads/master")
    _link(site, "refs/heads/to-feature", "refs/heads/feature")
    site.bare.run("update-ref", "refs/heads/feature", "refs/heads/main")
    site.bare.run("update-ref", "refs/heads/same", "refs/heads/main")
    with gitservers.git_daemon(site.root, site.tmp / "daemon") as server:
        repo = site.client(server.url("remote.git"))
        before = site.refs()
        for spec in ("HEAD:trunk", "HEAD:alias", ":trunk", "HEAD:next-master", "+HEAD~2:trunk"):
            proc = push(repo, spec)
            assert_refused(proc, site, before, repo, RULE_NOT_ALLOWED)
            assert "(through the symbolic ref refs/heads/" in proc.stderr, proc.stderr
        assert "refs/heads/master" not in site.refs()
        # the neighbours: a symbolic ref to a feature branch, a branch standing where main does
        assert push(repo, "HEAD:to-feature").returncode == 0
        assert push(repo, "HEAD:same").returncode == 0
        after = site.refs()
        assert after["refs/heads/feature"] == after["refs/heads/same"] == repo.rev("HEAD")
        assert after["refs/heads/main"] == before["refs/heads/main"]


def test_an_allowed_pusher_moves_main_through_a_symbolic_ref_only_forward(site):
    site.install("--allow-pusher", "alice")
    _link(site, "refs/heads/trunk", "refs/heads/main")
    alice = dict(site.env, GL_USER="alice")
    repo = site.client(site.bare.path)
    before = site.refs()
    assert_refused(push(repo, "+HEAD~2:trunk", env=alice), site, before, repo, RULE_REWRITE)
    proc = push(repo, ":trunk", env=alice)
    assert_refused(proc, site, before, repo, RULE_REWRITE)
    assert "deleting protected branch 'main' (through the symbolic ref refs/heads/trunk)" in proc.stderr
    assert push(repo, "HEAD:trunk", env=alice).returncode == 0
    assert site.refs()["refs/heads/main"] == repo.rev("HEAD")


def test_a_symbolic_ref_in_reftable_storage(tmp_path, env):
    """Under reftable no file shows a symbolic ref, so the hook asks the runtime for every push."""
    bare = tmp_path / "rt.git"
    proc = subprocess.run(["git", "init", "-q", "--bare", "--ref-format=reftable", "-b", "main", str(bare)],
                          env=env, capture_output=True)
    if proc.returncode != 0:
        pytest.skip("this git has no reftable storage")
    site = Site(tmp_path, env, Git(str(bare), env), None)
    seed = Git(str(tmp_path / "seed"), env)
    subprocess.run(["git", "clone", "-q", str(bare), seed.path], env=env, check=True, capture_output=True)
    seed.commit("one")
    seed.run("push", "-q", "origin", "main")
    site.install()
    _link(site, "refs/heads/trunk", "refs/heads/main")
    repo = site.client(str(bare))
    before = site.refs()
    assert_refused(push(repo, "HEAD:trunk"), site, before, repo, RULE_NOT_ALLOWED)
    assert push(repo, "HEAD:feature").returncode == 0
