"""Names resolved as git resolves them (issue #26, items 1, 2, 3, 6 and the case-insensitive suspicion).

git picks one ref for a name (`main` is the remote's `refs/tags/main` before its `refs/heads/main`), writes a
remote's tracking refs from a push too, and follows symbolic refs; the backstop must judge the ref git
actually updates. Every refusal also asserts that nothing moved: local `main`, the remote's `main`, `feat`.
"""
import os
import subprocess

import pytest

from helpers import assert_refused_and_kept, need, refused, state, succeeded_unrefused, upstream_advance
import test_counterparts
from test_counterparts import forged_remote

check = test_counterparts.check  # the analyser's decision, in-process (a fixture)


def git_version(repo):
    out = repo.run("version").stdout.split()[2]
    return tuple(int(p) for p in out.split(".")[:2])


# -- 1. a tag named like a protected branch -----------------------------------------------------------
@pytest.fixture
def tagged(guarded):
    """The remote has a tag `main` on feat's local commit; HEAD is on feat."""
    repo, bare = guarded
    succeeded_unrefused(repo.run("push", "-q", "origin", "feat:refs/tags/main"))
    assert repo.rev("refs/tags/main") is None  # only the remote has it
    repo.run("switch", "-q", "feat")
    return repo, bare


@pytest.mark.parametrize("refspec", ["main:main", "+main:main", "main:refs/heads/main", "main:heads/main"])
def test_a_remote_tag_named_main_does_not_move_main(tagged, refspec):
    repo, bare = tagged
    before = state(repo, bare)
    assert_refused_and_kept(repo.run("fetch", "origin", refspec, check=False), repo, bare, before)


def test_a_remote_tag_named_main_does_not_forge_origin_main(tagged):
    repo, bare = tagged
    origin_main = repo.rev("refs/remotes/origin/main")
    before = state(repo, bare)
    assert_refused_and_kept(repo.run("fetch", "origin", "main:refs/remotes/origin/main", check=False),
                            repo, bare, before)
    assert repo.rev("refs/remotes/origin/main") == origin_main


def test_check_judges_a_fetch_source_as_git_resolves_it(tagged, check):
    repo, _ = tagged
    assert check(repo, "git fetch origin main:main") == ("block", "protected-move")
    assert check(repo, "git fetch origin main:refs/remotes/origin/main") == ("block", "remote-tracking-forge")
    assert check(repo, "git fetch origin refs/heads/main:main") == ("allow", "")
    assert check(repo, "git fetch origin refs/heads/main:refs/remotes/origin/main") == ("allow", "")


def test_a_fully_qualified_source_still_fetches_main_next_to_the_tag(guarded, tmp_path, env):
    repo, bare = guarded
    new = upstream_advance(bare, env, tmp_path)  # (a clone with both a tag and a branch main cannot push main)
    succeeded_unrefused(repo.run("push", "-q", "origin", "feat:refs/tags/main"))
    repo.run("switch", "-q", "feat")
    succeeded_unrefused(repo.run("fetch", "-q", "origin", "refs/heads/main:main"))
    assert repo.rev("refs/heads/main") == new  # (`main` alone is now the tag the fetch followed)
    succeeded_unrefused(repo.run("fetch", "-q", "origin", "+refs/heads/main:refs/remotes/origin/main"))
    succeeded_unrefused(repo.run("fetch", "-q", "origin"))  # the configured refspec is fully qualified
    assert repo.rev("refs/remotes/origin/main") == new


def test_without_the_tag_a_short_source_still_fetches_main(guarded, tmp_path, env, check):
    repo, bare = guarded
    new = upstream_advance(bare, env, tmp_path)
    repo.run("switch", "-q", "feat")
    assert check(repo, "git fetch origin main:main") == ("allow", "")
    succeeded_unrefused(repo.run("fetch", "-q", "origin", "main:main"))
    assert repo.rev("main") == new
    new2 = upstream_advance(bare, env, tmp_path, "second")
    succeeded_unrefused(repo.run("fetch", "-q", "origin", "main:refs/remotes/origin/main"))
    assert repo.rev("refs/remotes/origin/main") == new2


# -- 2. the transport the fetch runs, swapped -----------------------------------------------------------
@pytest.mark.parametrize("how", ["--upload-pack", "-c uploadpack", "GIT_CONFIG_COUNT uploadpack", "-c url"])
def test_a_swapped_upload_pack_does_not_move_main(guarded, tmp_path, how):
    repo, bare = guarded
    forged = forged_remote(repo, tmp_path)
    url = repo.run("remote", "get-url", "origin").stdout.strip()
    repo.run("switch", "-q", "feat")
    env = None
    if how == "--upload-pack":
        cmd = ["fetch", "--upload-pack=git-upload-pack %s #" % forged, "origin", "main:main"]
    elif how == "-c uploadpack":
        cmd = ["-c", "remote.origin.uploadpack=git-upload-pack %s #" % forged, "fetch", "origin", "main:main"]
    elif how == "-c url":
        cmd = ["-c", "url.%s.insteadOf=%s" % (forged, url), "fetch", "origin", "refs/heads/main:main"]
    else:
        cmd = ["fetch", "origin", "main:main"]
        env = dict(repo.env, GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0="remote.origin.uploadpack",
                   GIT_CONFIG_VALUE_0="git-upload-pack %s #" % forged)
    before = state(repo, bare)
    assert_refused_and_kept(repo.run(*cmd, check=False, env=env), repo, bare, before)


def test_check_refuses_a_swapped_upload_pack(guarded, check):
    repo, _ = guarded
    repo.run("switch", "-q", "feat")
    assert check(repo, "git fetch --upload-pack='git-upload-pack /tmp/e #' origin main:main")[0] == "block"
    assert check(repo, "git fetch --upload-pack='git-upload-pack /tmp/e #' origin main:refs/remotes/origin/main"
                 )[0] == "block"


# -- 3. a push writes the tracking ref its remote's fetch refspec maps ---------------------------------
@pytest.mark.parametrize("how", ["-c", "GIT_CONFIG_COUNT", "config"])
def test_a_push_does_not_write_origin_main_through_another_remotes_refspec(guarded, tmp_path, how):
    repo, bare = guarded
    evil = str(tmp_path / "evil.git")
    subprocess.run(["git", "init", "-q", "--bare", evil], env=repo.env, check=True)
    origin_main = repo.rev("refs/remotes/origin/main")
    pairs = [("remote.evil.url", evil), ("remote.evil.fetch", "+refs/heads/x:refs/remotes/origin/main")]
    env, cmd = None, ["push", "evil", "feat:x"]
    if how == "-c":
        cmd = ["-c", "%s=%s" % pairs[0], "-c", "%s=%s" % pairs[1]] + cmd
    elif how == "GIT_CONFIG_COUNT":
        env = dict(repo.env, GIT_CONFIG_COUNT="2")
        for i, (k, v) in enumerate(pairs):
            env.update({"GIT_CONFIG_KEY_%d" % i: k, "GIT_CONFIG_VALUE_%d" % i: v})
    else:
        for k, v in pairs:
            repo.run("config", k, v)
    before = state(repo, bare)
    proc = repo.run(*cmd, check=False, env=env)
    assert refused(proc), proc.stderr  # git reports the tracking ref it could not write
    assert repo.rev("refs/remotes/origin/main") == origin_main
    assert state(repo, bare) == before


def test_a_push_to_origin_still_writes_its_tracking_refs(guarded):
    repo, bare = guarded
    succeeded_unrefused(repo.run("push", "-q", "origin", "feat"))
    assert repo.rev("refs/remotes/origin/feat") == repo.rev("feat")


def test_a_first_push_still_writes_origin_main(make_repo):
    repo, bare = make_repo(remote=False)
    empty = repo.path + "-new.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", empty], env=repo.env, check=True)
    repo.run("remote", "add", "origin", empty)
    succeeded_unrefused(repo.run("push", "-q", "-u", "origin", "main"))
    assert repo.rev("refs/remotes/origin/main") == repo.rev("main")


def test_a_clone_still_writes_its_tracking_refs(guarded, tmp_path, env):
    repo, bare = guarded
    repo.agentguard("install", "--template")
    proc = subprocess.run(["git", "clone", "-q", bare.path, str(tmp_path / "c")], env=dict(env, GIT_TRACE="1"),
                          capture_output=True, text=True)
    assert proc.returncode == 0 and "refused" not in proc.stderr, proc.stderr
    assert "hooks/reference-transaction prepared" in proc.stderr  # the template's backstop judged it
    assert subprocess.run(["git", "-C", str(tmp_path / "c"), "rev-parse", "origin/main"], env=env,
                          capture_output=True, text=True).stdout.strip() == bare.rev("main")


# -- 6. symbolic refs ------------------------------------------------------------------------------------
def _symref_by_hand(repo, ref, target):
    path = os.path.join(repo.path, ".git", *ref.split("/"))
    with open(path, "w") as fh:
        fh.write("ref: %s\n" % target)


def test_origin_main_may_not_become_a_symbolic_ref(guarded):
    repo, bare = guarded
    before = state(repo, bare)
    proc = repo.run("symbolic-ref", "refs/remotes/origin/main", "refs/heads/feat", check=False)
    if git_version(repo) >= (2, 46):  # older git runs no hook for symbolic-ref
        assert_refused_and_kept(proc, repo, bare, before)
        assert repo.run("symbolic-ref", "-q", "refs/remotes/origin/main", check=False).returncode != 0
    else:  # the symbolic ref is made, and leads nowhere
        assert_refused_and_kept(repo.run("merge", "--ff-only", "origin/main", check=False), repo, bare, before)


def test_a_symbolic_counterpart_does_not_count(guarded):
    repo, bare = guarded
    _symref_by_hand(repo, "refs/remotes/origin/main", "refs/heads/feat")
    before = state(repo, bare)
    for cmd in (["merge", "--ff-only", "origin/main"], ["reset", "--hard", "feat"],
                ["update-ref", "refs/heads/main", "feat"]):
        assert_refused_and_kept(repo.run(*cmd, check=False), repo, bare, before)


def test_origin_head_stays_a_symbolic_ref(guarded, tmp_path, env):
    repo, bare = guarded
    succeeded_unrefused(repo.run("remote", "set-head", "origin", "-a"))
    assert repo.run("symbolic-ref", "refs/remotes/origin/HEAD").stdout.strip() == "refs/remotes/origin/main"
    new = upstream_advance(bare, env, tmp_path)
    succeeded_unrefused(repo.run("fetch", "-q", "origin"))
    succeeded_unrefused(repo.run("merge", "-q", "--ff-only", "origin/HEAD"))
    assert repo.rev("main") == new


def test_a_branch_that_points_to_main_moves_nothing(guarded):
    repo, bare = guarded
    succeeded_unrefused(repo.run("symbolic-ref", "refs/heads/trunk", "refs/heads/main"))
    before = state(repo, bare)
    before["branches"] = sorted(repo.branches())
    assert_refused_and_kept(repo.run("update-ref", "refs/heads/trunk", "feat", check=False), repo, bare, before)
    succeeded_unrefused(repo.run("switch", "-q", "trunk"))
    assert_refused_and_kept(repo.run("commit", "-q", "--allow-empty", "-m", "x", check=False), repo, bare, before)
    assert_refused_and_kept(repo.run("commit", "-q", "--no-verify", "--allow-empty", "-m", "x", check=False),
                            repo, bare, before)
    repo.run("switch", "-q", "feat")
    # trunk becomes a branch of its own
    succeeded_unrefused(repo.run("update-ref", "--no-deref", "refs/heads/trunk", "feat"))
    assert repo.rev("trunk") == repo.rev("feat") and repo.rev("main") == before["main"]


# -- case-insensitive file systems -----------------------------------------------------------------------
def test_a_case_variant_of_main_is_main_where_case_is_ignored(guarded):
    repo, bare = guarded
    succeeded_unrefused(repo.run("update-ref", "refs/heads/MAIN", "feat"))  # case-sensitive: another branch
    succeeded_unrefused(repo.run("update-ref", "-d", "refs/heads/MAIN"))
    repo.run("config", "core.ignorecase", "true")  # what git init sets on a case-insensitive file system
    before = state(repo, bare)
    for cmd in (["update-ref", "refs/heads/MAIN", "feat"], ["branch", "-f", "Main", "feat"],
                ["update-ref", "refs/remotes/origin/MAIN", "feat"]):
        assert_refused_and_kept(repo.run(*cmd, check=False), repo, bare, before)
    succeeded_unrefused(repo.run("branch", "mainline", "feat"))  # a name that only starts like main is not main


@pytest.fixture
def folded(tmp_path, env):
    """A directory on a case-insensitive, case-preserving file system (tests/casefs.py over FUSE)."""
    import shutil
    import sys
    import time
    try:
        import fuse  # noqa: F401
        fusepy = ""
    except (ImportError, OSError) as exc:  # fusepy raises OSError without libfuse
        fusepy = str(exc)
    need("fusepy with libfuse2 (%s)" % fusepy, not fusepy)
    need("/dev/fuse", os.path.exists("/dev/fuse"), "a machine or container with FUSE")
    need("fusermount", shutil.which("fusermount"), "Debian's fuse3; sh scripts/test.sh installs it")
    backing, mount = tmp_path / "backing", tmp_path / "folded"
    backing.mkdir()
    mount.mkdir()
    casefs = os.path.join(os.path.dirname(__file__), "casefs.py")
    proc = subprocess.Popen([sys.executable, casefs, str(backing), str(mount)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    deadline = time.monotonic() + 20
    while not os.path.ismount(str(mount)):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            need("a case-folding FUSE mount", False, "it did not start: %s" % proc.communicate()[1][-300:])
        time.sleep(0.05)
    try:
        yield mount
    finally:
        if subprocess.run(["fusermount", "-u", str(mount)], capture_output=True).returncode != 0:
            subprocess.run(["fusermount", "-u", "-z", str(mount)], capture_output=True)  # still busy: detach
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def _folded_repo(folded, tmp_path, env, name, install):
    from helpers import Git
    bare = Git(str(tmp_path / (name + ".git")), env)
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", bare.path], env=env, check=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(folded / name)], env=env, check=True)
    repo = Git(str(folded / name), env)
    assert repo.run("config", "core.ignorecase").stdout.strip() == "true"  # git probed the file system
    repo.commit("initial")
    repo.run("remote", "add", "origin", bare.path)
    repo.run("push", "-q", "-u", "origin", "main")
    if install:
        repo.agentguard("install")
    repo.run("branch", "feat")
    repo.run("switch", "-q", "feat")
    repo.commit("feature work")
    return repo, bare


def test_on_a_case_folding_file_system_main_is_main_in_every_spelling(folded, tmp_path, env):
    # the suspicion, shown: without agentguard, an update of MAIN moves main
    plain, _ = _folded_repo(folded, tmp_path, env, "plain", install=False)
    plain.run("update-ref", "refs/heads/MAIN", "feat")
    assert plain.rev("refs/heads/main") == plain.rev("feat")
    repo, bare = _folded_repo(folded, tmp_path, env, "work", install=True)
    repo.run("config", "core.ignorecase", "false")  # a lie about the file system: the probe still sees it
    before = state(repo, bare)
    origin_main = repo.rev("refs/remotes/origin/main")
    for cmd in (["update-ref", "refs/heads/MAIN", "feat"], ["branch", "-f", "Main", "feat"],
                ["update-ref", "-d", "refs/heads/MAIN"], ["update-ref", "refs/remotes/origin/MAIN", "feat"]):
        assert_refused_and_kept(repo.run(*cmd, check=False), repo, bare, before)
    assert repo.rev("refs/remotes/origin/main") == origin_main
    succeeded_unrefused(repo.run("branch", "mainline", "feat"))
    succeeded_unrefused(repo.run("commit", "-q", "--allow-empty", "-m", "more work"))


# -- pushes of another letter case: the remote's file system is not known here ------------------------
def test_a_push_of_another_spelling_is_its_own_branch_on_a_remote_that_keeps_case(guarded):
    """A local remote on a file system that keeps letter case takes `MAIN` as a branch of its own
    (tests/test_keep_working.py pushes one); main stays where it was."""
    repo, bare = guarded
    main = bare.rev("refs/heads/main")
    succeeded_unrefused(repo.run("push", "-q", "origin", "feat:MAIN"))
    assert bare.rev("refs/heads/MAIN") == repo.rev("feat") and bare.rev("refs/heads/main") == main


def test_whether_a_remote_may_ignore_case_is_asked_of_a_local_path_only(tmp_path):
    """A network remote's file system cannot be told from the client: on doubt it may ignore case
    (a push of `MAIN` there is judged as main); a local repository is asked of its own file system."""
    from agentguard.hooks.backstop.casefold import remote_ignores_case
    for url in ("ssh://host/srv/r.git", "host:r.git", "https://example.com/r.git", "git://host/r",
                str(tmp_path / "missing.git")):
        assert remote_ignores_case(url), url
    bare = tmp_path / "kept.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    assert not remote_ignores_case(str(bare)) and not remote_ignores_case("file://" + str(bare))
    assert not remote_ignores_case("kept", cwd=str(tmp_path))  # git enters kept.git


def test_on_a_case_folding_remote_a_push_to_main_spelt_otherwise_is_refused(folded, tmp_path, env):
    """A bare remote on the case-folding mount: without agentguard `push origin feat:MAIN` moves its
    main; with it the push guard refuses, and a guarded server refuses the same push from a clone
    without agentguard."""
    from helpers import Git, agentguard

    def remote(name):
        bare = Git(str(folded / (name + ".git")), env)
        subprocess.run(["git", "init", "-q", "--bare", "-b", "main", bare.path], env=env, check=True)
        return bare

    def packed(bare):
        # a loose main makes git's create of MAIN fail ("reference already exists"); a packed one, as
        # after any gc on the server, does not: MAIN's new loose file is main's
        bare.run("pack-refs", "--all")
        assert not os.path.exists(os.path.join(bare.path, "refs", "heads", "main"))

    def clone(name, bare, install):
        repo = Git(str(tmp_path / name), env)
        subprocess.run(["git", "init", "-q", "-b", "main", repo.path], env=env, check=True)
        repo.commit("initial")
        repo.run("remote", "add", "origin", bare.path)
        repo.run("push", "-q", "-u", "origin", "main")
        if install:
            repo.agentguard("install", "--no-adapters")
        repo.run("switch", "-q", "-c", "feat")
        repo.commit("feature work")
        return repo

    plain_bare = remote("plain")
    plain = clone("plain", plain_bare, install=False)
    packed(plain_bare)
    succeeded_unrefused(plain.run("push", "-q", "origin", "feat:MAIN"))
    assert plain_bare.rev("refs/heads/main") == plain.rev("feat"), "the suspicion: main moved"

    bare = remote("guarded")
    repo = clone("work", bare, install=True)
    packed(bare)
    main = bare.rev("refs/heads/main")
    proc = repo.run("push", "--no-verify", "origin", "feat:MAIN", check=False)
    assert proc.returncode != 0 and "[rule: push-protected]" in proc.stderr, proc.stderr
    assert bare.rev("refs/heads/main") == main and repo.rev("feat") != main
    repo.agentguard("install", "--no-adapters", "--no-push-guard")
    proc = repo.run("push", "origin", "feat:MAIN", check=False)
    assert proc.returncode != 0 and "[rule: push-protected]" in proc.stderr, proc.stderr
    assert bare.rev("refs/heads/main") == main

    served = remote("served")
    client = clone("client", served, install=False)
    agentguard("install", "--server", served.path, cwd=str(tmp_path), env=env)
    packed(served)
    main = served.rev("refs/heads/main")
    proc = client.run("push", "origin", "feat:MAIN", check=False)
    assert proc.returncode != 0 and "[rule: server-push-protected]" in proc.stderr, proc.stderr
    assert served.rev("refs/heads/main") == main
