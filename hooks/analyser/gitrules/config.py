"""git config: switching hooks off (core.hooksPath, --edit) and aliases that skip hooks."""
from ...rules import Block
from ...bypass import alias_skips_hooks
from ..shellparse import DYN

_READ = ("--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "--get-color", "--get-colorbool")
_WRITE = ("--unset", "--unset-all", "--add", "--replace-all")


def config(call, ctx):
    words = call.words()
    sub = call.sub
    if sub is None and words and words[0] in ("set", "unset", "get", "list", "edit", "rename-section",
                                              "remove-section"):
        sub, words = words[0], words[1:]  # a git older than the subcommands
    if sub in ("get", "list") or call.has(*_READ):
        return
    if sub == "edit" or call.has("--edit"):
        raise Block("hooks-path", "git config --edit")
    if sub in ("rename-section", "remove-section") or call.has("--rename-section", "--remove-section"):
        if words and words[0].lower() in ("core", "alias"):
            raise Block("hooks-path", "git config section %s" % words[0])
        return
    if not words:
        return
    writing = sub in ("set", "unset") or len(words) > 1 or call.has(*_WRITE)
    if not writing:
        return  # `git config KEY` reads it
    key = words[0]
    if DYN in key:
        raise Block("unanalysable", "a variable names a config key")
    low = key.lower()
    if low == "core.hookspath":
        raise Block("hooks-path", "git config core.hooksPath")
    if low.startswith("alias."):
        value = words[1] if len(words) > 1 else ""
        if alias_skips_hooks(value):
            raise Block("no-verify", "an alias that skips hooks")
        ctx.state.aliases[low[len("alias."):]] = value
