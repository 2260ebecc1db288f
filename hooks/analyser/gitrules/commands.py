"""Every command git ships, by what it can do: what ``agentguard check`` decides for each thing a
command can do, and whether the backstop (git's hooks) sees it.

A row for every command ``git --list-cmds=main,nohelpers``, ``--list-cmds=builtins`` and
``git help -a`` name on the supported gits (2.39 and 2.47; tests/test_command_classes.py fails when the
git it runs lists one without a row), plus the commands git does not ship that ``HANDLERS`` judges.
A row is ``command: ((class, analyser, backstop[, note]), ...)``; no entry: none of the classes.
SECURITY.md's section "Every git command, by what it can do" is ``render_markdown()``.
"""

# Commands that only read (a variable may name their directory or repository).
READ_ONLY_GIT = {"status", "log", "diff", "show", "rev-parse", "ls-files", "ls-tree", "cat-file", "grep",
                 "blame", "describe", "shortlog", "help", "version", "for-each-ref", "show-ref"}

# what a command can do (to the repository it runs in, or to a remote)
REF, REMOTE, CONFIG, HOOKS, CODE = "local-ref", "remote", "config", "hooks", "code"
NONE = "none"  # a row with no entry: it reads, or writes only the work tree, the index or objects
CLASSES = {
    REF: "can write a ref of this repository",
    REMOTE: "can write a remote's refs",
    CONFIG: "can change configuration",
    HOOKS: "can change which hooks run, or switch them off",
    CODE: "runs a program its command line names (aliases, hooks and configured programs aside)",
}

# what `agentguard check` decides
RULE, ALLOW, UNREAD, READ = "rule", "allow", "unread", "read"
# what the backstop sees
TX, TX_246, PRE_PUSH, NO_HOOK, NO_PRE_PUSH, UNSEEN, HOOKS_OFF, KEPT, PROGRAM = (
    "tx", "tx-2.46", "pre-push", "no-hook", "no-pre-push", "unseen", "hooks-off", "kept", "program")

ANALYSER = {
    RULE: "blocked by its rule ({families}) when {risk}",
    ALLOW: "allowed: no rule reads it",
    UNREAD: "allowed: the program is not read",
    READ: "the program is read like a command line (gitrules/programs.py) and blocked when what it runs would be",
}
RISK = {
    REF: "a protected branch could move or be deleted",
    REMOTE: "a protected branch could be a destination, or the pushed refs cannot be read",
    CONFIG: "it writes a setting the guard depends on",
    HOOKS: "it switches hooks off (`core.hooksPath`, `config --edit`)",
    CODE: "run by hand (a remote helper: always)",
    NONE: "it would change the guard's own files",
}
BACKSTOP = {
    TX: "covered: the reference-transaction hook judges every ref update",
    TX_246: "covered from git 2.46; older git runs no hook for it",
    PRE_PUSH: "covered: the pre-push hook judges every pushed ref, and the push guard in git's transport every ref "
              "pushed to a remote it covers, hooks skipped or not",
    NO_HOOK: "**not covered**: the update runs no hook",
    NO_PRE_PUSH: "**not covered**: no pre-push hook runs",
    UNSEEN: "not covered: no hook sees a configuration change",
    HOOKS_OFF: "not covered: with hooks switched off git runs none",
    KEPT: "agentguard's hooks stay: git adds template hooks only where none is installed",
    PROGRAM: "partly: what the program does through git meets the hooks, unless it switches them off",
}

_HOOK_SERVED = "pushes it serves go through receive-pack"
_UPLOAD_PACK = (CODE, READ, PROGRAM, "`--upload-pack`")
_RECEIVE_PACK = (CODE, READ, PROGRAM, "`--receive-pack`, `--exec`")
_HELPER = ((REMOTE, RULE, NO_PRE_PUSH, "a remote helper run by hand takes what it pushes on stdin; `git push` "
            "through one runs pre-push first"),)

COMMANDS = {
    "add": (), "am": ((REF, RULE, TX),), "annotate": (), "apply": (),
    "archimport": ((REF, ALLOW, TX),),
    "archive": ((CODE, READ, PROGRAM, "`--remote` with `--exec`"),),
    "bisect": ((REF, ALLOW, TX, "`refs/bisect/*`; it detaches `HEAD`"), (CODE, READ, PROGRAM, "`run`")),
    "bisect--helper": ((REF, ALLOW, TX), (CODE, UNREAD, PROGRAM, "`--bisect-run` (git 2.39)")),
    "blame": (),
    "branch": ((REF, RULE, TX, "`-c`/`-C` copy a branch with no ref transaction: no hook runs (files backend)"),
               (CONFIG, ALLOW, UNSEEN)),
    "bugreport": (), "bundle": (), "cat-file": (), "check-attr": (), "check-ignore": (), "check-mailmap": (),
    "check-ref-format": (),
    "checkout": ((REF, RULE, TX), (CONFIG, ALLOW, UNSEEN)),
    "checkout--worker": (), "checkout-index": (), "cherry": (),
    "cherry-pick": ((REF, RULE, TX),),
    "citool": ((REF, ALLOW, TX),),
    "clean": (),
    "clone": ((REF, RULE, NO_HOOK, "the new repository's, which has no agentguard: what the same command line (or "
               "a later check there) does in it is judged with this repository's policy"),
              (CODE, READ, PROGRAM, "`-u`/`--upload-pack`")),
    "column": (),
    "commit": ((REF, RULE, TX),),
    "commit-graph": (), "commit-tree": (),
    "config": ((CONFIG, RULE, UNSEEN), (HOOKS, RULE, HOOKS_OFF)),
    "count-objects": (), "credential": (), "credential-cache": (), "credential-cache--daemon": (),
    "credential-store": (),
    "cvsexportcommit": ((REMOTE, ALLOW, NO_PRE_PUSH, "commits to CVS: no git hook runs there"),),
    "cvsimport": ((REF, ALLOW, TX),),
    "cvsserver": ((REF, ALLOW, TX),),
    "daemon": ((REF, ALLOW, TX, "`--enable=receive-pack`: " + _HOOK_SERVED),
               (CODE, UNREAD, PROGRAM, "`--access-hook`")),
    "describe": (), "diagnose": (), "diff": (), "diff-files": (), "diff-index": (), "diff-tree": (),
    "difftool": ((CODE, READ, PROGRAM, "`-x`/`--extcmd`, `--tool`"),),
    "env--helper": (), "fast-export": (),
    "fast-import": ((REF, ALLOW, TX),),
    "fetch": ((REF, RULE, TX), (CONFIG, ALLOW, UNSEEN), _UPLOAD_PACK),
    "fetch-pack": ((CODE, READ, PROGRAM, "`--upload-pack`, `--exec`; it writes objects, no ref"),),
    "filter-branch": ((REF, RULE, TX), (CODE, READ, PROGRAM, "every `--*-filter`")),
    "filter-repo": ((REF, RULE, TX, "not shipped with git"), (CODE, UNREAD, PROGRAM, "every `--*-callback`")),
    "fmt-merge-msg": (), "for-each-ref": (),
    "for-each-repo": ((CODE, READ, PROGRAM, "the git command line it runs in every repository a config key "
                       "lists"),),
    "format-patch": (), "fsck": (), "fsck-objects": (), "fsmonitor--daemon": (), "gc": (), "get-tar-commit-id": (),
    "gitk": ((REF, ALLOW, TX),),
    "gitweb": (),
    "grep": ((CODE, READ, PROGRAM, "`-O`/`--open-files-in-pager`"),),
    "gui": ((REF, ALLOW, TX), (REMOTE, ALLOW, PRE_PUSH), (CONFIG, ALLOW, UNSEEN)),
    "hash-object": (), "help": (), "hook": (),
    "http-backend": ((REF, ALLOW, TX, "with `http.receivepack`: " + _HOOK_SERVED),),
    "http-fetch": ((REF, ALLOW, TX, "`-w`"),),
    "http-push": ((REMOTE, RULE, NO_PRE_PUSH, "WebDAV remotes; `git push` to one runs pre-push first"),),
    "imap-send": (), "index-pack": (),
    "init": ((REF, RULE, NO_HOOK, "a new repository, judged like a new clone"), (CONFIG, ALLOW, UNSEEN),
             (HOOKS, ALLOW, KEPT, "`--template`, run again in a repository")),
    "init-db": ((CONFIG, ALLOW, UNSEEN), (HOOKS, ALLOW, KEPT)),
    "instaweb": ((CODE, UNREAD, PROGRAM, "`--httpd`, `--browser`"),),
    "interpret-trailers": (), "log": (), "ls-files": (),
    "ls-remote": ((CODE, READ, PROGRAM, "`--upload-pack`, `--exec`"),),
    "ls-tree": (), "mailinfo": (), "mailsplit": (),
    "maintenance": ((REF, ALLOW, TX, "`run --task=prefetch` writes `refs/prefetch/`"), (CONFIG, ALLOW, UNSEEN)),
    "merge": ((REF, RULE, TX),),
    "merge-base": (), "merge-file": (),
    "merge-index": ((CODE, READ, PROGRAM, "its `<merge-program>`"),),
    # the merge strategies and their helpers write the index and the work tree, no ref
    "merge-octopus": (), "merge-one-file": (), "merge-ours": (), "merge-recursive": (), "merge-recursive-ours": (),
    "merge-recursive-theirs": (), "merge-resolve": (), "merge-subtree": (),
    "merge-tree": (),
    "mergetool": ((CODE, UNREAD, PROGRAM, "the merge tool it names"),),
    "mktag": (), "mktree": (), "multi-pack-index": (), "mv": (), "name-rev": (),
    "notes": ((REF, ALLOW, TX, "`refs/notes/*` only: git refuses any other ref"),),
    "p4": ((REF, ALLOW, TX), (REMOTE, ALLOW, NO_PRE_PUSH, "`submit` writes Perforce: no git hook runs there"),
           (CONFIG, ALLOW, UNSEEN)),
    "pack-objects": (), "pack-redundant": (), "pack-refs": (), "patch-id": (), "pickaxe": (), "prune": (),
    "prune-packed": (),
    "pull": ((REF, RULE, TX), (CONFIG, ALLOW, UNSEEN), _UPLOAD_PACK),
    "push": ((REF, ALLOW, TX, "the remote-tracking refs of what it pushed"), (REMOTE, RULE, PRE_PUSH),
             (CONFIG, ALLOW, UNSEEN), _RECEIVE_PACK),
    "quiltimport": ((REF, ALLOW, TX),),
    "range-diff": (), "read-tree": (),
    "rebase": ((REF, RULE, TX), (CODE, READ, PROGRAM, "`--exec`/`-x`")),
    "receive-pack": ((REF, ALLOW, TX),),
    "reflog": ((REF, RULE, NO_HOOK, "`delete`/`expire --updateref` set the ref to an earlier entry of its own "
                "reflog"),),
    "refs": ((REF, ALLOW, TX, "`migrate` (git 2.47) writes every ref again, into reftable storage"),),
    "remote": ((REF, RULE, TX), (CONFIG, RULE, UNSEEN)),
    "remote-ext": _HELPER + ((CODE, RULE, PROGRAM, "the command its address names"),),
    "remote-fd": _HELPER, "remote-ftp": _HELPER, "remote-ftps": _HELPER, "remote-http": _HELPER,
    "remote-https": _HELPER,
    "repack": (),
    "replace": ((REF, ALLOW, TX),),
    "replay": (), "request-pull": (), "rerere": (),
    "reset": ((REF, RULE, TX),),
    "restore": (), "rev-list": (), "rev-parse": (),
    "revert": ((REF, RULE, TX),),
    "rm": (),
    "scalar": ((CONFIG, ALLOW, UNSEEN),),
    "send-email": ((CODE, READ, PROGRAM, "`--sendmail-cmd`, `--to-cmd`, `--cc-cmd`"),),
    "send-pack": ((REMOTE, RULE, NO_PRE_PUSH), _RECEIVE_PACK),
    "sh-i18n": (), "sh-setup": (),
    "shell": ((REF, ALLOW, TX, _HOOK_SERVED), (CODE, UNREAD, PROGRAM, "`~/git-shell-commands`")),
    "shortlog": (), "show": (), "show-branch": (), "show-index": (), "show-ref": (),
    "sparse-checkout": ((CONFIG, ALLOW, UNSEEN),),
    "stage": (),
    "stash": ((REF, ALLOW, TX),),
    "status": (), "stripspace": (),
    "submodule": ((CONFIG, ALLOW, UNSEEN), (CODE, READ, PROGRAM, "`foreach`")),
    "submodule--helper": ((CONFIG, ALLOW, UNSEEN), (CODE, UNREAD, PROGRAM)),
    "subtree": ((REF, ALLOW, TX), (REMOTE, ALLOW, PRE_PUSH, "`push` runs `git push`")),
    "svn": ((REF, ALLOW, TX), (REMOTE, ALLOW, NO_PRE_PUSH, "`dcommit` writes Subversion: no git hook runs there"),
            (CONFIG, ALLOW, UNSEEN)),
    "switch": ((REF, RULE, TX), (CONFIG, ALLOW, UNSEEN)),
    "symbolic-ref": ((REF, RULE, TX_246),),
    "tag": ((REF, ALLOW, TX),),
    "unpack-file": (), "unpack-objects": (), "update-index": (),
    "update-ref": ((REF, RULE, TX),),
    "update-server-info": (), "upload-archive": (), "upload-archive--writer": (), "upload-pack": (), "var": (),
    "verify-commit": (), "verify-pack": (), "verify-tag": (), "version": (), "whatchanged": (),
    "worktree": ((REF, RULE, TX),),
    "write-tree": (),
}


def render_markdown():
    """SECURITY.md's table: per class, the commands grouped by what the analyser and the backstop do."""
    from .families import HANDLERS
    groups: dict = {}
    notes: dict = {}
    for cmd in sorted(COMMANDS):
        for entry in COMMANDS[cmd]:
            groups.setdefault(entry[:3], []).append(cmd)
            if len(entry) > 3:
                notes.setdefault((entry[0], entry[3]), []).append(cmd)
        if not COMMANDS[cmd]:
            groups.setdefault((NONE, RULE if cmd in HANDLERS else ALLOW, None), []).append(cmd)
    legend = "; ".join("**%s** %s" % item for item in CLASSES.items())
    lines = ["Classes: %s; **none**: none of these (it reads, or writes only the work tree, the index or "
             "objects)." % legend, "", "| Class | Commands | `agentguard check` | Backstop |", "|---|---|---|---|"]
    order = list(CLASSES) + [NONE]
    for key in sorted(groups, key=lambda k: (order.index(k[0]), k[1] != RULE, k[1], k[2] or "")):
        cls, decision, coverage = key
        families = ", ".join("`%s`" % f for f in sorted({HANDLERS[c][0] for c in groups[key] if c in HANDLERS}))
        said = ANALYSER[decision].format(families=families, risk=RISK[cls])
        lines.append("| %s | %s | %s | %s |" % (cls, _names(groups[key]), said,
                                                BACKSTOP.get(coverage, "nothing to cover")))
    lines += ["", "Notes:", ""]
    for (cls, note), cmds in sorted(notes.items(), key=lambda item: item[1]):
        lines.append("- %s (%s): %s." % (_names(cmds), cls, note))
    return "\n".join(lines) + "\n"


def _names(cmds):
    return ", ".join("`%s`" % c for c in cmds)
