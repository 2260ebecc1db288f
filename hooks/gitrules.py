"""What a git command would do to protected branches, the hooks and the guard: decided
before it runs. The same rules as the backstop (one policy, one ``gitargv`` parser), plus what
only the tool layer can stop (``--no-verify``, ``core.hooksPath``, aliases that add them)."""
import os

from . import gitargv
from .repoview import UNKNOWN
from .shellparse import DYN
from .verdict import Block

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

NO_VERIFY_CMDS = ("commit", "merge", "pull", "push", "rebase", "am", "cherry-pick", "revert", "worktree",
                  "switch", "checkout")
CURRENT_BRANCH_SUBS = (("branch", "--show-current"), ("rev-parse", "--abbrev-ref", "HEAD"),
                       ("symbolic-ref", "--short", "HEAD"), ("symbolic-ref", "--short", "-q", "HEAD"))
# options (of the commands below) that take a separate value
_VALUE_OPTS = {
    "commit": {"-m", "-F", "-C", "-c", "-t", "--file", "--message", "--template", "--reuse-message",
               "--reedit-message", "--fixup", "--squash", "--author", "--date", "--cleanup", "--trailer"},
    "merge": {"-m", "-F", "-s", "-X", "--strategy", "--strategy-option", "--file", "--into-name"},
    "rebase": {"--onto", "-s", "-X", "--strategy", "--strategy-option", "-x", "--exec", "-C"},
    "reset": set(),
    "branch": {"-u", "--set-upstream-to", "--contains", "--no-contains", "--merged", "--no-merged",
               "--points-at", "--format", "--sort"},
    "checkout": {"-b", "-B", "--orphan", "--conflict", "--pathspec-from-file"},
    "switch": {"-c", "-C", "--create", "--force-create", "--orphan", "--conflict"},
    "push": {"-o", "--push-option", "--repo", "--receive-pack", "--exec"},
    "pull": {"-s", "-X", "--strategy", "--strategy-option", "--depth", "--deepen", "--shallow-since",
             "--shallow-exclude", "-o", "--server-option", "--upload-pack", "--negotiation-tip"},
    "fetch": {"--depth", "--deepen", "--shallow-since", "--shallow-exclude", "-o", "--server-option",
              "--upload-pack", "--negotiation-tip", "--refmap", "-j", "--jobs"},
    "update-ref": {"-m"},
    "worktree": {"-b", "-B", "--reason"},
    "cherry-pick": {"-m", "--mainline", "-s", "-X", "--strategy", "--strategy-option"},
    "revert": {"-m", "--mainline", "-s", "-X", "--strategy", "--strategy-option"},
    "config": {"-f", "--file", "--blob", "--type", "--default", "--comment"},
    "symbolic-ref": {"-m"},
}
COMMIT_SHORT_VALUE = set("mFCct")


class GitContext:
    """What the analyser hands the git rules: the view of the repository at ``cwd`` and the
    state a command line builds up (branch switches, aliases it defines)."""

    def __init__(self, analyser, state, repo):
        self.analyser = analyser
        self.state = state
        self.repo = repo

    @property
    def branch(self):
        return self.state.branch_of(self.repo)

    def set_branch(self, name):
        self.state.set_branch(self.repo, name)


def words_text(words):
    return [w.text for w in words]


def check_git(words, ctx, depth=0):
    """``words``: shell Words after ``git`` (or ``git-<cmd>``'s argv)."""
    if depth > 8:
        raise Block("unanalysable", "aliases nested too deeply")
    texts = words_text(words)
    call = gitargv.parse_after_git(texts)
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
    cwd = _git_cwd(call, ctx)
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
    _check_subcommand(call, words[len(words) - len(call.args):], ctx)


def _git_cwd(call, ctx):
    cwd = ctx.state.cwd
    i = 0
    g = call.globals
    while i < len(g):
        if g[i] == "-C" and i + 1 < len(g):
            cwd = os.path.join(cwd, g[i + 1])
            i += 2
            continue
        if g[i].startswith("-C") and len(g[i]) > 2:
            cwd = os.path.join(cwd, g[i][2:])
        i += 1
    return cwd


def _expand_alias(alias, call, words, ctx, depth):
    import shlex
    rest = call.args
    if alias.startswith("!"):
        shell = alias[1:] + "".join(" " + shlex.quote(a) for a in rest)
        ctx.analyser.check_text(shell, ctx.state, "alias")
        return
    try:
        parts = shlex.split(alias)
    except ValueError:
        raise Block("unanalysable", "alias %s" % call.cmd)
    from .shellparse import Word
    new = []
    for part in parts:
        w = Word()
        w.text = part
        new.append(w)
    check_git(new + words[len(words) - len(rest):], ctx, depth + 1)


def _split(cmd, args):
    """(options, positionals): options as given; positionals exclude option values."""
    takes = _VALUE_OPTS.get(cmd, set())
    opts, pos = [], []
    i, rest = 0, False
    while i < len(args):
        a = args[i]
        if rest:
            pos.append(a)
        elif a == "--":
            rest = True
            pos.append("--")
        elif a.startswith("--"):
            opts.append(a)
            if a in takes and i + 1 < len(args):
                opts.append(args[i + 1])
                i += 1
        elif a.startswith("-") and len(a) > 1:
            opts.append(a)
            if a[:2] in takes and len(a) == 2 and i + 1 < len(args):
                opts.append(args[i + 1])
                i += 1
        else:
            pos.append(a)
        i += 1
    return opts, pos


def _has(opts, *names):
    for o in opts:
        for n in names:
            if o == n or (n.startswith("--") and o.startswith(n + "=")):
                return True
            if len(n) == 2 and not o.startswith("--") and o.startswith("-") and n[1] in o[1:] and o[1:].isalpha():
                return True
    return False


def _before_dashdash(pos):
    return pos[:pos.index("--")] if "--" in pos else pos


def _check_subcommand(call, words, ctx):
    cmd, args = call.cmd, call.args
    if cmd in NO_VERIFY_CMDS and "--no-verify" in _before_dashdash(args):
        raise Block("no-verify", "git %s --no-verify" % cmd)
    if cmd == "config":
        return _config(args, ctx)
    repo = ctx.repo
    if repo is None:
        return
    handler = _HANDLERS.get(cmd)
    if handler:
        handler(args, words, ctx)


def _branch_or_block(ctx, what):
    branch = ctx.branch
    if branch is UNKNOWN:
        raise Block("unanalysable", "which branch %s runs on is not known" % what)
    return branch


def _commit(args, words, ctx):
    opts, _ = _split("commit", args)
    for o in opts:
        if o.startswith("-") and not o.startswith("--"):
            for ch in o[1:]:
                if ch == "n":
                    raise Block("no-verify", "git commit -n")
                if ch in COMMIT_SHORT_VALUE:
                    break
    branch = _branch_or_block(ctx, "the commit")
    if ctx.repo.protected(branch):
        if ctx.repo.unborn_repo() and branch == ctx.repo.head_branch():
            return
        raise Block("commit-on-protected", branch)


def _sync_only(ctx, branch, revs):
    return all(ctx.repo.is_counterpart_name(r, branch) or r == "FETCH_HEAD" for r in revs)


def _merge(args, words, ctx):
    opts, pos = _split("merge", args)
    if _has(opts, "--abort", "--continue", "--quit"):
        return
    branch = _branch_or_block(ctx, "the merge")
    if ctx.repo.protected(branch) and not _sync_only(ctx, branch, _before_dashdash(pos)):
        raise Block("merge-on-protected", branch)


def _pull(args, words, ctx):
    opts, pos = _split("pull", args)
    branch = _branch_or_block(ctx, "the pull")
    if not ctx.repo.protected(branch):
        return
    specs = pos[1:]
    for spec in specs:
        src = spec.lstrip("+").split(":", 1)[0]
        if DYN in spec or src.replace("refs/heads/", "", 1) != branch:
            raise Block("merge-on-protected", branch)


def _rebase(args, words, ctx):
    opts, pos = _split("rebase", args)
    if _has(opts, "--abort", "--continue", "--skip", "--quit", "--edit-todo", "--show-current-patch"):
        return
    pos = _before_dashdash(pos)
    target = pos[1] if len(pos) > 1 else _branch_or_block(ctx, "the rebase")
    if DYN in str(target):
        raise Block("unanalysable", "a variable names the branch to rebase")
    if not ctx.repo.protected(target):
        return
    onto = [opts[i + 1] for i, o in enumerate(opts) if o == "--onto" and i + 1 < len(opts)]
    onto += [o.split("=", 1)[1] for o in opts if o.startswith("--onto=")]
    upstream = pos[:1]
    if _has(opts, "--root") or not _sync_only(ctx, target, upstream + onto):
        raise Block("rebase-protected", target)


def _pick(args, words, ctx):
    opts, _ = _split("cherry-pick", args)
    if _has(opts, "--abort", "--continue", "--skip", "--quit", "-n", "--no-commit"):
        return
    branch = _branch_or_block(ctx, "the cherry-pick")
    if ctx.repo.protected(branch):
        raise Block("commit-on-protected", branch)


def _reset(args, words, ctx):
    opts, pos = _split("reset", args)
    if "--" in pos or len(pos) > 1:
        return  # resets paths in the index, not the branch
    branch = _branch_or_block(ctx, "the reset")
    if not ctx.repo.protected(branch) or not pos or pos[0] in ("HEAD", "@"):
        return
    if DYN in pos[0] or not ctx.repo.rev_on_counterpart(pos[0], branch):
        raise Block("protected-move", branch)


def _branch(args, words, ctx):
    opts, pos = _split("branch", args)
    pos = _before_dashdash(pos)
    repo = ctx.repo
    if any(DYN in p for p in pos):
        if _has(opts, "-d", "-D", "--delete", "-m", "-M", "--move", "-c", "-C", "--copy", "-f", "--force") or pos:
            raise Block("unanalysable", "a variable names a branch")
    if _has(opts, "-r", "--remotes") or _has(opts, "--list", "-l", "-a", "--all", "--show-current",
                                               "--edit-description", "-u", "--set-upstream-to",
                                               "--unset-upstream", "-v", "-vv"):
        if not _has(opts, "-d", "-D", "--delete"):
            return
        if _has(opts, "-r", "--remotes"):
            return  # deleting remote-tracking refs unlocks nothing
    if _has(opts, "-d", "-D", "--delete"):
        for name in pos:
            if repo.protected(name):
                raise Block("protected-delete", name)
        return
    if _has(opts, "-m", "-M", "--move", "-c", "-C", "--copy"):
        copying = _has(opts, "-c", "-C", "--copy")
        old = pos[0] if len(pos) >= 2 else _branch_or_block(ctx, "the rename")
        new = pos[-1] if pos else None
        if new and repo.protected(new):
            raise Block("rename-onto-protected", new)
        if not copying and repo.protected(old):
            raise Block("protected-delete", old)
        if not copying and old == ctx.branch and new:
            ctx.set_branch(new)
        return
    if pos and repo.protected(pos[0]):
        start = pos[1] if len(pos) > 1 else "HEAD"
        if pos[0] in repo.local_branches() and not _has(opts, "-f", "--force"):
            return  # git refuses to overwrite an existing branch without -f
        if DYN in start or not repo.rev_on_counterpart(start, pos[0]):
            raise Block("protected-move", pos[0])


def _checkout(args, words, ctx):
    cmd = "checkout"
    opts, pos = _split(cmd, args)
    _switch_common(opts, pos, ctx, create=("-b", "-c", "--create"), force=("-B", "-C", "--force-create"))


def _switch(args, words, ctx):
    opts, pos = _split("switch", args)
    _switch_common(opts, pos, ctx, create=("-c", "--create"), force=("-C", "--force-create"))


def _switch_common(opts, pos, ctx, create, force):
    repo = ctx.repo
    new = None
    for i, o in enumerate(opts):
        if o in create + force + ("--orphan",) and i + 1 < len(opts):
            new = (o, opts[i + 1])
        elif o.split("=", 1)[0] in create + force + ("--orphan",) and "=" in o:
            new = (o.split("=", 1)[0], o.split("=", 1)[1])
    if new:
        opt, name = new
        if DYN in name:
            raise Block("unanalysable", "a variable names the new branch")
        start = _before_dashdash(pos)[0] if _before_dashdash(pos) else "HEAD"
        if repo.protected(name) and opt != "--orphan":
            if DYN in start or not repo.rev_on_counterpart(start, name):
                raise Block("protected-move", name)
        ctx.set_branch(name)
        return
    pos = _before_dashdash(pos) if "--" in pos else pos
    if not pos:
        if _has(opts, "--detach", "-d"):
            ctx.set_branch(None)
        return
    target = pos[0]
    if "--" in pos[:1]:
        return
    if DYN in target:
        ctx.set_branch(UNKNOWN)
    elif target == "-" or target.startswith("@{-"):
        ctx.set_branch(UNKNOWN)
    elif _has(opts, "--detach", "-d"):
        ctx.set_branch(None)
    elif target in repo.local_branches():
        ctx.set_branch(target)
    elif any(r.startswith("refs/remotes/") and r.endswith("/" + target) for r in repo.refs()):
        ctx.set_branch(target)  # DWIM: creates the branch from its remote counterpart
    elif len(pos) == 1 and not os.path.exists(os.path.join(ctx.state.cwd, target)):
        ctx.set_branch(None)  # a commit or tag: detached


def _update_ref(args, words, ctx):
    opts, pos = _split("update-ref", args)
    repo = ctx.repo
    if _has(opts, "--stdin"):
        text = ctx.state.stdin_text
        if text is None:
            raise Block("unanalysable", "git update-ref --stdin reads refs we cannot see")
        for line in text.splitlines():
            parts = line.split()
            if parts and parts[0] in ("update", "create", "delete") and len(parts) > 1:
                _ref_write(parts[1], parts[2] if len(parts) > 2 and parts[0] != "delete" else None,
                           parts[0] == "delete", _has(opts, "--no-deref"), ctx)
        return
    if not pos:
        return
    _ref_write(pos[0], pos[1] if len(pos) > 1 and not _has(opts, "-d") else None, _has(opts, "-d"),
               _has(opts, "--no-deref"), ctx)


def _ref_write(ref, new, delete, no_deref, ctx):
    repo = ctx.repo
    if DYN in ref or (new is not None and DYN in new):
        raise Block("unanalysable", "a variable in git update-ref")
    if ref in ("HEAD", "@") and not no_deref:
        branch = _branch_or_block(ctx, "git update-ref HEAD")
        ref = "refs/heads/%s" % branch if branch else ref
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


def _symbolic_ref(args, words, ctx):
    opts, pos = _split("symbolic-ref", args)
    if len(pos) < 2:
        return
    name, target = pos[0], pos[1]
    if name == "HEAD":
        if target.startswith("refs/heads/"):
            ctx.set_branch(target[len("refs/heads/"):])
        return
    kind = ctx.repo.policy.classify(name)
    if kind:
        raise Block("protected-move", kind[-1])


def _fetch(args, words, ctx):
    opts, pos = _split("fetch", args)
    repo = ctx.repo
    if len(pos) < 2 or _has(opts, "--multiple"):
        return
    remote = pos[0]
    for spec in pos[1:]:
        if spec.startswith("^"):
            continue
        src, sep, dst = spec.lstrip("+").partition(":")
        if not sep:
            continue
        if DYN in dst:
            raise Block("unanalysable", "a variable in a fetch refspec")
        kind = repo.policy.classify(_full_dst(dst))
        if not kind:
            continue
        same = src.replace("refs/heads/", "", 1) == kind[-1]
        if kind[0] == "local" and not (same and remote in repo.remote_names()):
            raise Block("protected-move", kind[1])
        if kind[0] == "remote" and not (same and remote == kind[1]):
            raise Block("remote-tracking-forge", dst)


def _full_dst(dst):
    if dst.startswith("refs/"):
        return dst
    if dst.startswith("heads/"):
        return "refs/" + dst
    return "refs/heads/" + dst


def _worktree(args, words, ctx):
    if not args or args[0] != "add":
        return
    opts, pos = _split("worktree", args[1:])
    for i, o in enumerate(opts):
        if o in ("-b", "-B") and i + 1 < len(opts):
            name = opts[i + 1]
            start = pos[1] if len(pos) > 1 else "HEAD"
            if DYN in name or (ctx.repo.protected(name) and not ctx.repo.rev_on_counterpart(start, name)):
                raise Block("protected-move", name)


def _filter(args, words, ctx):
    branch = ctx.branch
    if "--all" in args or ctx.repo.protected(branch) or any(ctx.repo.protected(a) for a in args):
        raise Block("protected-move", branch if isinstance(branch, str) else "all branches")


def _rm_mv(args, words, ctx):
    _, pos = _split("rm", args)
    for p in pos:
        if p != "--":
            ctx.analyser.check_path(p, ctx.state, "git rm/mv")


def _restore(args, words, ctx):
    opts, pos = _split("restore", args)
    for p in pos:
        if p != "--":
            ctx.analyser.check_path(p, ctx.state, "git restore")


_HANDLERS = {
    "commit": _commit, "merge": _merge, "pull": _pull, "rebase": _rebase, "cherry-pick": _pick,
    "revert": _pick, "am": _pick, "reset": _reset, "branch": _branch, "checkout": _checkout,
    "switch": _switch, "update-ref": _update_ref, "symbolic-ref": _symbolic_ref, "fetch": _fetch,
    "worktree": _worktree, "filter-branch": _filter, "filter-repo": _filter, "rm": _rm_mv, "mv": _rm_mv,
    "restore": _restore,
}


def _config(args, ctx):
    opts, pos = _split("config", args)
    sub = pos[0] if pos and pos[0] in ("set", "unset", "get", "list", "edit", "rename-section",
                                       "remove-section") else None
    if sub:
        pos = pos[1:]
    reading = sub in ("get", "list") or _has(opts, "--get", "--get-all", "--get-regexp", "--get-urlmatch",
                                             "-l", "--list", "--get-color", "--get-colorbool")
    if reading:
        return
    if sub == "edit" or _has(opts, "-e", "--edit"):
        raise Block("hooks-path", "git config --edit")
    if sub in ("rename-section", "remove-section") or _has(opts, "--rename-section", "--remove-section"):
        if pos and pos[0].lower() in ("core", "alias"):
            raise Block("hooks-path", "git config section %s" % pos[0])
        return
    if not pos:
        return
    writing = sub in ("set", "unset") or len(pos) > 1 or _has(opts, "--unset", "--unset-all", "--add",
                                                               "--replace-all")
    if not writing:
        return  # `git config KEY` reads it
    key = pos[0]
    if DYN in key:
        raise Block("unanalysable", "a variable names a config key")
    low = key.lower()
    if low == "core.hookspath":
        raise Block("hooks-path", "git config core.hooksPath")
    if low.startswith("alias."):
        value = pos[1] if len(pos) > 1 else ""
        if _alias_is_bypass(value):
            raise Block("no-verify", "an alias that skips hooks")
        ctx.state.aliases[low[len("alias."):]] = value


def _alias_is_bypass(value):
    low = value.lower()
    return "--no-verify" in low or "hookspath" in low or (
        "commit" in low and any(p == "-n" or (p.startswith("-") and not p.startswith("--") and "n" in p[1:2])
                                for p in low.split()))


# -- push -------------------------------------------------------------------------------------

def _push(args, words, ctx):
    opts, pos = _split("push", args)
    repo = ctx.repo
    if _has(opts, "-n", "--dry-run"):
        return
    if _has(opts, "--mirror"):
        raise Block("push-mirror", "git push --mirror")
    if _has(opts, "--all", "--branches"):
        protected_local = [b for b in repo.local_branches() if repo.protected(b)]
        if protected_local:
            raise Block("push-mirror", "git push --all carries %s" % protected_local[0])
        return
    deleting = _has(opts, "-d", "--delete")
    remote = pos[0] if pos else None
    specs = pos[1:]
    if remote and DYN in remote:
        remote = None
    if not specs and not _has(opts, "--tags"):
        specs = _implicit_specs(ctx, remote)
    for spec in specs:
        for dst in _destinations(spec, deleting, ctx):
            if dst is UNKNOWN:
                raise Block("unanalysable", "a variable in a push refspec")
            if repo.protected(dst):
                raise Block("push-protected", dst)


def _implicit_specs(ctx, remote):
    repo = ctx.repo
    branch = ctx.branch
    if branch is UNKNOWN:
        raise Block("unanalysable", "which branch `git push` pushes is not known")
    if branch is None:
        return []
    remote = remote or repo.get("branch.%s.pushremote" % branch) or repo.get("remote.pushdefault") or \
        repo.get("branch.%s.remote" % branch) or "origin"
    configured = repo.config().get("remote.%s.push" % remote)
    if configured:
        return configured
    mode = (repo.get("push.default") or "simple").lower()
    merge = repo.get("branch.%s.merge" % branch) or ""
    upstream = merge[len("refs/heads/"):] if merge.startswith("refs/heads/") else None
    if mode == "nothing":
        return []
    if mode in ("upstream", "tracking"):
        return ["HEAD:%s" % upstream] if upstream else []
    if mode == "matching":
        return [":"]
    return ["HEAD:%s" % branch]  # simple and current push the branch to the same name


def _destinations(spec, deleting, ctx):
    repo = ctx.repo
    if spec == ":":  # matching
        return sorted(repo.local_branches())
    spec = spec[1:] if spec.startswith("+") else spec
    if deleting:
        return [_short(spec)] if DYN not in spec else [UNKNOWN]
    src, sep, dst = spec.partition(":")
    if sep:
        if not dst:
            return []
        if DYN in dst:
            return [UNKNOWN]
        if "*" in dst:
            return [b for b in repo.local_branches()] if dst.startswith(("refs/heads/", "heads/")) else []
        if dst.startswith("refs/") and not dst.startswith("refs/heads/"):
            return []
        return [_short(dst)]
    if DYN in src:
        return [UNKNOWN]
    if src in ("HEAD", "@"):
        branch = ctx.branch
        if branch is UNKNOWN:
            return [UNKNOWN]
        return [branch] if branch else []
    if "*" in src:
        return sorted(repo.local_branches()) if src.startswith(("refs/heads/", "heads/")) else []
    if src.startswith("refs/") and not src.startswith("refs/heads/"):
        return []
    name = _short(src)
    if src.startswith("refs/heads/") or name in repo.local_branches() or not _is_tag(repo, name):
        return [name]
    return []


def _short(ref):
    for prefix in ("refs/heads/", "heads/"):
        if ref.startswith(prefix):
            return ref[len(prefix):]
    return ref


def _is_tag(repo, name):
    from . import gitio
    rc, _ = gitio.run(["show-ref", "--verify", "-q", "refs/tags/" + name], cwd=repo.top)
    return rc == 0


_HANDLERS["push"] = _push
