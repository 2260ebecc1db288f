"""pre-push: no push lands on a protected branch, whatever the refspec looks like."""
from .. import rules
from .reflines import Malformed, is_zero, parse_prepush
from ..textsafe import safe


def push_refusal(state, policy, data, call, remote_name, url=None, argv=None):
    """The Refusal for this push (pre-push's stdin ``data``), or None when every update may go."""
    remote = remote_name or "origin"
    items = parse_prepush(data)
    if _is_mirror(state, call, items, remote_name):
        return mirror_refusal(remote)
    lines = []
    for item in items:
        if isinstance(item, Malformed):
            if any(policy.classify(w) for w in item.words):
                return rules.Refusal("unreadable-input", "a push agentguard cannot read",
                                     "the line %r is not what git sends to pre-push; refusing on doubt"
                                     % safe(item.text, 120), ["agentguard doctor"])
            continue
        lines.append(item)
    lines = _through_symbolic_refs(state, policy, lines, url)
    if lines is None:
        return rules.symref_unknown(remote)
    from .casefold import remote_ignores_case
    return refuse_protected(policy, lines, remote, lambda: has_no_branches(url), state.ag_home, "pre-push", argv,
                            lambda: remote_ignores_case(url, state.cwd))


def _through_symbolic_refs(state, policy, lines, url):
    """``lines`` with each pushed branch that is a symbolic ref on the remote named by the ref the
    remote updates (pre-push names only what was pushed: `trunk -> main` there moves main); None when
    that cannot be told. The remote is asked (protocol v2 is the one listing that names symbolic
    refs) only for a branch that stands where this clone's tracking refs say a protected branch
    stands there: a stale tracking ref hides it (SECURITY.md; the push guard lists the remote)."""
    updates = [i for i in lines if not policy.classify(i.remote_ref) and not is_zero(i.remote_oid)]
    if not updates:
        return lines  # creations and protected names only: no git process for the tracking refs
    protected = {oid for ref, oid in state.remote_tracking() if (policy.classify(ref) or ("",))[0] == "remote"}
    suspects = [i for i in updates if i.remote_oid in protected]
    if not suspects:
        return lines
    from ..gitmodel.refnames import follow_symrefs
    from ..pushguard.native import advertisement
    listed = advertisement(url) if url else None
    if listed is None:
        return None
    out = []
    for item in lines:
        target = follow_symrefs(item.remote_ref, listed[1]) if item in suspects else item.remote_ref
        if target is None:
            return None
        out.append(item._replace(remote_ref=target))
    return out


def mirror_refusal(remote):
    return rules.Refusal("push-mirror", "a mirror push to %s" % safe(remote, 80),
                         "a mirror push can delete or rewrite protected branches without showing them to hooks",
                         ["git push %s <branch>   # push the branches you mean, one by one" % safe(remote, 60)])


def has_no_branches(url):
    """The remote at ``url`` (the URL git pushes to, used as it is: ``pushguard.native.TOKEN``) has
    no branch at all, asked of it (``git ls-remote``); False when it cannot be asked."""
    from .. import gitio
    from ..pushguard.native import TOKEN
    if not url:
        return False
    try:
        rc, out = gitio.run(["ls-remote", TOKEN], timeout=30.0, env=gitio.with_config("url.%s.insteadOf" % url, TOKEN))
    except gitio.GitError:
        return False
    return rc == 0 and not any(row.partition(b"\t")[2].startswith(b"refs/heads/") for row in out.splitlines())


def refuse_protected(policy, items, remote, remote_is_empty, ag_home=None, hook="pre-push", argv=None,
                     remote_ignores_case=lambda: True):
    """The refusal for a push of ``items`` (PushLine) to ``remote`` when any lands on a protected
    branch, else None: the rule the pre-push hook and the push guard in git's transport share.
    The one exception: the first push of a project, which creates protected branches on a remote
    that has no branch at all (``remote_is_empty()``, asked only then); every other update of a
    protected branch is refused, unless a person's break-glass grant for every protected branch the
    push updates (``agentguard allow``) lets it through, consumed; a deletion is never granted."""
    hits = []
    for item in items:
        # another letter case of a protected name is that branch on a remote whose file system
        # ignores case (macOS, Windows): judged as that branch unless the remote is a local path on
        # a file system that keeps case (``remote_ignores_case()``, asked only for such a name)
        kind = policy.classify(item.remote_ref)
        if kind is None and policy.classify(item.remote_ref, fold=True) and remote_ignores_case():
            kind = policy.classify(item.remote_ref, fold=True)
        if kind and kind[0] == "local":
            hits.append((item, kind[1]))
    if not hits:
        return None
    if all(is_zero(i.remote_oid) and not is_zero(i.local_oid) for i, _ in hits) and remote_is_empty():
        return None
    if not any(is_zero(i.local_oid) for i, _ in hits):
        from .. import grant  # only where a refusal is at stake
        if grant.consume(ag_home, [(b, i.remote_ref, i.remote_oid, i.local_oid) for i, b in hits], hook, argv):
            return None
    item, branch = hits[0]
    b = safe(branch, 80)
    if is_zero(item.local_oid):
        what = "deleting protected branch '%s' on %s" % (b, safe(remote, 80))
        steps = ["(delete or rename protected branches in the server's settings, not from an agent)"]
    else:
        what = "pushing to protected branch '%s' on %s" % (b, safe(remote, 80))
        steps = ["git push -u %s HEAD:refs/heads/%s   # push to a new branch" % (safe(remote, 60), rules.NEW_BRANCH),
                 "then open a pull request into '%s'" % b]
    more = " (and %d more protected)" % (len(hits) - 1) if len(hits) > 1 else ""
    return rules.Refusal("push-protected", what + more,
                         "nothing was pushed, not even the other refs of this push", steps,
                         [(i.remote_ref, i.remote_oid, i.local_oid) for i, _ in hits])


def _is_mirror(state, call, items, remote_name):
    """A mirror push: the ``--mirror`` flag when the caller's argv is known; else what git shows of
    one: ``remote.<name>.mirror``, or a ref pushed into the remote's ``refs/remotes/`` (a mirror pushes
    the clone's remote-tracking refs; no branch push writes there)."""
    if call is not None and call.cmd == "push" and call.has("--mirror"):
        return True
    if remote_name and state.config_bool("remote.%s.mirror" % remote_name):
        return True
    return call is None and any(not isinstance(i, Malformed) and i.remote_ref.startswith("refs/remotes/")
                                for i in items)
