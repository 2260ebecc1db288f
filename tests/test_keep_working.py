"""Every "must keep working" line: ordinary work flows with the backstop installed."""
import os
import subprocess

import pytest

from helpers import Git, refused, succeeded_silently, upstream_advance


@pytest.fixture
def install_args():
    """Every layer on, as a user gets them (issue #25): every harness's adapter besides the backstop."""
    return ["--harness", "all"]



def test_feature_branch_life_cycle(guarded):
    repo, bare = guarded
    repo.run("checkout", "-q", "feat")
    repo.commit("more work")
    succeeded_silently(repo.run("commit", "--amend", "--no-edit", "-q"))
    succeeded_silently(repo.run("commit", "--amend", "--no-edit", "-q", "--no-verify"))
    succeeded_silently(repo.run("push", "-q", "-u", "origin", "feat"))
    succeeded_silently(repo.run("commit", "--amend", "-q", "-m", "reworded"))
    succeeded_silently(repo.run("push", "-q", "--force", "origin", "feat"))
    succeeded_silently(repo.run("push", "-q", "--force-with-lease", "origin", "+feat:feat"))
    assert bare.rev("feat") == repo.rev("feat")
    succeeded_silently(repo.run("push", "-q", "origin", "--delete", "feat"))
    assert bare.rev("refs/heads/feat") is None
    succeeded_silently(repo.run("checkout", "-q", "-b", "throwaway"))
    succeeded_silently(repo.run("checkout", "-q", "feat"))
    succeeded_silently(repo.run("branch", "-D", "throwaway"))
    succeeded_silently(repo.run("branch", "-m", "feat", "feature/renamed"))
    succeeded_silently(repo.run("branch", "-M", "feature/renamed", "feat"))
    succeeded_silently(repo.run("branch", "-c", "feat", "copy"))


def test_rebase_feature_onto_advanced_main(guarded, tmp_path, env):
    repo, bare = guarded
    upstream_advance(bare, env, tmp_path)
    succeeded_silently(repo.run("fetch", "-q", "origin"))
    repo.run("checkout", "-q", "feat")
    for i in range(5):
        repo.commit("feat %d" % i)
    succeeded_silently(repo.run("rebase", "-q", "origin/main"))
    succeeded_silently(repo.run("rebase", "-q", "-i", "--exec", "true", "origin/main"))
    succeeded_silently(repo.run("rebase", "-q", "-i", "HEAD~3",
                                env=dict(repo.env, GIT_SEQUENCE_EDITOR="sed -i 2s/^pick/fixup/")))
    succeeded_silently(repo.run("merge", "-q", "--no-edit", "origin/main"))
    succeeded_silently(repo.run("merge", "-q", "--no-ff", "--no-edit", "main"))
    assert repo.rev("main") != repo.rev("feat")


def test_sync_main_from_upstream(guarded, tmp_path, env):
    repo, bare = guarded
    new = upstream_advance(bare, env, tmp_path, "one")
    succeeded_silently(repo.run("pull", "-q", "--ff-only"))
    assert repo.rev("main") == new
    new = upstream_advance(bare, env, tmp_path, "two")
    succeeded_silently(repo.run("fetch", "-q", "origin"))
    succeeded_silently(repo.run("merge", "-q", "--ff-only", "origin/main"))
    assert repo.rev("main") == new
    new = upstream_advance(bare, env, tmp_path, "three")
    succeeded_silently(repo.run("fetch", "-q"))
    succeeded_silently(repo.run("reset", "-q", "--hard", "origin/main"))
    assert repo.rev("main") == new
    new = upstream_advance(bare, env, tmp_path, "four")
    repo.run("checkout", "-q", "feat")
    succeeded_silently(repo.run("fetch", "-q", "origin", "main:main"))
    assert repo.rev("main") == new
    new = upstream_advance(bare, env, tmp_path, "five")
    repo.run("checkout", "-q", "main")
    succeeded_silently(repo.run("pull", "-q", "--rebase"))
    assert repo.rev("main") == new
    succeeded_silently(repo.run("pull", "-q", "--ff-only"))  # already up to date


def test_gc_and_pack_refs(guarded):
    repo, bare = guarded
    before = repo.rev("main")
    succeeded_silently(repo.run("pack-refs", "--all"))
    succeeded_silently(repo.run("gc", "-q"))
    repo.run("checkout", "-q", "feat")
    succeeded_silently(repo.run("pack-refs", "--all", "--prune"))
    assert repo.rev("main") == before
    # protection still holds after packing
    assert refused(repo.run("branch", "-f", "main", "feat", check=False))
    assert refused(repo.run("branch", "-D", "main", check=False))
    assert repo.rev("main") == before


def test_everyday_commands_on_main(guarded, tmp_path):
    repo, bare = guarded
    with open(os.path.join(repo.path, "initial.txt"), "a") as fh:
        fh.write("edit\n")
    succeeded_silently(repo.run("add", "initial.txt"))
    succeeded_silently(repo.run("reset", "-q"))
    succeeded_silently(repo.run("reset", "-q", "--hard"))
    with open(os.path.join(repo.path, "initial.txt"), "a") as fh:
        fh.write("stash me\n")
    succeeded_silently(repo.run("stash", "-q"))
    succeeded_silently(repo.run("stash", "pop", "-q"))
    succeeded_silently(repo.run("stash", "-q"))
    succeeded_silently(repo.run("stash", "drop", "-q"))
    succeeded_silently(repo.run("switch", "-q", "feat"))
    succeeded_silently(repo.run("checkout", "-q", "main"))
    succeeded_silently(repo.run("checkout", "-q", "--detach"))
    succeeded_silently(repo.run("checkout", "-q", "main"))
    succeeded_silently(repo.run("tag", "v1"))
    succeeded_silently(repo.run("tag", "-a", "-m", "annotated", "v2"))
    succeeded_silently(repo.run("push", "-q", "origin", "v1", "v2"))
    succeeded_silently(repo.run("tag", "-d", "v1"))
    wt = str(tmp_path / "wt")
    succeeded_silently(repo.run("worktree", "add", "-q", "-b", "wt-branch", wt))
    Git(wt, repo.env).commit("in a worktree")
    succeeded_silently(repo.run("worktree", "remove", "--force", wt))
    clone = str(tmp_path / "clone")
    succeeded_silently(repo.run("clone", "-q", repo.path, clone, cwd=str(tmp_path)))
    succeeded_silently(repo.run("branch", "main-docs"))
    succeeded_silently(repo.run("checkout", "-q", "main-docs"))
    repo.commit("docs")  # names that merely contain a protected name are not protected


@pytest.mark.parametrize("name", ["main-docs", "feature/main", "maint", "mainline", "MAIN", "xmaster"])
def test_names_that_contain_a_protected_name(guarded, name):
    repo, bare = guarded
    repo.run("checkout", "-q", "-b", name)
    repo.commit("work on " + name.replace("/", "-"))
    succeeded_silently(repo.run("push", "-q", "origin", "%s:%s" % (name, name)))
    succeeded_silently(repo.run("push", "-q", "origin", "HEAD:refs/heads/%s" % name, "--force"))
    succeeded_silently(repo.run("branch", "-f", "tmp-" + name.replace("/", "-"), "HEAD"))


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
    succeeded_silently(fresh.run("checkout", "-q", "main"))  # DWIM from origin/main: on its counterpart
    assert fresh.rev("main") == fresh.rev("origin/main")


def test_empty_repository_first_commit(tmp_path, env):
    path = tmp_path / "empty"
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], env=env, check=True)
    repo = Git(str(path), env)
    repo.agentguard("install")
    succeeded_silently(repo.commit("first"))  # nothing to protect yet (docs/policy.md: "Empty repositories")
    first = repo.rev("main")
    proc = repo.run("commit", "--allow-empty", "-m", "second", check=False)
    assert refused(proc)
    assert repo.rev("main") == first
