"""fetch and push: what they write locally (protected branches, remote-tracking refs) and which
remote branches a push updates. Refspecs are read with the shared ``gitmodel.refnames``, so the
analyser expands ``remotes/origin/main`` exactly as git and the backstop do."""
from ... import gitio
from ...gitmodel import refnames
from ...rules import Block
from ..repoview import UNKNOWN
from ..shelltree import DYN


def fetch(call, ctx):
    from ...gitmodel import lsremote, remotes  # here: a push (every agent's) never loads them
    repo = ctx.repo
    words = call.words()
    if len(words) < 2 or call.has("--multiple"):
        return
    sources = remotes.resolve(words[0], repo.remote_urls(), ctx.state.cwd) if DYN not in words[0] else []
    if remotes.swaps_source(call):
        sources = []  # `--upload-pack`, `-c remote.*`: the remote named is not what answers
    for text in words[1:]:
        spec = refnames.Refspec(text)
        if spec.negative or spec.dst is None or spec.dst == "":
            continue
        if DYN in text:
            raise Block("unanalysable", "a variable in a fetch refspec")
        for ref in _written(spec, repo):
            kind = repo.policy.classify(ref)
            if not kind:
                continue
            src = refnames.fetch_sources_of(spec, ref)
            same = bool(src) and bool(sources) and lsremote.source_is_branch(repo.state, words[0], src[0], kind[-1])
            if kind[0] == "local" and not (same and sources):
                raise Block("protected-move", kind[1])
            if kind[0] == "remote" and not (same and kind[1] in sources):
                raise Block("remote-tracking-forge", ref, branch=kind[2])


def _written(spec, repo):
    """The protected-looking local refs a fetch refspec writes (a glob: every one it could)."""
    if "*" not in spec.dst:
        return [refnames.fetch_dst(spec.dst)]
    names = set(repo.local_branches()) | {b for b in repo.policy.branches if not any(c in b for c in "*?[")}
    found = []
    for prefix in ["refs/heads/"] + ["refs/remotes/%s/" % r for r in sorted(repo.remote_names())]:
        for name in sorted(names):
            ref = prefix + name
            if refnames.fetch_sources_of(spec, ref):
                found.append(ref)
    dst = refnames.fetch_dst(spec.dst)
    if dst.startswith("refs/remotes/") and not any(dst.startswith("refs/remotes/%s/" % r) for r in repo.remote_names()):
        found.extend(dst.replace("*", name, 1) for name in sorted(names))  # a remote that is not configured
    return found


def push(call, ctx):
    repo = ctx.repo
    if call.has("--dry-run"):
        return
    words = call.words()
    if call.has("--mirror") or (repo.get("remote.%s.mirror" % (words[0] if words else _default_remote(
            repo, ctx.branch if isinstance(ctx.branch, str) else None)), "").lower() in ("true", "yes", "on", "1")):
        raise Block("push-mirror", "git push --mirror")
    if call.has("--all", "--branches"):
        protected_local = [b for b in sorted(repo.local_branches()) if repo.protected(b)]
        if protected_local:
            raise Block("push-mirror", "git push --all carries %s" % protected_local[0], branch=protected_local[0])
        return
    words = call.words()
    deleting = call.has("--delete")
    remote_name = words[0] if words and DYN not in words[0] else None
    if not words:
        remote_name = _default_remote(repo, ctx.branch if isinstance(ctx.branch, str) else None)
    specs = words[1:]
    if not specs and not call.has("--tags"):
        specs = _implicit_specs(ctx, remote_name)
    protected = None
    for spec in specs:
        for dst in _destinations(spec, deleting, ctx):
            if dst is UNKNOWN:
                raise Block("unanalysable", "a variable in a push refspec")
            if repo.protected(dst):
                if deleting or not _may_be_first_push(call, spec, ctx, remote_name):
                    raise Block("push-protected", dst)
                protected = protected or dst
    guarded = _through_guard(ctx, remote_name)
    if guarded is False:
        raise Block("push-protected" if protected else "push-guard", protected or
                    "a push to %s, which the push guard in git's transport does not cover" % remote_name)
    if protected and not guarded:
        raise Block("push-protected", protected)


FORCE = ("--force", "-f", "--force-with-lease", "--force-if-includes")


def _may_be_first_push(call, spec, ctx, remote_name):
    """A push to a protected branch that may be the first push of a project: a plain create (no
    force, no deletion) to a configured remote of which this repository has seen no branch (a URL typed
    on the command line is refused: it names no remote a project starts from). Only the push guard
    in git's transport can tell (it sees the remote's real advertisement, and allows it only when
    the remote has no branch at all), so the caller lets it through only when the push goes through
    the guard."""
    if call.has(*FORCE) or spec.startswith(("+", ":")):
        return False
    if (ctx.repo.top, remote_name) in ctx.state.added_remotes:
        return True  # added earlier in this command line: no branch of it seen yet
    if remote_name not in ctx.repo.remote_names():
        return False  # a URL typed on the command line, or a variable: refused on doubt
    seen = "refs/remotes/%s/" % remote_name
    return not any(ref.startswith(seen) for ref in ctx.repo.refs())


def _through_guard(ctx, remote_name):
    """True when a push to ``remote_name`` (a configured remote or a URL typed on the command line)
    goes through the push guard in git's transport, False when it goes around it (git's own answer:
    every push URL must be the guard's ``agw::``), None when there is no push guard or git cannot
    say (``remote_name`` None: a variable names it)."""
    repo = ctx.repo
    if repo.get("alias.remote-agw") is None or remote_name is None:
        return None
    from ...pushguard.coverage import PROBE, covered, push_urls
    remote_name = ctx.state.added_remotes.get((repo.top, remote_name), remote_name)  # its URL, as git will
    known = remote_name in repo.remote_names()
    urls = (push_urls(repo.top, None if known else remote_name) or {}).get(remote_name if known else PROBE)
    if not urls:
        return None
    return covered(urls)


def _default_remote(repo, current):
    """Where a `git push` that names no remote goes, from branch ``current`` (None: detached)."""
    return (current and repo.get("branch.%s.pushremote" % current)) or repo.get("remote.pushdefault") or \
        (current and repo.get("branch.%s.remote" % current)) or "origin"


def _implicit_specs(ctx, remote_name):
    repo = ctx.repo
    current = ctx.branch
    if current is UNKNOWN:
        raise Block("unanalysable", "which branch `git push` pushes is not known")
    if current is None:
        return []
    remote_name = remote_name or _default_remote(repo, current)
    configured = repo.config().get("remote.%s.push" % remote_name)
    if configured:
        return configured
    mode = (repo.get("push.default") or "simple").lower()
    merge = repo.get("branch.%s.merge" % current) or ""
    upstream = merge[len("refs/heads/"):] if merge.startswith("refs/heads/") else None
    if mode == "nothing":
        return []
    if mode in ("upstream", "tracking"):
        return ["HEAD:%s" % upstream] if upstream else []
    if mode == "matching":
        return [":"]
    return ["HEAD:%s" % current]  # simple and current push the branch to the same name


def _destinations(text, deleting, ctx):
    """The remote branch names a push refspec may update (UNKNOWN when a variable decides)."""
    repo = ctx.repo
    if text == ":":  # matching
        return sorted(repo.local_branches())
    spec = refnames.Refspec(text)
    if deleting:
        return [UNKNOWN] if DYN in text else _branch_names(spec.src)
    if spec.dst is not None:
        if not spec.dst:
            return []
        if DYN in spec.dst:
            return [UNKNOWN]
        if "*" in spec.dst:
            return sorted(repo.local_branches()) if spec.dst.startswith(("refs/heads/", "heads/")) else []
        return _branch_names(spec.dst)
    if DYN in spec.src:
        return [UNKNOWN]
    if spec.src in ("HEAD", "@"):
        current = ctx.branch
        if current is UNKNOWN:
            return [UNKNOWN]
        return [current] if current else []
    if "*" in spec.src:
        return sorted(repo.local_branches()) if spec.src.startswith(("refs/heads/", "heads/")) else []
    if spec.src.startswith("refs/") and not spec.src.startswith("refs/heads/"):
        return []
    names = _branch_names(spec.src)
    if spec.src.startswith(("refs/heads/", "heads/")) or spec.src in repo.local_branches() or \
            not _is_tag(repo, spec.src):
        return names
    return []


def _branch_names(name):
    """Branch names a push destination written ``name`` may stand for on the remote."""
    return [c[len("refs/heads/"):] for c in refnames.candidates(name) if c.startswith("refs/heads/")]


def _is_tag(repo, name):
    rc, _ = gitio.run(["show-ref", "--verify", "-q", "refs/tags/" + name], cwd=repo.top)
    return rc == 0


# -- the push plumbing: it updates a remote's refs and runs no pre-push hook, so this is the only guard --

def send_pack(call, ctx):
    """``git send-pack [options] <remote> [<ref>...]`` (parse-options: options anywhere)."""
    words = call.words()
    specs = words[1:]
    if call.has("--stdin"):
        if ctx.state.stdin_text is None:
            raise Block("unanalysable", "git send-pack --stdin reads refs we cannot see")
        specs = specs + ctx.state.stdin_text.split()
    everything = [flag for flag in ("--mirror", "--all") if call.has(flag)]
    _plumbing_push(call.cmd, specs, call.has("--dry-run"), everything, False, ctx)


HTTP_PUSH_FLAGS = ("--all", "--force", "--dry-run", "--helper-status", "--verbose", "-d", "-D")


def http_push(call, ctx):
    """``git http-push`` reads its argv itself: its flags, exactly as written, until the first word
    after the URL; every word from there on is a refspec (``--dry-run`` there too)."""
    flags, url, specs = set(), None, []
    for i, word in enumerate(call.args):
        if word in HTTP_PUSH_FLAGS:
            flags.add(word)
        elif url is None:
            url = word
        else:
            specs = call.args[i:]
            break
    _plumbing_push(call.cmd, specs, "--dry-run" in flags, sorted(flags & {"--all"}), bool(flags & {"-d", "-D"}), ctx)


def _plumbing_push(cmd, specs, dry_run, everything, deleting, ctx):
    """``everything``: the ``--all``/``--mirror`` flags given."""
    if dry_run:
        return
    if everything:
        raise Block("push-mirror", "git %s %s" % (cmd, everything[0]))
    for spec in specs or [":"]:  # no refspec: the branches both sides have (matching)
        for dst in _destinations(spec, deleting, ctx):
            if dst is UNKNOWN:
                raise Block("unanalysable", "a variable in a push refspec")
            if ctx.repo.protected(dst):
                raise Block("push-protected", dst)


def remote_helper(call, ctx):
    """``git remote-https`` and the other remote helpers, run by hand: they take what they push on
    stdin (a ``push`` line, or a raw receive-pack session) and run no pre-push hook."""
    raise Block("unanalysable", "git %s run by hand pushes what it reads on stdin, with no pre-push hook" % call.cmd)
