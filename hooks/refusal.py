"""Refusals: what was refused, under which rule, and the exact commands to carry on.

Every message has the same shape::

    agentguard: refused <what> [rule: <rule>]
      <why>
      To carry on:
        <command>
        ...

Anything taken from the repository or a command line is passed through ``textsafe.safe``.
"""
import re

from .textsafe import safe

_COMMENT = re.compile(r"\s{2,}# ")

NEW_BRANCH = "<new-branch>"

# rule id -> what it protects, one line (also used by the doctor and the docs)
RULES = {
    "commit-on-protected": "no commit is made on a protected branch",
    "merge-on-protected": "no merge commit is made on a protected branch",
    "rebase-protected": "a protected branch is not rebased onto local work",
    "protected-move": "a protected branch moves only to commits already on its remote counterpart",
    "protected-delete": "a protected branch is not deleted or renamed away",
    "protected-symref": "a protected branch is not turned into a symbolic ref",
    "remote-tracking-forge": "remote-tracking refs of protected branches move only by fetch and push",
    "rename-onto-protected": "no branch is renamed or copied onto a protected branch",
    "push-protected": "no push lands on a protected branch",
    "push-mirror": "mirror pushes are refused (their deletions are invisible to hooks)",
    "unreadable-input": "input the guard cannot read is refused where a protected ref may be at stake",
    "guard-broken": "when the guard itself cannot decide, protected updates are refused",
}


class Refusal:
    def __init__(self, rule, what, why, steps, refs=()):
        self.rule = rule
        self.what = what
        self.why = why
        self.steps = list(steps)
        # (ref, old, new) for the audit log; RefUpdate items are (old, new, ref)
        self.refs = [(r.ref, r.old, r.new) if hasattr(r, "ref") else tuple(r) for r in refs]

    def render(self):
        lines = ["agentguard: refused %s [rule: %s]" % (self.what, self.rule), "  " + self.why]
        if self.steps:
            lines.append("  To carry on:")
            split = [_COMMENT.split(step, 1) for step in self.steps]
            width = max(len(parts[0]) for parts in split)
            for parts in split:
                lines.append("    " + (parts[0].ljust(width) + "  # " + parts[1] if len(parts) == 2 else parts[0]))
        return "\n".join(lines) + "\n"


def branch_work_steps(remote="origin"):
    """The right path for new work: a branch, a push, a pull request."""
    return [
        "git switch -c %s          # your staged and unstaged work comes along" % NEW_BRANCH,
        "git commit ...",
        "git push -u %s %s   # then open a pull request" % (safe(remote, 60), NEW_BRANCH),
    ]


def keep_commit_steps(oid, remote="origin"):
    """For a commit object that was made but not kept (``--no-verify``, ``commit-tree``...)."""
    return [
        "git branch %s %s   # keep the commit that was refused" % (NEW_BRANCH, safe(oid, 80)),
        "git switch %s" % NEW_BRANCH,
        "git push -u %s %s   # then open a pull request" % (safe(remote, 60), NEW_BRANCH),
    ]


# Commands that leave an operation in progress when their final ref update is refused.
ABORT_STEP = {
    "rebase": "git rebase --abort            # the rebase is still in progress; this ends it",
    "merge": "git merge --abort             # undo the refused merge",
    "pull": "git merge --abort             # undo the refused merge (or: git rebase --abort)",
    "cherry-pick": "git cherry-pick --abort       # undo the refused cherry-pick",
    "revert": "git revert --abort            # undo the refused revert",
    "am": "git am --abort                # undo the refused patch series",
}
