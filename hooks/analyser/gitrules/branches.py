"""Commands that create, move, rename or delete branches and refs."""
import os

from ...guardpaths import real
from ...rules import Block
from ..repoview import UNKNOWN
from ..shelltree import DYN
from .context import NewWorktree

_DELETE = ("-d", "-D", "--delete")
_MOVE = ("-m", "-M", "-c", "-C")  # --move and --copy are -m and -c
_COPY = ("-c", "-C")


def branch(call, ctx):
    words = call.words()
    repo = ctx.repo
    deleting = call.has(*_DELETE)
    if any(DYN in p for p in words):
        if deleting or call.has(*_MOVE) or call.has("-f") or words:
            raise Block("unanalysable", "a variable names a branch")
    if call.has("-r") and deleting:
        return  # deleting remote-tracking refs unlocks nothing
    if not deleting and call.has("-r", "--list", "-a", "--show-current", "--edit-description",
                                 "--set-upstream-to", "--unset-upstream", "-v"):
        return
    if deleting:
        for name in words:
            if repo.protected(name):
                raise Block("protected-delete", name)
        return
    if call.has(*_MOVE):
        copying = call.has(*_COPY)
        old = words[0] if len(words) >= 2 else ctx.branch_or_block("the rename")
        new = words[-1] if words else None
        if new and repo.protected(new):
            raise Block("rename-onto-protected", new)
        if not copying and repo.protected(old):
            raise Block("protected-delete", old)
        if not copying and old == ctx.branch and new:
            ctx.set_branch(new)
        return
    if words and repo.protected(words[0]):
        start = words[1] if len(words) > 1 else "HEAD"
        if words[0] in repo.local_branches() and not call.has("-f"):
            return  # git refuses to overwrite an existing branch without -f
        if DYN in start or not repo.rev_on_counterpart(start, words[0]):
            raise Block("protected-move", words[0])


def checkout(call, ctx):
    _switch(call, ctx, create=("-b",), force=("-B",))


def switch(call, ctx):
    _switch(call, ctx, create=("-c",), force=("-C",))


def _switch(call, ctx, create, force):
    repo = ctx.repo
    new = None
    for option in call.options:
        for kind in create + force + ("--orphan",):
            if call.is_option(option, kind) and option.value is not None:
                new = (kind, option.value)
    words = call.words()
    if new:
        kind, name = new
        if DYN in name:
            raise Block("unanalysable", "a variable names the new branch")
        start = words[0] if words else "HEAD"
        if repo.protected(name) and kind != "--orphan":
            if DYN in start or not repo.rev_on_counterpart(start, name):
                raise Block("protected-move", name)
        ctx.set_branch(name)
        return
    if not words:
        if call.has("--detach"):
            ctx.set_branch(None)
        return
    target = words[0]
    if DYN in target or target == "-" or target.startswith("@{-"):
        ctx.set_branch(UNKNOWN)
    elif call.has("--detach"):
        ctx.set_branch(None)
    elif target in repo.local_branches():
        ctx.set_branch(target)
    elif any(r.startswith("refs/remotes/") and r.endswith("/" + target) for r in repo.refs()):
        ctx.set_branch(target)  # DWIM: creates the branch from its remote counterpart
    elif len(words) == 1 and call.dashdash is None and not os.path.exists(os.path.join(ctx.state.cwd, target)):
        ctx.set_branch(None)  # a commit or tag: detached


def worktree(call, ctx):
    if call.sub != "add":
        return
    words = call.words()
    if words and DYN not in words[0] and ctx.state.cwd is not None:
        path = os.path.join(ctx.state.cwd, words[0])
        ctx.analyser.add_repository(path, NewWorktree(ctx.repo, real(path), _worktree_branch(call, words, ctx)))
    for kind in ("-b", "-B"):
        name = call.value(kind)
        if name is None:
            continue
        start = words[1] if len(words) > 1 else "HEAD"
        if DYN in name or (ctx.repo.protected(name) and not ctx.repo.rev_on_counterpart(start, name)):
            raise Block("protected-move", name)


def update_ref(call, ctx):
    no_deref = call.has("--no-deref")
    if call.has("--stdin"):
        text = ctx.state.stdin_text
        if text is None:
            raise Block("unanalysable", "git update-ref --stdin reads refs we cannot see")
        for line in text.splitlines():
            parts = line.split()
            if parts and parts[0] in ("update", "create", "delete") and len(parts) > 1:
                _ref_write(parts[1], parts[2] if len(parts) > 2 and parts[0] != "delete" else None,
                           parts[0] == "delete", no_deref, ctx)
        return
    words = call.words()
    if not words:
        return
    deleting = call.has("-d")
    _ref_write(words[0], words[1] if len(words) > 1 and not deleting else None, deleting, no_deref, ctx)


def _ref_write(ref, new, delete, no_deref, ctx):
    repo = ctx.repo
    if DYN in ref or (new is not None and DYN in new):
        raise Block("unanalysable", "a variable in git update-ref")
    if ref in ("HEAD", "@") and not no_deref:
        current = ctx.branch_or_block("git update-ref HEAD")
        ref = "refs/heads/%s" % current if current else ref
    kind = repo.policy.classify(ref) if ref.startswith("refs/") else None
    if not kind:
        return
    if kind[0] == "remote":
        if not delete:
            raise Block("remote-tracking-forge", ref)
        return
    if delete:
        raise Block("protected-delete", kind[1])
    if new is None or not repo.rev_on_counterpart(new, kind[1]):
        raise Block("protected-move", kind[1])


def symbolic_ref(call, ctx):
    words = call.words()
    if len(words) < 2:
        return
    name, target = words[0], words[1]
    if name == "HEAD":
        if target.startswith("refs/heads/"):
            ctx.set_branch(target[len("refs/heads/"):])
        return
    kind = ctx.repo.policy.classify(name)
    if kind:
        raise Block("protected-move", kind[-1])


def rewrite_all(call, ctx):
    """filter-branch and filter-repo rewrite the current branch, or every branch with --all."""
    current = ctx.branch
    if "--all" in call.args or ctx.repo.protected(current) or any(ctx.repo.protected(a) for a in call.args):
        raise Block("protected-move", current if isinstance(current, str) else "all branches")


def _worktree_branch(call, words, ctx):
    """The branch `git worktree add` checks out in the new worktree (None: detached)."""
    if call.has("--detach", "-d"):
        return None
    for kind in ("-b", "-B"):
        if call.value(kind) is not None:
            return call.value(kind)
    if len(words) < 2:
        return os.path.basename(os.path.normpath(words[0]))  # git names the branch after the directory
    name = words[1]
    if DYN in name:
        return UNKNOWN
    return name if name in ctx.repo.local_branches() or ctx.repo.protected(name) else None


def reflog(call, ctx):
    """``git reflog delete|expire --updateref`` sets the branch to an older reflog entry, with no hook."""
    if call.sub not in ("delete", "expire") or not call.has("--updateref"):
        return
    if call.has("--all") or not call.words():
        raise Block("protected-move", "every branch (git reflog --updateref)")
    for word in call.words():
        name = word.split("@{", 1)[0]
        branch = name[len("refs/heads/"):] if name.startswith("refs/heads/") else name
        if DYN in word or not branch or branch == "HEAD" or ctx.repo.protected(branch):
            raise Block("protected-move", branch or "HEAD")
