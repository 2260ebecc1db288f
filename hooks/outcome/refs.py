"""Protected branches and their remote-tracking refs after a tool call: a tracking ref is believed
only when the remote (at its recorded URL) says the same; a protected branch may stand where it
was, behind where it was, or on a believed counterpart. Anything else is put back, and the commits
it held are kept on a new branch, ``agentguard/rescued/<branch>-<time>``: nothing is lost."""
import time

from .. import gitio, grant
from ..gitmodel.refnames import is_full_oid

RESCUE_PREFIX = "agentguard/rescued/"


def tracking_of(ref, remotes, policy):
    """(remote, branch) when ``ref`` is ``refs/remotes/<remote>/<protected branch>`` of a remote in
    ``remotes``, else None."""
    for remote in remotes:
        prefix = "refs/remotes/%s/" % remote
        if ref.startswith(prefix) and policy.is_protected(ref[len(prefix):]):
            return remote, ref[len(prefix):]
    return None


def remote_names(policy, state):
    """The remotes protected branches follow, longest name first (``refs/remotes/a/b/main``)."""
    recorded = policy.remotes
    return sorted(recorded if recorded is not None else state.remotes(), key=len, reverse=True)


def counterparts(branch, refs, remotes, policy, state):
    """[(remote, tracking ref, oid)] in ``refs`` of ``branch`` on a remote it follows, origin first."""
    out = []
    for ref, oid in sorted(refs.items()):
        found = tracking_of(ref, remotes, policy)
        if found is not None and found[1] == branch and state.follows(found[0]):
            out.append((found[0] != "origin", found[0], ref, oid))
    return [row[1:] for row in sorted(out)]


def may_stand(branch, new, old, refs, policy, state):
    """True when protected ``branch`` may be at ``new`` after being at ``old``: a counterpart in
    ``refs`` has it (fetched, pulled), it moved back along its own history, or a person's
    break-glass grant put it exactly there (``grant.moved_by_grant``)."""
    if any(state.is_ancestor(new, oid) for _, _, oid in counterparts(branch, refs, remote_names(policy, state),
                                                                      policy, state)):
        return True
    return old is not None and state.is_ancestor(new, old) or grant.moved_by_grant(state.ag_home, branch, new)


def update(where, ref, new, old, message):
    """Move ``ref`` from ``old`` to ``new`` (None: delete / create), with git checking ``old``."""
    zero = "0" * 40
    args = gitio.REPAIR + ["update-ref", "--no-deref", "-m", "agentguard: " + message]  # never through a symref
    if new is None:
        args += ["-d", ref] + ([old] if old else [])
    else:
        args += [ref, new, old or zero]
    rc, _ = gitio.run(args, cwd=where.top)
    return rc == 0


def exists(where, oid):
    rc, _ = gitio.run(["cat-file", "-e", oid + "^{commit}"], cwd=where.top)
    return rc == 0


def rescue(where, state, branch, tip, back_to, report, why):
    """Keep ``tip`` on a new rescue branch, move ``branch`` back to ``back_to`` (None: delete it), and,
    when this work tree was on ``branch``, put it on the rescue branch (its files stay as they are)."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    name = "%s%s-%s" % (RESCUE_PREFIX, branch, stamp)
    n = 1
    while not update(where, "refs/heads/" + name, tip, None, "rescued %s" % branch):
        n += 1
        if n > 20:
            report.fail("protected branch %s holds commits its remote does not have (%s), and agentguard could not "
                        "keep them on a new branch" % (branch, tip[:12]))
            return False
        name = "%s%s-%s-%d" % (RESCUE_PREFIX, branch, stamp, n)
    ref = "refs/heads/" + branch
    on_it = state.head_branch() == branch
    if on_it:
        gitio.run(gitio.REPAIR + ["symbolic-ref", "-m", "agentguard: rescued " + branch, "HEAD", "refs/heads/" + name],
                  cwd=where.top)
    if not update(where, ref, back_to, tip, "put back " + branch):
        report.fail("protected branch %s could not be moved back to %s (its commits are on %s)"
                    % (branch, (back_to or "nothing")[:12], name))
        return False
    report.rescued.append(name)
    where_now = " and this work tree is on that branch now" if on_it else ""
    report.add("ref", "moved protected branch %s back to %s (%s); nothing is lost: its commits %s..%s are on %s%s"
               % (branch, back_to[:12] if back_to else "where it was (it did not exist)", why,
                  (back_to or "")[:7], tip[:7], name, where_now), ref=ref, old=back_to or "", new=tip)
    return True


def undo(where, before, now, policy, state, report, new_repo=False):
    """Put back the protected refs ``now`` ({ref: oid}) that ``before`` does not allow. ``new_repo``:
    no branch existed before the call, so its first commit may create a protected branch (as the
    backstop allows it: ``backstop.reftx``, docs/policy.md "Empty repositories")."""
    remotes = remote_names(policy, state)
    believed = dict(now)
    for ref in sorted(set(before) | set(now)):
        if not ref.startswith("refs/remotes/") or before.get(ref) == now.get(ref) or now.get(ref) is None:
            continue
        found = tracking_of(ref, remotes, policy)
        if found is None:
            continue
        remote, branch = found
        if state.follows(remote) and state.remote_advertises(remote, branch) == now[ref]:
            continue
        old = before.get(ref)
        if update(where, ref, old, now[ref], "put back " + ref):
            report.add("ref", "put remote-tracking ref %s back to %s (%s does not have %s)"
                       % (ref, (old or "nothing")[:12], remote, now[ref][:12]), ref=ref, old=old or "", new=now[ref])
            believed[ref] = old
            if old is None:
                believed.pop(ref, None)
        else:
            report.fail("remote-tracking ref %s was set to %s, which %s does not have, and could not be put back"
                        % (ref, now[ref][:12], remote))
    for ref in sorted(set(before) | set(now)):
        if not ref.startswith("refs/heads/"):
            continue
        old, new, branch = before.get(ref), now.get(ref), ref[len("refs/heads/"):]
        if old == new:
            continue
        if new is None:
            if old and is_full_oid(old) and exists(where, old) and update(where, ref, old, None, "put back " + branch):
                report.add("ref", "put protected branch %s back at %s (it was deleted)" % (branch, old[:12]),
                           ref=ref, old=old, new="")
            else:
                report.fail("protected branch %s was deleted and could not be put back" % branch)
            continue
        if old is None and new_repo:
            continue  # the first commit of a new repository
        if may_stand(branch, new, old, believed, policy, state):
            continue  # fetched or pulled (its remote has it), or moved back along its own history
        rescue(where, state, branch, new, old, report, "it had moved to commits its remote does not have")


def rescue_local_only(where, refs, policy, state, report):
    """Without a record of where they stood: every protected branch holding commits that no
    counterpart of a followed remote has is moved back to that counterpart (its commits kept on a
    rescue branch). A branch without any counterpart is left alone: there is nowhere to put it."""
    remotes = remote_names(policy, state)
    for ref, tip in sorted(refs.items()):
        if not ref.startswith("refs/heads/"):
            continue
        branch = ref[len("refs/heads/"):]
        found = counterparts(branch, refs, remotes, policy, state)
        if not found or any(state.is_ancestor(tip, oid) for _, _, oid in found) \
                or grant.moved_by_grant(state.ag_home, branch, tip):
            continue
        _, counterpart, oid = found[0]
        rescue(where, state, branch, tip, oid, report,
               "it held commits %s does not have" % counterpart[len("refs/remotes/"):])
