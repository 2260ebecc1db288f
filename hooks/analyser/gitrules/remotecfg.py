"""git remote: re-pointing, renaming or removing a remote that protected branches follow changes what
they may move to (docs/policy.md); adding, listing, showing, pruning and updating remotes does not."""
from ...rules import Block
from ..repoview import follows_remote
from ..shelltree import DYN

# subcommand -> how many of its first positionals name a remote it changes (rename: old and new name)
CHANGES = {"set-url": 1, "rename": 2, "remove": 1, "rm": 1}


def remote(call, ctx):
    words = call.words()
    sub = call.sub
    if sub is None:
        if not words:
            return  # `git remote`, `git remote -v`
        sub, words = words[0], words[1:]  # a subcommand the option table does not list (`rm`)
    if DYN in sub:
        raise Block("unanalysable", "a variable names the git remote subcommand")
    if sub == "set-url" and call.has("--push"):
        raise Block("push-guard", "git remote set-url --push, which can take pushes around the push guard in git's "
                                  "transport")
    for name in words[:CHANGES.get(sub, 0)]:
        if DYN in name:
            raise Block("unanalysable", "a variable names the remote git remote %s changes" % sub)
        if follows_remote(ctx.repo, name):
            raise Block("remote-config", "git remote %s %s" % (sub, name))
