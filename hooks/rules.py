"""The one vocabulary of refusals: every rule, what it protects, and how a refusal is rendered.

A refusal is data: the rule id, the branch it protects, the refs involved and the calling
command. The backstop's hooks (``Refusal``, a multi-line message with the exact commands to carry
on) and the analyser (``Block``, one sentence an adapter hands its harness) render that data;
the pre-commit entries, the adapters and the doctor read the fields, never the text.
Anything taken from a repository or a command line goes through ``textsafe.safe``.
"""

from .textsafe import safe

NEW_BRANCH = "<new-branch>"


class Rule:
    __slots__ = ("id", "protects", "blocked", "instead")

    def __init__(self, id_, protects, blocked, instead):
        self.id = id_
        self.protects = protects  # one line: what the rule guarantees (the doctor, the docs)
        self.blocked = blocked  # what the analyser blocked; "{0}" is an escaped detail
        self.instead = instead  # the right path, one clause


def _rules(*rows):
    return {row[0]: Rule(*row) for row in rows}


RULES = _rules(
    ("commit-on-protected", "no commit is made on a protected branch",
     "a commit on protected branch '{0}'",
     "git switch -c %s, commit there, push it and open a pull request" % NEW_BRANCH),
    ("merge-on-protected", "no merge commit is made on a protected branch",
     "merging into protected branch '{0}'",
     "merge on a branch (git switch -c %s) and open a pull request" % NEW_BRANCH),
    ("rebase-protected", "a protected branch is not rebased onto local work",
     "rebasing protected branch '{0}'",
     "rebase a branch instead (git switch -c %s) and open a pull request" % NEW_BRANCH),
    ("protected-move", "a protected branch moves only to commits already on its remote counterpart",
     "moving protected branch '{0}'", "put the work on a branch (git switch -c %s), push it and open a pull request"
     % NEW_BRANCH),
    ("protected-delete", "a protected branch is not deleted or renamed away",
     "deleting or renaming protected branch '{0}'", "protected branches change on the server, through pull requests"),
    ("protected-symref", "a protected branch is not turned into a symbolic ref",
     "turning protected branch '{0}' into a symbolic ref", "leave it a plain branch"),
    ("remote-tracking-forge",
     "remote-tracking refs of protected branches move only by fetch and push, from that remote",
     "writing remote-tracking ref '{0}' by hand", "git fetch brings the remote's real branches"),
    ("rename-onto-protected", "no branch is renamed or copied onto a protected branch",
     "renaming or copying a branch onto protected branch '{0}'", "push the branch as it is and open a pull request"),
    ("push-protected", "no push lands on a protected branch",
     "a push that would update protected branch '{0}'",
     "git push -u origin HEAD:%s, then open a pull request" % NEW_BRANCH),
    ("push-mirror", "mirror pushes are refused (their deletions are invisible to hooks)",
     "a mirror or --all push ({0})", "push the branches you mean, one by one"),
    ("unreadable-input", "input the guard cannot read is refused where a protected ref may be at stake",
     "input agentguard cannot read ({0})", "run `agentguard doctor`"),
    ("guard-broken", "when the guard itself cannot decide, protected updates are refused",
     "this command, because agentguard could not check it ({0})",
     "run `agentguard doctor`; until then, work on a branch"),
    ("no-verify", "git's hooks are not skipped",
     "skipping git hooks ({0})",
     "let the hooks run; if one refuses, fix the cause or work on a branch and open a pull request"),
    ("hooks-path", "git's hooks are not switched off or redirected",
     "{0}, which switches git's hooks off", "leave core.hooksPath as it is"),
    ("hook-skip-env", "hook managers are not told to skip their hooks",
     "{0}, which turns hooks off", "run the command without it"),
    ("guard-files", "the hooks, the runtime, the policy and the adapters are not changed by an agent",
     "changing the git guard's own files ({0})",
     "leave the hooks, the runtime, the policy and the adapters alone; ask the user"),
    ("ref-files", "refs are not written by hand",
     "writing git refs by hand ({0})", "use git commands on a branch; protected branches change through pull requests"),
    ("break-glass", "only a person grants a push or move of a protected branch, in their own terminal",
     "{0}", "a person runs `agentguard allow BRANCH` in their own terminal, not through an agent; until then, "
     "push a branch and open a pull request"),
    ("guard-removal", "only the user uninstalls or re-scopes agentguard",
     "{0}", "only the user uninstalls or re-scopes agentguard"),
    ("unanalysable", "a command that involves git or the guard and cannot be read is blocked",
     "a command that involves git or the guard but cannot be analysed ({0})",
     "run the git command directly, with literal arguments"),
    ("guard-error", "when the analyser itself fails, the command is blocked",
     "this command, because agentguard could not check it ({0})",
     "run `agentguard doctor`; until then, work on a branch"),
    ("not-installed", "a clone whose committed harness settings call agentguard, but has no installation, says so",
     "this tool call: the {0} settings in this repository call agentguard, but it is not installed in this clone",
     "run agentguard install here (to get it: pip install . or pipx install . in a clone of agentguard)"),
    ("push-guard", "every push of the repository's remotes goes through the push guard in git's transport",
     "{0}", "push to a configured remote as it is; after adding or changing one, the user runs "
     "`agentguard install` again"),
    ("tool-outcome", "what a tool call did to the guard is undone right after it, and its commits are kept",
     "{0}", "leave the guard alone; work on a branch, push it and open a pull request"),
    ("program-config", "git is not configured to run programs an agent chose",
     "{0}, which makes git run a program", "ask the user to set it"),
    ("remote-config", "protected branches follow only the remotes recorded at install, at their recorded URLs",
     "{0}, which changes a remote that protected branches follow",
     "ask the user; after a change they intend, they run `agentguard install` again"),
    ("server-push-protected", "on a guarded server, only an allowed pusher updates a protected branch",
     "a push to protected branch '{0}' by a pusher who is not allowed",
     "git push -u origin HEAD:%s, then open a pull request" % NEW_BRANCH),
    ("server-rewrite-protected", "on a guarded server, a protected branch only moves forward: no deletion, no rewrite",
     "deleting or rewriting protected branch '{0}'",
     "push the work as a new branch and open a pull request"),
)

# rules that name a protected branch in their detail
BRANCH_RULES = ("commit-on-protected", "merge-on-protected", "rebase-protected", "protected-move", "protected-delete",
                "protected-symref", "rename-onto-protected", "push-protected")

def split_comment(step):
    """``re.split(r"\\s{2,}# ", step, 1)``: a step and its comment, at the first "# " after two or more
    blanks (without ``re``: every refusal of a git hook renders its steps)."""
    k = step.find("# ")
    while k != -1:
        i = k
        while i > 0 and step[i - 1].isspace():
            i -= 1
        if k - i >= 2:
            return [step[:i], step[k + 2:]]
        k = step.find("# ", k + 1)
    return [step]


class Refusal:
    """A backstop refusal: a hook renders it on stderr and records it in the audit log."""

    def __init__(self, rule, what, why, steps, refs=(), branch=None, command=None):
        assert rule in RULES, rule
        self.rule = rule
        self.what = what
        self.why = why
        self.steps = list(steps)
        self.branch = branch
        self.command = command
        # (ref, old, new) for the audit log; RefUpdate items are (old, new, ref)
        self.refs = [(r.ref, r.old, r.new) if hasattr(r, "ref") else tuple(r) for r in refs]

    def render(self):
        lines = ["agentguard: refused %s [rule: %s]" % (self.what, self.rule), "  " + self.why]
        if self.steps:
            lines.append("  To carry on:")
            split = [split_comment(step) for step in self.steps]
            width = max(len(parts[0]) for parts in split)
            for parts in split:
                lines.append("    " + (parts[0].ljust(width) + "  # " + parts[1] if len(parts) == 2 else parts[0]))
        return "\n".join(lines) + "\n"


class Block(Exception):
    """The analyser's refusal of a command: ``rule``, an escaped ``detail`` and, for the branch
    rules, the protected ``branch`` at stake."""

    def __init__(self, rule, detail="", branch=None):
        assert rule in RULES, rule
        Exception.__init__(self, rule)
        self.rule = rule
        self.detail = safe(detail, 120)
        self.branch = branch if branch is not None else (detail if rule in BRANCH_RULES and isinstance(detail, str)
                                                         else None)

    def reason(self):
        rule = RULES[self.rule]
        return "agentguard: blocked %s [rule: %s]. Instead: %s." % (rule.blocked.format(self.detail), self.rule,
                                                                    rule.instead)

    def to_json(self):
        return {"decision": "block", "rule": self.rule, "reason": self.reason(), "branch": self.branch}


def branch_work_steps(remote="origin"):
    """The right path for new work: a branch, a push, a pull request."""
    return [
        "git switch -c %s          # your staged and unstaged work comes along" % NEW_BRANCH,
        "git commit ...",
        "git push -u %s %s   # then open a pull request" % (safe(remote, 60), NEW_BRANCH),
    ]


def guard_broken(reason, what="this update"):
    """The refusal when the guard itself cannot decide (a missing policy file, git not answering, a bug)."""
    return Refusal("guard-broken", "%s: agentguard could not check it" % what,
                   "%s; a protected ref may be at stake, so this is refused" % safe(reason, 200),
                   ["agentguard doctor --fix     # repairs the installation",
                    "agentguard install          # or re-install it"])


def symref_unknown(remote, pushed=None):
    """The refusal when a pushed branch stands at the same commit as a protected branch on ``remote`` and the
    remote cannot be asked whether it is a symbolic ref to it (the push guard names the branch, ``pushed``;
    pre-push cannot)."""
    if pushed is None:
        what, stands = "a push to %s" % safe(remote, 80), "a pushed branch stands where a protected branch stands there"
    else:
        what = "a push to %s on %s" % (safe(pushed, 80), safe(remote, 80))
        stands = "%s stands at the same commit as a protected branch there" % safe(pushed, 80)
    return Refusal("push-protected", what,
                   "%s, and the remote cannot be asked whether it is a symbolic ref to it; nothing was pushed" % stands,
                   ["git push -u %s HEAD:refs/heads/%s   # push to a new branch" % (safe(remote, 60), NEW_BRANCH)])


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
