"""Commands that write history on the current branch: commit, merge, pull, rebase, cherry-pick,
revert, am, reset."""
from ...rules import Block
from ..shelltree import DYN
from ...gitmodel import refnames


def commit(call, ctx):
    branch = ctx.branch_or_block("the commit")
    if ctx.repo.protected(branch):
        if ctx.repo.unborn_repo() and branch == ctx.repo.head_branch():
            return
        raise Block("commit-on-protected", branch)


def merge(call, ctx):
    if call.has("--abort", "--continue", "--quit"):
        return
    branch = ctx.branch_or_block("the merge")
    if ctx.repo.protected(branch) and not ctx.sync_only(branch, call.words()):
        raise Block("merge-on-protected", branch)


def pull(call, ctx):
    branch = ctx.branch_or_block("the pull")
    if not ctx.repo.protected(branch):
        return
    for text in call.words()[1:]:
        spec = refnames.Refspec(text)
        if DYN in text or not refnames.names_branch(spec.src, branch):
            raise Block("merge-on-protected", branch)


def rebase(call, ctx):
    if call.has("--abort", "--continue", "--skip", "--quit", "--edit-todo", "--show-current-patch"):
        return
    words = call.words()
    target = words[1] if len(words) > 1 else ctx.branch_or_block("the rebase")
    if DYN in str(target):
        raise Block("unanalysable", "a variable names the branch to rebase")
    if not ctx.repo.protected(target):
        return
    if call.has("--root") or not ctx.sync_only(target, words[:1] + call.values("--onto")):
        raise Block("rebase-protected", target)


def pick(call, ctx):
    """cherry-pick, revert, am: each makes commits on the current branch."""
    if call.has("--abort", "--continue", "--skip", "--quit") or (call.cmd != "am" and call.has("--no-commit")):
        return
    branch = ctx.branch_or_block("the %s" % call.cmd)
    if ctx.repo.protected(branch):
        raise Block("commit-on-protected", branch)


def reset(call, ctx):
    words = call.words()
    if call.dashdash is not None or len(words) > 1:
        return  # resets paths in the index, not the branch
    branch = ctx.branch_or_block("the reset")
    if not ctx.repo.protected(branch) or not words or words[0] in ("HEAD", "@"):
        return
    if DYN in words[0] or not ctx.repo.rev_on_counterpart(words[0], branch):
        raise Block("protected-move", branch)
