"""The analyser's git rules, one module per command family, all on the shared git model.

The dispatch table comes first: which family judges which command. ``check_git`` parses the
words after ``git`` (global options, ``-c``, aliases), then hands the parsed ``GitCall`` to the
family's rule.
"""
import importlib

from ...gitmodel import cli
from ...bypass import SKIPPING_CMDS
from ...rules import Block
from ..shellparse import DYN, Word
from .context import GitContext  # noqa: F401  (the analyser builds it)

# command -> (family module, rule). Families are imported when a command of theirs is judged: a
# decision imports only what it needs (`agentguard check` runs on every tool call).
HANDLERS = {
    # history written on the current branch
    "commit": ("commits", "commit"), "merge": ("commits", "merge"), "pull": ("commits", "pull"),
    "rebase": ("commits", "rebase"), "cherry-pick": ("commits", "pick"), "revert": ("commits", "pick"),
    "am": ("commits", "pick"), "reset": ("commits", "reset"),
    # branches and refs
    "branch": ("branches", "branch"), "checkout": ("branches", "checkout"), "switch": ("branches", "switch"),
    "worktree": ("branches", "worktree"), "update-ref": ("branches", "update_ref"),
    "symbolic-ref": ("branches", "symbolic_ref"), "filter-branch": ("branches", "rewrite_all"),
    "filter-repo": ("branches", "rewrite_all"),
    # remotes
    "fetch": ("remote", "fetch"), "push": ("remote", "push"),
    # the guard's files
    "rm": ("paths", "paths"), "mv": ("paths", "paths"), "restore": ("paths", "paths"),
    # hooks and aliases
    "config": ("config", "config"),
}


def handler_for(cmd):
    """The rule that judges ``cmd``, or None."""
    found = HANDLERS.get(cmd)
    if found is None:
        return None
    module = importlib.import_module("." + found[0], __name__)
    return getattr(module, found[1])


# Builtins cannot be shadowed by aliases.
BUILTINS = set("""add am annotate apply archive bisect blame branch bundle cat-file check-attr check-ignore
check-mailmap check-ref-format checkout checkout-index cherry cherry-pick citool clean clone column commit
commit-graph commit-tree config count-objects credential describe diff diff-files diff-index diff-tree
difftool fast-export fast-import fetch fetch-pack filter-branch fmt-merge-msg for-each-ref for-each-repo
format-patch fsck gc get-tar-commit-id grep gui hash-object help hook index-pack init interpret-trailers
log ls-files ls-remote ls-tree mailinfo mailsplit maintenance merge merge-base merge-file merge-index
merge-tree mktag mktree multi-pack-index mv name-rev notes pack-objects pack-refs patch-id prune
prune-packed pull push range-diff read-tree rebase receive-pack reflog refs remote repack replace
request-pull rerere reset restore rev-list rev-parse revert rm send-pack shortlog show show-branch
show-index show-ref sparse-checkout stash status stripspace submodule switch symbolic-ref tag
unpack-file unpack-objects update-index update-ref update-server-info upload-archive upload-pack
var verify-commit verify-pack verify-tag version whatchanged worktree write-tree""".split())

CURRENT_BRANCH_SUBS = (("branch", "--show-current"), ("rev-parse", "--abbrev-ref", "HEAD"),
                       ("symbolic-ref", "--short", "HEAD"), ("symbolic-ref", "--short", "-q", "HEAD"))


def check_git(words, ctx, depth=0):
    """``words``: shell Words after ``git`` (or ``git-<cmd>``'s argv)."""
    if depth > 8:
        raise Block("unanalysable", "aliases nested too deeply")
    call = cli.parse_after_git([w.text for w in words], ctx.ag_home)
    for key, value in call.config:
        if key == "core.hookspath":
            raise Block("hooks-path", "git -c core.hooksPath")
        if key.startswith("alias."):
            ctx.state.aliases[key[len("alias."):]] = value or ""
    for g in call.globals:
        if DYN in g:
            raise Block("unanalysable", "a variable in git's global options")
    if call.cmd in ("push", "pull", "fetch") and any(k.startswith(("remote.", "push.", "branch.", "url."))
                                                     for k, _ in call.config):
        raise Block("unanalysable", "git -c changes where %s goes" % call.cmd)
    cwd = cli.cwd_of(call, ctx.state.cwd)
    if cwd is not ctx.state.cwd:
        ctx = ctx.analyser.context_at(ctx.state, cwd)
    if call.cmd is None:
        return
    if DYN in call.cmd:
        raise Block("unanalysable", "a variable in command position")
    if call.cmd not in BUILTINS:
        alias = ctx.state.aliases.get(call.cmd.lower())
        if alias is None and ctx.repo is not None:
            alias = ctx.repo.alias(call.cmd)
        if alias is not None:
            return _expand_alias(alias, call, words, ctx, depth)
    if call.cmd in SKIPPING_CMDS and call.has("--no-verify"):  # commit's -n is --no-verify in git's table
        raise Block("no-verify", "git %s --no-verify" % call.cmd)
    handler = handler_for(call.cmd)
    if handler and (ctx.repo is not None or call.cmd == "config"):
        handler(call, ctx)


def _expand_alias(alias, call, words, ctx, depth):
    import shlex  # only aliases need it
    rest = call.args
    if alias.startswith("!"):
        shell = alias[1:] + "".join(" " + shlex.quote(a) for a in rest)
        ctx.analyser.check_text(shell, ctx.state, "alias")
        return
    try:
        parts = shlex.split(alias)
    except ValueError:
        raise Block("unanalysable", "alias %s" % call.cmd)
    new = []
    for part in parts:
        w = Word()
        w.text = part
        new.append(w)
    check_git(new + words[len(words) - len(rest):], ctx, depth + 1)

