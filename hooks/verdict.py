"""The analyser's verdicts: one constant-shaped sentence per rule, naming the right path."""
from .textsafe import safe

NEW = "<new-branch>"

# rule -> (what is blocked, the right path). ``{0}`` is filled with an escaped detail.
TEXT = {
    "no-verify": ("skipping git hooks ({0})", "let the hooks run; if one refuses, fix the cause or work on a branch and open a pull request"),
    "hooks-path": ("{0}, which switches git's hooks off", "leave core.hooksPath as it is"),
    "hook-skip-env": ("{0}, which turns hooks off", "run the command without it"),
    "commit-on-protected": ("a commit on protected branch '{0}'", "git switch -c %s, commit there, push it and open a pull request" % NEW),
    "merge-on-protected": ("merging into protected branch '{0}'", "merge on a branch (git switch -c %s) and open a pull request" % NEW),
    "rebase-protected": ("rebasing protected branch '{0}'", "rebase a branch instead (git switch -c %s) and open a pull request" % NEW),
    "protected-move": ("moving protected branch '{0}'", "put the work on a branch (git switch -c %s), push it and open a pull request" % NEW),
    "protected-delete": ("deleting or renaming protected branch '{0}'", "protected branches change on the server, through pull requests"),
    "rename-onto-protected": ("renaming or copying a branch onto protected branch '{0}'", "push the branch as it is and open a pull request"),
    "remote-tracking-forge": ("writing remote-tracking ref '{0}' by hand", "git fetch brings the remote's real branches"),
    "push-protected": ("a push that would update protected branch '{0}'", "git push -u origin HEAD:%s, then open a pull request" % NEW),
    "push-mirror": ("a mirror or --all push ({0})", "push the branches you mean, one by one"),
    "guard-files": ("changing the git guard's own files ({0})", "leave the hooks, the runtime, the policy and the adapters alone; ask the user"),
    "ref-files": ("writing git refs by hand ({0})", "use git commands on a branch; protected branches change through pull requests"),
    "guard-removal": ("{0}", "only the user uninstalls or re-scopes agentguard"),
    "unanalysable": ("a command that involves git or the guard but cannot be analysed ({0})", "run the git command directly, with literal arguments"),
    "guard-error": ("this command, because agentguard could not check it ({0})", "run `agentguard doctor`; until then, work on a branch"),
}


class Block(Exception):
    def __init__(self, rule, detail=""):
        Exception.__init__(self, rule)
        self.rule = rule
        self.detail = safe(detail, 120)

    def reason(self):
        what, path = TEXT[self.rule]
        return "agentguard: blocked %s [rule: %s]. Instead: %s." % (what.format(self.detail), self.rule, path)
