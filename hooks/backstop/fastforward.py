"""A refused fast-forward (``git merge``, ``git pull``): git has already checked out the new commit's
files when the branch update reaches reference-transaction, and there is no merge in progress for
``git merge --abort`` to end. So the hook takes the fast-forward's changes back out itself with git's
own two-way merge from the new commit back to the old (``git read-tree -m -u NEW OLD``: the index and
the work tree as they were, staged and unstaged changes of one's own kept), and says so."""
from .. import gitio
from .. import rules

CMDS = ("merge", "pull")


def undo(state, refusal, call):
    """Put the index and work tree back after ``refusal`` of a fast-forward of HEAD's branch."""
    if call is None or call.cmd not in CMDS or refusal.rule != "protected-move" or len(refusal.refs) != 1:
        return
    ref, old, new = refusal.refs[0]
    if ref != "refs/heads/%s" % state.head_branch() or not old or old.strip("0") == "" or \
            not state.is_ancestor(old, new):
        return
    rc, _ = gitio.run(["rev-parse", "-q", "--verify", "MERGE_HEAD"], cwd=state.cwd)
    if rc == 0:
        return  # a merge commit: `git merge --abort` ends it (the step the refusal already names)
    rc, _ = gitio.run(["read-tree", "-m", "-u", new, old], cwd=state.cwd)
    if rc == 0:
        refusal.why += "; the fast-forward's files were taken back out: your index and work tree are as before"
        refusal.steps = ["git push -u origin <the-branch-you-merged>   # then open a pull request"]
    else:
        refusal.steps = ["git reset --merge   # takes the fast-forward's files back out; unstaged changes stay"] \
            + rules.branch_work_steps()
