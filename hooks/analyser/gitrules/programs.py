"""Programs a git command line names (``rebase -x CMD``, ``grep -O CMD``, ``bisect run CMD``,
``--upload-pack CMD``...): git runs them through the shell, so they are read like any command line."""
from ...rules import Block
from ..shelltree import DYN, literal_word

# command -> the options whose value is a program (git's long names; short forms resolve through git's table)
OPTIONS = {
    "rebase": ("--exec",), "grep": ("--open-files-in-pager",), "difftool": ("--extcmd",),
    "fetch": ("--upload-pack",), "pull": ("--upload-pack",), "clone": ("--upload-pack",),
    "ls-remote": ("--upload-pack", "--exec"), "fetch-pack": ("--upload-pack", "--exec"),
    "push": ("--receive-pack", "--exec"), "send-pack": ("--receive-pack", "--exec"), "archive": ("--exec",),
    "filter-branch": ("--env-filter", "--tree-filter", "--index-filter", "--parent-filter", "--msg-filter",
                      "--commit-filter", "--tag-name-filter"),
    "send-email": ("--sendmail-cmd", "--to-cmd", "--cc-cmd", "--header-cmd"),
}
# command -> the subcommand after which the program's words come (None: right after the options)
POSITIONAL = {"bisect": ("run",), "submodule": ("foreach",), "merge-index": (None,)}


def programs(call):
    """The program texts ``call`` makes git run."""
    found = [v for v in call.values(*OPTIONS.get(call.cmd, ())) if v]
    if call.cmd in POSITIONAL:
        sub = POSITIONAL[call.cmd][0]
        args = list(call.args)
        if sub is not None:
            args = args[args.index(sub) + 1:] if sub in args else []
        while args and args[0].startswith("-") and args[0] != "--":
            args.pop(0)  # `submodule foreach --recursive CMD`, `merge-index -o PROGRAM`
        if args and args[0] == "--":
            args.pop(0)
        if call.cmd == "merge-index":
            args = args[:1]
        if args:
            found.append(" ".join(_quote(w) for w in args) if len(args) > 1 else args[0])
    return found


def check(call, ctx, check_git):
    """``check_git``: the rule for a whole git command line (the package's), for the one ``git for-each-repo``
    runs in each repository (passed in: this module is imported by it)."""
    for text in programs(call):
        if DYN in text:
            raise Block("unanalysable", "git %s runs a program built from variables" % call.cmd)
        ctx.analyser.check_text(text, ctx.state.copy(), "git %s" % call.cmd)
    if call.cmd == "for-each-repo" and call.dashdash is not None:
        check_git([literal_word(w) for w in call.positionals[call.dashdash:]], ctx)


def _quote(word):
    return word if word and all(c.isalnum() or c in "-_./=:@%+," for c in word) else \
        "'" + word.replace("'", "'\\''") + "'"
