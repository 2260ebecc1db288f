"""Which family of the git rules judges which command: ``HANDLERS``, read by the dispatch (``gitrules``) and
by SECURITY.md's table (``commands.render_markdown``)."""

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
    "filter-repo": ("branches", "rewrite_all"), "reflog": ("branches", "reflog"),
    # remotes
    "fetch": ("remote", "fetch"), "push": ("remote", "push"), "remote": ("remotecfg", "remote"),
    # push plumbing: no pre-push hook runs (commands.py: every command, by what it can do)
    "send-pack": ("remote", "send_pack"), "http-push": ("remote", "http_push"),
    **{"remote-" + h: ("remote", "remote_helper") for h in ("ext", "fd", "ftp", "ftps", "http", "https")},
    # the guard's files
    "rm": ("paths", "paths"), "mv": ("paths", "paths"), "restore": ("paths", "paths"),
    # hooks and aliases
    "config": ("gitconfig", "config"),
    # new repositories: later commands there are judged with the guarded repository's policy
    "clone": ("repos", "clone"), "init": ("repos", "init"),
}
