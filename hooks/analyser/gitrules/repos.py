"""git clone and git init: a repository the command line creates. It has no agentguard installation,
so the commands that later run there (``&& cd DIR && git push ...``, ``git -C DIR ...``) are judged
with the policy of the guarded repository this check belongs to, on a view of what git will have
written: the branch checked out, the remote, the ``--config`` entries (``context.NewRepository``)."""
import os

from ... import gitio
from ...gitmodel import remotes
from ...guardconfig import rule_for
from ...policy import DEFAULT_BRANCHES, Policy
from ...rules import Block
from ..repoview import UNKNOWN, config_key
from ..shelltree import DYN, Word
from .context import NewRepository


def clone(call, ctx):
    """``git clone [options] [--] <repository> [<directory>]``."""
    words = call.positionals
    if not words:
        return
    url = words[0]
    bare = call.has("--bare") or call.has("--mirror")
    if len(words) > 1:
        target = words[1]
    else:
        target = remotes.clone_dir(url, bare, bundle=url.endswith(".bundle") and os.path.isfile(
            os.path.join(ctx.state.cwd or "", url)))
    if target is None or DYN in target or (len(words) == 1 and DYN in url):
        raise Block("unanalysable", "git clone into a directory named by a variable")
    policy = _policy(ctx)
    origin = call.value("--origin") or _base(ctx).get("clone.defaultremotename", ["origin"])[-1]
    branch = call.value("--branch")
    if branch is None or DYN in branch:
        branch = UNKNOWN if DYN in url else _remote_head(url, ctx)
    config: dict = {}
    for pair in call.values("--config"):
        key, _, value = pair.partition("=")
        if DYN in pair:
            raise Block("unanalysable", "a variable in git clone --config")
        found = rule_for(key, value, protects=policy.is_protected)
        if found is not None:
            raise Block(*found)
        config.setdefault(config_key(key), []).append(value)
    config.setdefault("remote.%s.url" % origin, []).append(url)
    if call.has("--mirror"):
        config["remote.%s.mirror" % origin] = ["true"]
    elif isinstance(branch, str) and not bare:
        config["branch.%s.remote" % branch] = [origin]
        config["branch.%s.merge" % branch] = ["refs/heads/" + branch]
    _make(ctx, target, NewRepository, bare, policy, branch, config, True)


def init(call, ctx):
    """``git init [options] [<directory>]``: a new repository, unless one is already there."""
    words = call.positionals
    target = words[0] if words else "."
    if DYN in target:
        raise Block("unanalysable", "git init in a directory named by a variable")
    path = os.path.join(ctx.state.cwd, target)
    existing = ctx.analyser.repo_at(path)
    if existing is not None and existing.top == os.path.realpath(path):
        return  # git init in a repository re-initialises it
    branch = call.value("--initial-branch") or _base(ctx).get("init.defaultbranch", ["master"])[-1]
    if DYN in branch:
        branch = UNKNOWN
    _make(ctx, target, NewRepository, call.has("--bare"), _policy(ctx), branch, {}, False)


def _make(ctx, target, kind, bare, policy, branch, config, cloned):
    word = Word()
    word.text = target
    ctx.analyser.check_path(word, ctx.state, "git %s" % ("clone" if cloned else "init"))
    path = os.path.realpath(os.path.join(ctx.state.cwd, os.path.expanduser(target)))
    ctx.analyser.add_repository(path, kind(path, bare, policy, branch, config, cloned, ctx.analyser.base_config))


def _policy(ctx):
    return ctx.analyser.guard_policy() or Policy(DEFAULT_BRANCHES, "default (no snapshot)")


def _base(ctx):
    return ctx.analyser.base_config()


def _remote_head(url, ctx):
    """The branch a clone of ``url`` checks out: what the remote's HEAD names, asked of git for a
    repository on this machine, or read from the remote-tracking HEAD of a repository here that
    has ``url`` as a remote; UNKNOWN otherwise (nothing is fetched over the network to judge)."""
    path = remotes.local_path(url, ctx.state.cwd)
    if path is not None:
        if not os.path.isdir(path):
            return UNKNOWN
        try:
            rc, out = gitio.run(["ls-remote", "--symref", "--", path, "HEAD"], cwd=os.sep, timeout=5)
        except gitio.GitError:
            return UNKNOWN
        for line in out.decode("utf-8", "surrogateescape").splitlines():
            if line.startswith("ref: refs/heads/") and line.endswith("\tHEAD"):
                return line[len("ref: refs/heads/"):-len("\tHEAD")]
        return UNKNOWN
    for repo in (ctx.repo, ctx.analyser.repo_at(ctx.analyser.start)):
        if repo is None or not hasattr(repo, "remote_urls"):
            continue
        for name in remotes.resolve(url, repo.remote_urls(), ctx.state.cwd):
            rc, out = gitio.run(["symbolic-ref", "-q", "refs/remotes/%s/HEAD" % name], cwd=repo.top)
            ref = out.decode("utf-8", "surrogateescape").strip()
            prefix = "refs/remotes/%s/" % name
            if rc == 0 and ref.startswith(prefix):
                return ref[len(prefix):]
    return UNKNOWN
