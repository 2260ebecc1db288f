"""``agentguard check --after``: compare the repository with the snapshot taken before the tool call
(the install's record when there is none) and undo what the call did to the guard: config entries
the guard's rules read, the guard's files and the files that can switch it off, protected refs."""
import os

from .. import audit, gitio, guardconfig
from ..saferead import read_regular
from ..layout import Layout
from ..repostate import RepoState
from .refs import rescue_local_only, undo
from . import grants, localremotes, reflinks, snapshot, store
from .report import RULE, UNCHANGED, Report

ROUNDS = 3  # config undone, read again: an included file taken away can uncover (or hide) more


def run(cwd="."):
    """The Report of one after-check in the repository at ``cwd`` (never raises)."""
    report = Report()
    where = None
    try:
        where, lost = snapshot.locate_guarded(cwd)
        if where is None:
            return report
        if not os.path.isdir(where.ag_home):
            if _names_agentguard(os.path.join(where.hooks_dir, "reference-transaction")):
                report.fail("the guard's home %s is gone while git's hooks still run it; run `agentguard install`"
                            % _show(where, where.ag_home))
            where = None
            return report
        before = store.load(where.ag_home, where.top)
        if before is not None:
            where = Layout.from_json(before["where"])
        else:
            before = from_manifest(where)
        if lost is None:
            check(where, before, report)
        else:
            checked_where_git_does_not_answer(where, before, lost, report)
        from . import calls, running
        report.fold(calls.take_kept(where))
        report.running = running.left_running(where, before.get("call"))
        if report.decision != UNCHANGED and not report.failed:
            # the known-good state, not read again (a job still at work would be taken for it, #29)
            store.save(where.ag_home, before if not before.get("owned_only") else snapshot.take(where, before))
    except Exception as exc:  # a bug, git not answering: say so, never pass silently
        report.fail("the after-check could not finish (%s)" % type(exc).__name__)
    if where is not None and os.path.isdir(where.ag_home):
        store.mark_unrepaired(where.ag_home, where.top, bool(report.failed))
    if (report.undone or report.failed) and where is not None:
        audit.record(where.ag_home, "check --after", RULE, report.audit_rows(), ["agentguard", "check", "--after"])
    return report


def checked_where_git_does_not_answer(where, before, lost, report):
    """``check`` of a work tree git no longer answers for as the snapshot recorded it (``lost``: what git
    says instead). Read as bare or with its work tree elsewhere, git still reads its config and refs:
    ``check`` puts ``core.bare``/``core.worktree`` back and the refs as usual; what git still says after
    that, and a place where git sees no repository at all (nothing can be asked of it), is unrepaired."""
    from .unanswered import NO_REPOSITORY, lost_because
    if lost == NO_REPOSITORY:
        report.fail("git no longer sees the repository of %s: nothing can be asked of it, so what the call did "
                    "to protected branches and git's config is not checked; make `git status` work there again "
                    "(the call may have broken .git/HEAD or .git/config)" % where.top)
        return
    check(where, before, report)
    still = lost_because(where)
    if still is not None:
        report.fail("%s could not be made a work tree again (%s)" % (where.top, still))


def _names_agentguard(path):
    return b"agentguard" in (read_regular(path, 4096) or b"")


def check(where, before, report):
    record = snapshot.install_record(where)
    policy = snapshot.policy_of(where, record)
    state = RepoState.of(where)
    if policy is not None:
        reflinks.clear_odd_refs(where, policy, before.get("refs"), report)  # a FIFO would hang git 2.39
    reading = localremotes.start(where, before, policy, snapshot.describe)  # alongside read_git's processes
    config, refs = snapshot.read_git(where, policy)
    localremotes.undo(where, before, reading, report)  # first: the refs check below asks the remote
    if before.get("config") is not None:
        undo_config(where, before["config"], config, policy, report)
    undo_files(where, before, snapshot.owned_files(where, record), report)
    reflinks.unshare_files(where, snapshot.LINKED, report, lambda path: _show(where, path))
    if policy is not None:
        reflinks.unshare_refs(where, refs, report)
        if before.get("refs") is not None:
            new_repo = before.get("no_branches") is True
            refs = reflinks.undo_symrefs(where, before, refs, report)  # the ref itself, never through it
            undo(where, before["refs"], refs, policy, state, report, new_repo=new_repo)
        else:
            rescue_local_only(where, refs, policy, state, report)


# -- config ---------------------------------------------------------------------------------------
def guard_entries(config, policy, known=None):
    """{(file, key, value): count} of the entries a guard rule reads (``guardconfig.rule_for``).
    ``known``: the remotes configured before the call, all followed when install recorded none (a
    project installed before its first remote): a remote the call adds is ordinary work."""
    recorded = policy.remotes if policy is not None else None

    def follows(name):
        return name in recorded if recorded is not None else known is None or name in known

    protects = policy.is_protected if policy is not None else None
    counts: dict = {}
    for scope, path, key, value in config:
        if path is not None and guardconfig.rule_for(key, value, follows, protects):  # (None: a bare key)
            counts[(path, key, value)] = counts.get((path, key, value), 0) + 1
    return counts


def minus(a, b):
    """The entries of multiset ``a`` not in ``b`` (each as often as it is missing)."""
    return [entry for entry, n in sorted(a.items(), key=repr) for _ in range(n - b.get(entry, 0))]


def _added(have, want):
    """The guard's entries the call added, but the upstream ``git push -u`` sets (left alone:
    ``guardconfig.counterpart_upstream``)."""
    return [e for e in minus(have, want) if not guardconfig.counterpart_upstream(e[1], e[2] or "")]


def undo_config(where, before, now, policy, report):
    known = {guardconfig.split(key)[1] for _, _, key, _ in before if key.lower().startswith("remote.")}
    want = guard_entries(before, policy, known)
    for _ in range(ROUNDS):
        have = guard_entries(now, policy, known)
        added, removed = _added(have, want), minus(want, have)
        if not added and not removed:
            return
        for path, key, value in added:
            args = ["config", "--file", path, "--unset-all", key]
            if value is not None:
                args[3:3] = ["--fixed-value"]
                args.append(value)
            rc, _ = gitio.run(args, cwd=where.top)
            if rc == 0:
                report.add("config", "removed %s from %s" % (_entry(key, value), _show(where, path)), key=key,
                           new=value or "", path=path)
        for path, key, value in removed:
            rc, _ = gitio.run(["config", "--file", path, "--add", key, value if value is not None else "true"],
                              cwd=where.top)
            if rc == 0:
                report.add("config", "put back %s in %s" % (_entry(key, value), _show(where, path)), key=key,
                           old=value or "", path=path)
        now = snapshot.read_git(where, policy)[0]
    have = guard_entries(now, policy, known)
    for path, key, value in _added(have, want) + minus(want, have):
        report.fail("%s in %s could not be undone" % (_entry(key, value), _show(where, path)))


def _entry(key, value):
    return key if value is None else "%s=%s" % (key, value)


def _show(where, path):
    for base in (where.top, os.path.expanduser("~")):
        rel = os.path.relpath(path, base)
        if not rel.startswith(".."):
            return rel if base == where.top else os.path.join("~", rel)
    return path


# -- files ----------------------------------------------------------------------------------------
def same(a, b):
    return a is not None and b is not None and a[0] == b[0] and a[1] == b[1] and a[6] == b[6]


def undo_files(where, before, owned, report):
    """``owned``: {path: (sha256, mode)} of the files install wrote whole (``snapshot.owned_files``)."""
    roots = snapshot.watched_roots(where)
    old = before.get("files") or {}
    if isinstance(before.get("roots"), list) and before["roots"] != roots:
        # another HOME than the snapshot's: compare only what both saw, never one home's files for the other's
        roots = [r for r in roots if r in before["roots"]]
        old = {p: e for p, e in old.items() if p in owned or any(snapshot.under(p, r) for r in roots)}
    now = snapshot.files(where, old, roots)
    for path in owned:
        if path not in now:
            entry = snapshot.describe(path, old.get(path), where.ag_home)
            if entry is not None:
                now[path] = entry
    paths = set(now) | set(old) if not before.get("owned_only") else set(old)
    glass = {p for p in paths if grants.is_grant_path(where, p)}
    if glass:
        grants.undo(where, {p: e for p, e in old.items() if p in glass}, {p: e for p, e in now.items() if p in glass},
                    report, same, store.take_away, _show)
    for path in sorted(paths - glass):
        b, n = old.get(path), now.get(path)
        if b is None and n is None or same(b, n):
            continue
        shown = _show(where, path)
        if b is None:
            store.take_away(path)
            report.add("file", "removed %s, which the call added (its bytes are kept in %s)"
                       % (shown, _show(where, os.path.join(store.home(where.ag_home), "store", n[6]))), path=path)
            continue
        if not store.put_back(where.ag_home, path, b):
            report.fail("%s changed and its earlier bytes are not kept; run `agentguard install`" % shown)
            continue
        how = "it was deleted" if n is None else "its mode was changed" if n[6] == b[6] else "it was changed"
        report.add("file", "restored %s (%s)" % (shown, how), path=path)


# -- no snapshot ------------------------------------------------------------------------------------
def from_manifest(where):
    """A baseline from the install's record: the files it wrote whole, with their hashes and modes."""
    files = {path: ["f", mode, None, None, None, None, digest]
             for path, (digest, mode) in snapshot.owned_files(where, snapshot.install_record(where)).items()}
    return {"files": files, "config": None, "refs": None, "owned_only": True}
