"""Every "must refuse" line of the backstop: refused, agentguard named, nothing lost."""
import os

import pytest

from helpers import ARGV_READABLE, ZERO, abort_step, assert_refused_and_kept, refused, state


def stage(repo, name="staged.txt"):
    with open(os.path.join(repo.path, name), "w") as fh:
        fh.write("precious work\n")
    repo.run("add", name)


@pytest.mark.parametrize("flags", [[], ["--no-verify"], ["-n"], ["--amend", "--no-edit"],
                                   ["--amend", "--no-edit", "--no-verify"]])
def test_commit_on_main(guarded, flags):
    repo, bare = guarded
    stage(repo)
    before = state(repo, bare)
    proc = repo.run("commit", "-m", "direct to main", *flags, check=False)
    assert_refused_and_kept(proc, repo, bare, before)
    assert repo.staged() == ["staged.txt"], "the staged work must still be staged"
    assert "git switch -c <new-branch>" in proc.stderr or "git branch <new-branch>" in proc.stderr


def test_no_verify_commit_names_the_orphaned_commit(guarded):
    repo, bare = guarded
    stage(repo)
    proc = repo.run("commit", "--no-verify", "-m", "sneaky", check=False)
    assert refused(proc)
    line = [ln for ln in proc.stderr.splitlines() if "git branch <new-branch>" in ln][0]
    sha = line.split()[3]
    assert repo.run("cat-file", "-t", sha).stdout.strip() == "commit"
    repo.run("branch", "rescued", sha)  # the advice works
    assert repo.run("log", "-1", "--format=%s", "rescued").stdout.strip() == "sneaky"


def test_merge_fast_forward_of_local_work(guarded):
    repo, bare = guarded
    before = state(repo, bare)
    assert_refused_and_kept(repo.run("merge", "--ff-only", "feat", check=False), repo, bare, before)
    assert_refused_and_kept(repo.run("merge", "feat", check=False), repo, bare, before)


@pytest.mark.parametrize("cmd", [["merge", "feat"], ["merge", "--ff-only", "feat"], ["pull", "--ff-only", ".", "feat"]])
def test_refused_fast_forward_leaves_index_and_work_tree_as_they_were(guarded, cmd):
    """git checks out the fast-forward's files before the branch update the hook refuses, with no merge
    in progress to abort: the hook takes them back out, and a staged and an unstaged change of one's
    own are kept exactly."""
    repo, bare = guarded
    with open(os.path.join(repo.path, "initial.txt"), "a") as fh:
        fh.write("staged\n")
    repo.run("add", "initial.txt")
    with open(os.path.join(repo.path, "initial.txt"), "a") as fh:
        fh.write("unstaged\n")
    open(os.path.join(repo.path, "mine.txt"), "w").write("untracked\n")
    before = state(repo, bare)
    files = {n: open(os.path.join(repo.path, n)).read() for n in ("initial.txt", "mine.txt")}
    index = repo.run("diff", "--cached").stdout
    proc = repo.run(*cmd, check=False)
    assert_refused_and_kept(proc, repo, bare, before)
    if not ARGV_READABLE:  # which command moves the branch is unknown: the hook changes no file on a guess
        assert "git status" in proc.stderr
        return
    assert "your index and work tree are as before" in proc.stderr
    assert repo.run("diff", "--cached").stdout == index
    assert {n: open(os.path.join(repo.path, n)).read() for n in files} == files
    feat_files = set(repo.run("diff", "--name-only", "main", "feat").stdout.split())
    assert feat_files and not any(os.path.exists(os.path.join(repo.path, f)) for f in feat_files)
    assert "merge --abort" not in proc.stderr


def test_merge_no_ff_onto_main_is_refused_and_names_merge_abort(guarded):
    repo, bare = guarded
    before = state(repo, bare)
    proc = repo.run("merge", "--no-ff", "-m", "merge", "feat", check=False)
    assert_refused_and_kept(proc, repo, bare, before)
    assert "git merge --abort" in proc.stderr


@pytest.mark.parametrize("cmd", [["cherry-pick", "feat"], ["revert", "--no-edit", "HEAD"]])
def test_cherry_pick_and_revert(guarded, cmd):
    repo, bare = guarded
    before = state(repo, bare)
    proc = repo.run(*cmd, check=False)
    assert_refused_and_kept(proc, repo, bare, before)
    assert abort_step(cmd[0]) in proc.stderr


@pytest.mark.parametrize("cmd", [["rebase", "feat"], ["rebase", "-i", "--exec", "true", "feat"],
                                 ["rebase", "feat", "main"]])
def test_rebase_onto_main_is_refused_with_nothing_lost(guarded, cmd):
    repo, bare = guarded
    before = state(repo, bare)
    proc = repo.run(*cmd, check=False)
    assert_refused_and_kept(proc, repo, bare, before)


def test_rebase_rewriting_main_history_is_refused_at_the_end(guarded):
    repo, bare = guarded
    # make main two commits deep on the remote so an interactive rewrite has something to do
    repo.run("checkout", "-q", "feat")
    repo.run("send-pack", bare.path, "refs/heads/feat:refs/heads/main")  # a human bypass to set the scene
    repo.run("fetch", "-q", "origin")
    repo.run("checkout", "-q", "main")
    repo.run("merge", "-q", "--ff-only", "origin/main")
    before = state(repo, bare)
    proc = repo.run("rebase", "-i", "HEAD~1", check=False,
                    env=dict(repo.env, GIT_SEQUENCE_EDITOR="sed -i 1s/^pick/reword/", GIT_EDITOR="sed -i 1s/$/!/"))
    assert_refused_and_kept(proc, repo, bare, before)
    assert abort_step("rebase") in proc.stderr
    repo.run("rebase", "--abort")
    assert repo.rev("main") == before["main"]


def test_pull_no_ff_of_another_branch(guarded):
    repo, bare = guarded
    repo.run("push", "-q", "origin", "feat")
    before = state(repo, bare)
    proc = repo.run("pull", "--no-ff", "--no-edit", "origin", "feat", check=False)
    assert_refused_and_kept(proc, repo, bare, before)


def test_commit_tree_then_update_ref(guarded):
    repo, bare = guarded
    tree = repo.rev("HEAD^{tree}")
    new = repo.run("commit-tree", tree, "-p", "HEAD", "-m", "plumbing").stdout.strip()
    before = state(repo, bare)
    proc = repo.run("update-ref", "refs/heads/main", new, check=False)
    assert_refused_and_kept(proc, repo, bare, before)
    proc = repo.run("update-ref", "HEAD", new, check=False)
    assert_refused_and_kept(proc, repo, bare, before)


@pytest.mark.parametrize("cmd", [
    ["branch", "-f", "main", "feat"],
    ["update-ref", "refs/heads/main", "feat"],
    ["update-ref", "-d", "refs/heads/main"],
    ["branch", "-D", "main"],
    ["branch", "-m", "main", "renamed"],
    ["checkout", "-B", "main", "feat"],
    ["switch", "-C", "main", "feat"],
    ["push", ".", "feat:main"],
    ["fetch", ".", "feat:main"],
])
def test_from_a_feature_branch(guarded, cmd):
    repo, bare = guarded
    repo.run("checkout", "-q", "feat")
    before = state(repo, bare)
    proc = repo.run(*cmd, check=False)
    assert_refused_and_kept(proc, repo, bare, before)
    assert "renamed" not in repo.branches()


def test_update_ref_stdin(guarded):
    repo, bare = guarded
    repo.run("checkout", "-q", "feat")
    before = state(repo, bare)
    feat = repo.rev("feat")
    proc = repo.run("update-ref", "--stdin", input="update refs/heads/main %s\n" % feat, check=False)
    assert_refused_and_kept(proc, repo, bare, before)
    proc = repo.run("update-ref", "--stdin", input="delete refs/heads/main\n", check=False)
    assert_refused_and_kept(proc, repo, bare, before)
    # a transaction mixing a harmless update with a protected one is refused whole
    proc = repo.run("update-ref", "--stdin", check=False,
                    input="update refs/heads/other %s\nupdate refs/heads/main %s\n" % (feat, feat))
    assert_refused_and_kept(proc, repo, bare, before)
    assert repo.rev("refs/heads/other") is None


def test_branch_delete_after_pack_refs(guarded):
    repo, bare = guarded
    repo.run("pack-refs", "--all")
    repo.run("checkout", "-q", "feat")
    before = state(repo, bare)
    assert_refused_and_kept(repo.run("branch", "-D", "main", check=False), repo, bare, before)


def test_branch_M_onto_main_keeps_the_source(guarded):
    repo, bare = guarded
    repo.run("checkout", "-q", "feat")
    before = state(repo, bare)
    proc = repo.run("branch", "-M", "feat", "main", check=False)
    assert_refused_and_kept(proc, repo, bare, before)
    assert "feat" in repo.branches()
    assert repo.run("symbolic-ref", "HEAD").stdout.strip() == "refs/heads/feat"
    proc = repo.run("branch", "-M", "main", check=False)  # rename the current branch
    assert_refused_and_kept(proc, repo, bare, before)


def test_fetch_force_other_branch_into_main(guarded):
    repo, bare = guarded
    repo.run("push", "-q", "origin", "feat:x")
    repo.run("checkout", "-q", "feat")
    before = state(repo, bare)
    proc = repo.run("fetch", "origin", "+x:main", check=False)
    assert_refused_and_kept(proc, repo, bare, before)
    proc = repo.run("fetch", "origin", "+refs/heads/x:refs/heads/main", check=False)
    assert_refused_and_kept(proc, repo, bare, before)


def test_forged_remote_tracking_ref_cannot_unlock_main(guarded):
    repo, bare = guarded
    repo.run("checkout", "-q", "feat")
    repo.run("push", "-q", "origin", "feat")
    before = state(repo, bare)
    origin_main = repo.rev("refs/remotes/origin/main")
    for cmd in (["update-ref", "refs/remotes/origin/main", "feat"],
                ["fetch", ".", "feat:refs/remotes/origin/main"],
                ["fetch", "origin", "feat:refs/remotes/origin/main"]):
        proc = repo.run(*cmd, check=False)
        assert refused(proc), (cmd, proc.stderr)
        assert repo.rev("refs/remotes/origin/main") == origin_main
    assert_refused_and_kept(repo.run("branch", "-f", "main", "feat", check=False), repo, bare, before)


def test_commit_in_linked_worktree_on_main(guarded, tmp_path):
    repo, bare = guarded
    repo.run("checkout", "-q", "feat")
    wt = str(tmp_path / "wt-main")
    repo.run("worktree", "add", "-q", wt, "main")
    before = state(repo, bare)
    with open(os.path.join(wt, "w.txt"), "w") as fh:
        fh.write("x\n")
    repo.run("add", "w.txt", cwd=wt)
    for flags in ([], ["--no-verify"]):
        proc = repo.run("commit", "-m", "in worktree", *flags, cwd=wt, check=False)
        assert_refused_and_kept(proc, repo, bare, before)
    assert repo.run("diff", "--cached", "--name-only", cwd=wt).stdout.split() == ["w.txt"]


PUSHES = [
    ["origin", "feat:main"],
    ["origin", "HEAD:refs/heads/main"],
    ["origin", "+feat:main"],
    ["--force", "origin", "feat:main"],
    ["--force-with-lease", "origin", "feat:main"],
    ["origin", ":main"],
    ["origin", "--delete", "main"],
    ["origin", "feat:main", "feat:other"],
    ["--mirror", "origin"],
    ["origin", "feat:refs/heads/main"],
]


@pytest.mark.parametrize("args", PUSHES, ids=[" ".join(a) for a in PUSHES])
def test_push_to_main_refused(guarded, args):
    repo, bare = guarded
    repo.run("checkout", "-q", "feat")
    remote_before = bare.run("for-each-ref", "--format=%(refname) %(objectname)").stdout
    before = state(repo, bare)
    proc = repo.run("push", *args, check=False)
    assert_refused_and_kept(proc, repo, bare, before)
    assert bare.run("for-each-ref", "--format=%(refname) %(objectname)").stdout == remote_before, \
        "nothing may be pushed, not even the other refspecs"


def test_push_of_main_itself_refused(guarded):
    repo, bare = guarded
    repo.run("checkout", "-q", "feat")
    repo.run("push", "-q", "--no-verify", ".", "feat:refs/heads/tmp")  # no ref-tx on tmp: fine
    repo.run("checkout", "-q", "main")
    repo.run("config", "remote.origin.mirror", "true")
    before = state(repo, bare)
    assert_refused_and_kept(repo.run("push", "origin", check=False), repo, bare, before)


def test_push_to_a_url_is_checked_too(guarded):
    repo, bare = guarded
    repo.run("checkout", "-q", "feat")
    before = state(repo, bare)
    proc = repo.run("push", bare.path, "feat:main", check=False)
    assert_refused_and_kept(proc, repo, bare, before)


def test_refusals_are_audited(guarded):
    repo, bare = guarded
    repo.run("checkout", "-q", "feat")
    repo.run("branch", "-f", "main", "feat", check=False)
    repo.run("push", "origin", "feat:main", check=False)
    import json
    common = repo.run("rev-parse", "--git-common-dir").stdout.strip()
    with open(os.path.join(repo.path, common, "agentguard", "audit.jsonl")) as fh:
        entries = [json.loads(line) for line in fh]
    # the push is judged by the push guard in git's transport (the pre-push hook leaves it to it)
    assert [e["hook"] for e in entries] == ["reference-transaction", "push-guard"]
    assert entries[0]["rule"] == "protected-move"
    assert entries[0]["refs"][0]["ref"] == "refs/heads/main"
    assert entries[0]["refs"][0]["new"] == repo.rev("feat")
    assert entries[1]["rule"] == "push-protected"
    # as git hands it over: on its own connection (#30), the commit for the ref
    assert "push origin %s:refs/heads/main" % repo.rev("feat") in entries[1]["command"]
    if ARGV_READABLE:
        assert "branch -f main feat" in entries[0]["command"]
    else:
        assert entries[0]["command"] == "(unknown)"
    assert all(set(e) >= {"time", "hook", "rule", "refs", "command"} for e in entries)
    assert ZERO not in entries[0]["refs"][0]["new"]
