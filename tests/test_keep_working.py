"""Every "must keep working" line: ordinary work flows with the backstop installed."""
import os
import subprocess

import pytest

from helpers import Git, refused, upstream_advance


@pytest.fixture
def install_args():
    """Every layer on, as a user gets them (issue #25): every harness's adapter besides the backstop."""
    return ["--harness", "all"]


def ok(proc):
    assert proc.returncode == 0 and "agentguard" not in proc.stderr, proc.stdout + proc.stderr
    return proc


def test_feature_branch_life_cycle(guarded):
    repo, bare = guarded
    repo.run("checkout", "-q", "feat")
    repo.commit("more work")
    ok(repo.run("commit", "--amend", "--no-edit", "-q"))
    ok(repo.run("commit", "--amend", "--no-edit", "-q", "--no-verify"))
    ok(repo.run("push", "-q", "-u", "origin", "feat"))
    ok(repo.run("commit", "--amend", "-q", "-m", "reworded"))
    ok(repo.run("push", "-q", "--force", "origin", "feat"))
    ok(repo.run("push", "-q", "--force-with-lease", "origin", "+feat:feat"))
    assert bare.rev("feat") == repo.rev("feat")
    ok(repo.run("push", "-q", "origin", "--delete", "feat"))
    assert bare.rev("refs/heads/feat") is None
    ok(repo.run("checkout", "-q", "-b", "throwaway"))
    ok(repo.run("checkout", "-q", "feat"))
    ok(repo.run("branch", "-D", "throwaway"))
    ok(repo.run("branch", "-m", "feat", "feature/renamed"))
    ok(repo.run("branch", "-M", "feature/renamed", "feat"))
    ok(repo.run("branch", "-c", "feat", "copy"))


def test_rebase_feature_onto_advanced_main(guarded, tmp_path, env):
    repo, bare = guarded
    upstream_advance(bare, env, tmp_path)
    ok(repo.run("fetch", "-q", "origin"))
    repo.run("checkout", "-q", "feat")
    for i in range(5):
        repo.commit("feat %d" % i)
    ok(repo.run("rebase", "-q", "origin/main"))
    ok(repo.run("rebase", "-q", "-i", "--exec", "true", "origin/main"))
    ok(repo.run("rebase", "-q", "-i", "HEAD~3", env=dict(repo.env, GIT_SEQUENCE_EDITOR="sed -i 2s/^pick/fixup/")))
    ok(repo.run("merge", "-q", "--no-edit", "origin/main"))
    ok(repo.run("merge", "-q", "--no-ff", "--no-edit", "main"))
    assert repo.rev("main") != repo.rev("feat")


def test_sync_main_from_upstream(guarded, tmp_path, env):
    repo, bare = guarded
    new = upstream_advance(bare, env, tmp_path, "one")
    ok(repo.run("pull", "-q", "--ff-only"))
    assert repo.rev("main") == new
    new = upstream_advance(bare, env, tmp_path, "two")
    ok(repo.run("fetch", "-q", "origin"))
    ok(repo.run("merge", "-q", "--ff-only", "origin/main"))
    assert repo.rev("main") == new
    new = upstream_advance(bare, env, tmp_path, "three")
    ok(repo.run("fetch", "-q"))
    ok(repo.run("reset", "-q", "--hard", "origin/main"))
    assert repo.rev("main") == new
    new = upstream_advance(bare, env, tmp_path, "four")
    repo.run("checkout", "-q", "feat")
    ok(repo.run("fetch", "-q", "origin", "main:main"))
    assert repo.rev("main") == new
    new = upstream_advance(bare, env, tmp_path, "five")
    repo.run("checkout", "-q", "main")
    ok(repo.run("pull", "-q", "--rebase"))
    assert repo.rev("main") == new
    ok(repo.run("pull", "-q", "--ff-only"))  # already up to date


def test_gc_and_pack_refs(guarded):
    repo, bare = guarded
    before = repo.rev("main")
    ok(repo.run("pack-refs", "--all"))
    ok(repo.run("gc", "-q"))
    repo.run("checkout", "-q", "feat")
    ok(repo.run("pack-refs", "--all", "--prune"))
    assert repo.rev("main") == before
    # protection still holds after packing
    assert refused(repo.run("branch", "-f", "main", "feat", check=False))
    assert refused(repo.run("branch", "-D", "main", check=False))
    assert repo.rev("main") == before


def test_everyday_commands_on_main(guarded, tmp_path):
    repo, bare = guarded
    with open(os.path.join(repo.path, "initial.txt"), "a") as fh:
        fh.write("edit\n")
    ok(repo.run("add", "initial.txt"))
    ok(repo.run("reset", "-q"))
    ok(repo.run("reset", "-q", "--hard"))
    with open(os.path.join(repo.path, "initial.txt"), "a") as fh:
        fh.write("stash me\n")
    ok(repo.run("stash", "-q"))
    ok(repo.run("stash", "pop", "-q"))
    ok(repo.run("stash", "-q"))
    ok(repo.run("stash", "drop", "-q"))
    ok(repo.run("switch", "-q", "feat"))
    ok(repo.run("checkout", "-q", "main"))
    ok(repo.run("checkout", "-q", "--detach"))
    ok(repo.run("checkout", "-q", "main"))
    ok(repo.run("tag", "v1"))
    ok(repo.run("tag", "-a", "-m", "annotated", "v2"))
    ok(repo.run("push", "-q", "origin", "v1", "v2"))
    ok(repo.run("tag", "-d", "v1"))
    wt = str(tmp_path / "wt")
    ok(repo.run("worktree", "add", "-q", "-b", "wt-branch", wt))
    Git(wt, repo.env).commit("in a worktree")
    ok(repo.run("worktree", "remove", "--force", wt))
    clone = str(tmp_path / "clone")
    ok(repo.run("clone", "-q", repo.path, clone, cwd=str(tmp_path)))
    ok(repo.run("branch", "main-docs"))
    ok(repo.run("checkout", "-q", "main-docs"))
    repo.commit("docs")  # names that merely contain a protected name are not protected


@pytest.mark.parametrize("name", ["main-docs", "feature/main", "maint", "mainline", "MAIN", "xmaster"])
def test_names_that_contain_a_protected_name(guarded, name):
    repo, bare = guarded
    repo.run("checkout", "-q", "-b", name)
    repo.commit("work on " + name.replace("/", "-"))
    ok(repo.run("push", "-q", "origin", "%s:%s" % (name, name)))
    ok(repo.run("push", "-q", "origin", "HEAD:refs/heads/%s" % name, "--force"))
    ok(repo.run("branch", "-f", "tmp-" + name.replace("/", "-"), "HEAD"))


def test_checkout_of_a_missing_main_from_origin(make_repo):
    repo, bare = make_repo()
    repo.run("checkout", "-q", "-b", "other")
    repo.run("branch", "-D", "main", check=False)  # refused: main exists
    assert "main" in repo.branches()
    clone_dir = os.path.join(os.path.dirname(repo.path), "fresh")
    subprocess.run(["git", "clone", "-q", bare.path, clone_dir], env=repo.env, check=True)
    fresh = Git(clone_dir, repo.env)
    fresh.run("checkout", "-q", "-b", "topic")
    fresh.run("branch", "-D", "main")  # not guarded yet
    fresh.agentguard("install")
    ok(fresh.run("checkout", "-q", "main"))  # DWIM from origin/main: on its counterpart
    assert fresh.rev("main") == fresh.rev("origin/main")


def test_empty_repository_first_commit(tmp_path, env):
    path = tmp_path / "empty"
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], env=env, check=True)
    repo = Git(str(path), env)
    repo.agentguard("install")
    ok(repo.commit("first"))  # nothing to protect yet (docs/policy.md: "Empty repositories")
    first = repo.rev("main")
    proc = repo.run("commit", "--allow-empty", "-m", "second", check=False)
    assert refused(proc)
    assert repo.rev("main") == first
