"""A caller controls its own argv (`exec -a`). Rules that read the calling command line parse it as
git dispatches, and deletions are decided by repository state, so a spoofed argv poses as nothing."""
import shutil
import subprocess

import pytest

from helpers import ARGV_READABLE, need, refused
from helpers import assert_refused_and_kept, state



@pytest.fixture(autouse=True)
def bash():
    need("bash (for exec -a)", shutil.which("bash"))


def spoof(repo, argv0, *args):
    """Run the real git with argv[0] set to ``argv0`` (bash's ``exec -a``)."""
    return subprocess.run(["bash", "-c", 'exec -a "$0" git "$@"', argv0, *args], cwd=repo.path, env=repo.env,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("packed", ["loose", "packed-and-loose", "packed-only"])
@pytest.mark.parametrize("argv0", ["git pack-refs --all", "git gc", "/usr/bin/git pack-refs --all --prune"])
def test_delete_posing_as_pack_refs(guarded, packed, argv0):
    repo, bare = guarded
    if packed == "packed-and-loose":
        repo.run("pack-refs", "--all", "--no-prune")
    elif packed == "packed-only":
        repo.run("pack-refs", "--all")
    repo.run("checkout", "-q", "feat")
    before = state(repo, bare)
    proc = spoof(repo, argv0, "update-ref", "-d", "refs/heads/main")
    assert_refused_and_kept(proc, repo, bare, before)
    # the refusal names the command git really ran (where it can be read: tests/test_platforms.py)
    assert ("update-ref" if ARGV_READABLE else "(git)") in proc.stderr


def test_dashed_argv0_is_what_git_runs(guarded):
    # git dispatches on a dashed argv[0] ("git-pack-refs"): it runs pack-refs with the rest as its
    # arguments, which pack-refs rejects. We read the same words, so nothing can pose as anything.
    repo, bare = guarded
    repo.run("checkout", "-q", "feat")
    before = state(repo, bare)
    proc = spoof(repo, "git-pack-refs", "update-ref", "-d", "refs/heads/main")
    assert proc.returncode != 0
    assert "pack-refs" in proc.stderr and "usage" in proc.stderr.lower()
    assert state(repo, bare) == before


@pytest.mark.parametrize("argv0", ["git fetch origin", "git-fetch", "git push origin"])
def test_remote_tracking_forgery_posing_as_fetch(guarded, argv0):
    repo, bare = guarded
    repo.run("checkout", "-q", "feat")
    before = state(repo, bare)
    origin_main = repo.rev("refs/remotes/origin/main")
    proc = spoof(repo, argv0, "update-ref", "refs/remotes/origin/main", "feat")
    assert proc.returncode != 0
    if argv0 != "git-fetch":  # the dashed form makes git run fetch (from a remote named update-ref)
        assert refused(proc), proc.stderr
    assert repo.rev("refs/remotes/origin/main") == origin_main
    # and main still cannot move to feat through the forged counterpart
    assert_refused_and_kept(repo.run("branch", "-f", "main", "feat", check=False), repo, bare, before)


def test_branch_rename_posing_as_another_command(guarded):
    # `git branch -M feat main` deletes feat and creates main; argv[0] claims a harmless command
    repo, bare = guarded
    repo.run("checkout", "-q", "feat")
    before = state(repo, bare)
    proc = spoof(repo, "git status", "branch", "-M", "feat", "main")
    assert_refused_and_kept(proc, repo, bare, before)
    assert "feat" in repo.branches()
