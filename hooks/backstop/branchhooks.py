"""pre-commit, pre-merge-commit and pre-rebase: refuse before any object or state is made.

These are the early, kind refusals (the staged work is untouched, nothing is left in progress);
reference-transaction stays the backstop for everything they cannot see (``--no-verify``...).
"""
from .. import rules
from .. import gitio
from ..textsafe import safe


def _protected_head(state, policy):
    branch = state.head_branch()
    if branch is None or not policy.is_protected(branch):
        return None
    if state.current("refs/heads/" + branch) is None and state.is_empty():
        return None  # the first commit of an empty repository (docs/policy.md: "Empty repositories")
    return branch


def decide_commit(state, policy, hook):
    branch = _protected_head(state, policy)
    if branch is None:
        return None
    b = safe(branch, 80)
    if hook == "pre-merge-commit":
        return rules.Refusal("merge-on-protected", "a merge commit on protected branch '%s'" % b,
                             "work reaches '%s' through a pull request" % b,
                             [rules.ABORT_STEP["merge"]] + rules.branch_work_steps())
    return rules.Refusal("commit-on-protected", "a commit on protected branch '%s'" % b,
                         "work reaches '%s' through a branch and a pull request" % b, rules.branch_work_steps())


def decide_rebase(state, policy, args):
    branch = args[1] if len(args) > 1 and args[1] else state.head_branch()
    if not branch or not policy.is_protected(branch):
        return None
    upstream = args[0] if args and args[0] else None
    if upstream is not None:
        rc, out = gitio.run(["rev-parse", "-q", "--verify", upstream + "^{commit}"], cwd=state.cwd)
        oid = out.decode("ascii", "replace").strip()
        if rc == 0 and state.on_counterpart(oid, branch):
            return None  # e.g. `git pull --rebase`: the result is decided by reference-transaction
    else:
        return None
    b = safe(branch, 80)
    return rules.Refusal("rebase-protected", "rebasing protected branch '%s' onto %s" % (b, safe(upstream, 80)),
                         "that would put commits on '%s' that its remote counterpart does not have" % b,
                         ["git switch -c %s %s   # rebase a new branch instead" % (rules.NEW_BRANCH, b),
                      "git rebase %s" % safe(upstream, 80)])
