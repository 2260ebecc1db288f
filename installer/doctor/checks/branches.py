"""Protected branches: none holds commits its remote counterpart lacks (what the backstop refuses to
create, left by a bypass; ``doctor --fix`` moves it back, its commits kept on a rescue branch), each
has a counterpart it follows, and each followed tracking ref holds what its remote has. The answers
come from the runtime's own ``RepoState``, so the backstop and the doctor cannot disagree."""
import os
from contextlib import contextmanager

from ....hooks import grant
from ....hooks.gitio import GitError, scrubbed_env
from ....hooks.repostate import RepoState
from ....hooks.textsafe import safe
from ...errors import AgentguardError
from ...gitaccess.gitenv import git_ok
from .base import Repair


def rescue_branches(top):
    """The after-check's rescue, for people: [one line per branch moved back, or not]."""
    from ....hooks.outcome import refs, snapshot
    from ....hooks.outcome.report import Report
    where = snapshot.locate(top)
    policy = snapshot.policy_of(where) if where is not None else None
    if policy is None:
        return ["no protected branch was moved: the policy snapshot cannot be read (agentguard install)"]
    report = Report()
    refs.rescue_local_only(where, snapshot.read_git(where)[1], policy, RepoState.of(where),
                           report)
    return [u["what"] for u in report.undone] + ["could not: " + f for f in report.failed]


def _rescue(doctor):
    doctor.notes.extend(rescue_branches(doctor.info.top))


RESCUE = Repair("rescue", 2, _rescue)


@contextmanager
def _clean_git_env():
    """``RepoState`` runs git with this process's environment; the doctor's must not name another
    repository (``GIT_DIR``, ``GIT_OBJECT_DIRECTORY``, ...), as ``gitenv.clean_env`` ensures for the rest."""
    saved = {k: os.environ.pop(k) for k in os.environ.keys() - scrubbed_env().keys()}
    try:
        yield
    finally:
        os.environ.update(saved)


def _protected_branches(ctx):
    """({protected local branch: oid}, {protected branch: {remote: oid of its tracking ref}})."""
    def read():
        local, tracking = {}, {}
        for ref, oid, _ in ctx.refs():
            kind = ctx.policy.classify(ref)
            if kind and kind[0] == "local":
                local[kind[1]] = oid
            elif kind and kind[0] == "remote":
                tracking.setdefault(kind[2], {})[kind[1]] = oid
        return local, tracking
    return ctx.memo("protected-branches", read)


def _ask(ctx, question):
    """``question(state)``: the runtime's own answer (a ``RepoState``), in the doctor's clean environment."""
    state = ctx.memo("state", lambda: RepoState.of(ctx.info))
    try:
        with _clean_git_env():
            return question(state)
    except GitError as exc:
        raise AgentguardError(str(exc))


def _followed(ctx):
    """{protected branch: {remote: tracking oid}} of the remotes protected branches follow now."""
    _, tracking = _protected_branches(ctx)
    return ctx.memo("followed", lambda: _ask(ctx, lambda state: {
        b: {r: oid for r, oid in refs.items() if state.follows(r)} for b, refs in tracking.items()}))


def check_ahead(ctx):
    """A protected branch whose commit is not on a remote counterpart: what the backstop refuses to
    create (``RepoState.on_counterpart``), left behind by a bypass."""
    if ctx.policy is None:
        return
    local, _ = _protected_branches(ctx)
    followed = _followed(ctx)
    ahead = _ask(ctx, lambda state: [b for b, oid in sorted(local.items())
                                     if followed.get(b) and not state.on_counterpart(oid, b)
                                     and not grant.moved_by_grant(ctx.info.ag_home, b, oid)])
    if ahead:
        b = safe(ahead[0], 80)
        r = safe(sorted(followed[ahead[0]])[0], 60)
        ctx.add("branches.ahead", "fail", "protected branch %s holds commits its remote counterpart does not "
                "have (left by `git branch -C`, a hand-written ref or an earlier bypass)"
                % ", ".join(safe(a, 80) for a in ahead),
                "agentguard doctor --fix   # or by hand: git branch <new-branch> %s && git switch -C %s %s/%s"
                % (b, b, r, b), repair=RESCUE)
    else:
        ctx.add("branches.ahead", "pass", "no protected branch holds local-only commits")


def _has_remote(ctx):
    """``git remote`` names one. Asked of git only when the config has a ``remote.*`` key or the legacy
    ``remotes/`` or ``branches/`` directory has an entry (where git finds remotes): none, no remote."""
    legacy = False
    for name in ("remotes", "branches"):
        try:
            legacy = legacy or bool(os.listdir(os.path.join(ctx.info.common_dir, name)))
        except OSError:
            continue
    if not legacy and not ctx.git(["config", "--get-regexp", r"^remote\."]).strip():
        return False
    return bool(ctx.git(["remote"]).strip())


def check_counterpart(ctx):
    if ctx.policy is None:
        return
    local, tracking = _protected_branches(ctx)
    followed = _followed(ctx)
    alone = [b for b in sorted(local) if not followed.get(b)]
    if not alone or not _has_remote(ctx):
        return
    others = sorted({r for b in alone for r in tracking.get(b, {})})
    names = ", ".join(safe(a, 80) for a in alone)
    if others:
        ctx.add("branches.counterpart", "warn", "protected branch %s has remote-tracking refs only of remotes it "
                "does not follow (%s: added, renamed or re-pointed since install), so it cannot move"
                % (names, ", ".join(safe(r, 60) for r in others)),
                "git remote -v   # check the URLs; then: agentguard install")
    else:
        ctx.add("branches.counterpart", "warn", "protected branch %s has no remote-tracking counterpart, so "
                "it cannot move at all" % names, "git fetch")


def check_tracking(ctx):
    """Each followed remote's tracking ref of a protected branch holds only what that remote's branch
    has (``git ls-remote``): one forged through a hole would let the branch move onto anything."""
    if ctx.policy is None or not ctx.live:
        return
    by_remote: dict = {}
    for branch, refs in _followed(ctx).items():
        for remote, oid in refs.items():
            by_remote.setdefault(remote, {})[branch] = oid
    if not by_remote:
        return
    bad, unsure = [], []
    for remote, refs in sorted(by_remote.items()):
        real = _ask(ctx, lambda state: state.remote_heads(remote, sorted(refs)))
        if real is None:
            unsure.append(("could not ask %s (git ls-remote failed or did not answer in time)" % safe(remote, 60),
                           None))
            continue
        for branch, oid in sorted(refs.items()):
            found = _judge_tracking(ctx, remote, branch, oid, real.get(branch))
            if found:
                (bad if found[0] == "fail" else unsure).append(found[1:])
    worst = bad or unsure
    if worst:
        ctx.add("branches.tracking", "fail" if bad else "warn", "; ".join(w[0] for w in worst[:3]),
                next((w[1] for w in worst if w[1]), "git fetch   # then: agentguard doctor"))
    else:
        ctx.add("branches.tracking", "pass", "the remote-tracking refs of protected branches hold what their remotes "
                "have (%s, asked with git ls-remote)" % ", ".join(safe(r, 60) for r in sorted(by_remote)))


def _judge_tracking(ctx, remote, branch, oid, real):
    """None when ``refs/remotes/<remote>/<branch>`` at ``oid`` is the remote's ``real`` tip or behind
    it; else (status, summary, fix)."""
    r, b, ref = safe(remote, 60), safe(branch, 80), safe("refs/remotes/%s/%s" % (remote, branch), 200)
    if oid == real:
        return None
    if real is None:
        return ("fail", "%s has no branch %s, yet %s points at %s" % (r, b, ref, oid), "git fetch --prune %s" % r)
    if not git_ok(["cat-file", "-e", real + "^{commit}"], cwd=ctx.info.top):
        return ("warn", "%s's %s is at %s, not fetched yet, so %s cannot be judged" % (r, b, real, ref),
                "git fetch %s   # then: agentguard doctor" % r)
    if _ask(ctx, lambda state: state.is_ancestor(oid, real)):
        return None  # behind: the remote moved on since the last fetch
    return ("fail", "%s points at %s, which %s's %s (%s) does not contain: it was not written by a fetch from %s"
            % (ref, oid, r, b, real, r), "git fetch %s '+refs/heads/%s:%s'   # resets it to the remote's %s"
            % (r, b, ref, b))


