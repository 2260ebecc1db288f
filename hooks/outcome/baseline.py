"""The pre-check compares with the last known-good state: the snapshot the last check left, not the
repository as it happens to be when the next tool call arrives. Whatever changed the guard's surface
since (a job the earlier call left running: ``setsid -f``, ``nohup ... &``, ``disown``, a forked
process, a ``trap ... EXIT``) is undone here, by the after-check's own mechanism (``after.check``),
before the new snapshot is recorded, and the repair names the call it happened after.

Accepted between calls, as a person's everyday work (never undone here):
- protected refs by today's rules (``snapshot.settled_refs``: fetched, pulled, moved back, a
  person's grant), every remote-tracking ref (a fetch; the after-check of a call still asks the
  remote), a person's commits on any other branch;
- config entries no guard rule reads (``after.guard_entries``: a remote that is not followed, the
  upstream ``git push -u`` sets), and program-running settings in the user's or the system's config
  (``gh auth setup-git``, ``git lfs install``, an editor: every repository's, set by a person's tools);
- the files install only merged into and every other harness file (a person's own settings, a
  teammate's pulled change to a committed settings file, another plugin): the doctor names a hook
  entry taken out of one;
- the break-glass folder: a person's ``agentguard allow``, and the record of a grant they spent.
Undone between calls: the guard's home (the runtime, the manifest, the policy snapshot), every file in
the hooks directory, the files install wrote whole, and the other config entries a guard rule reads
(``core.hooksPath``, includes, a followed remote's URL, an alias that skips hooks, program-running
settings in the repository's own config). A
change to those is accepted only through agentguard itself: ``agentguard install`` (a fresh
baseline), ``doctor --fix`` and install's writes (``snapshot.adopt_own_writes``)."""
import os

from .. import guardconfig, guardpaths
from . import calls, snapshot, store


def record(cwd, call=None):
    """The pre-check: undo what changed the guard since the last known-good snapshot of the work tree at
    ``cwd`` (``since``), then keep its snapshot for ``check --after``, naming ``call`` (the tool call's
    command or tool). Nothing while an after-check's damage is still unrepaired (``snapshot.record``)."""
    where, lost = snapshot.locate_guarded(cwd)  # lost: git no longer answers for it; the after-check says so
    if where is None or lost is not None or not os.path.isdir(where.ag_home):
        return None
    if os.path.exists(store.unrepaired_path(where.ag_home, where.top)):
        return None
    previous = store.load(where.ag_home, where.top)
    if previous is None:
        now = snapshot.take(where)
    else:
        where = known_layout(where, previous)
        now = since(where, previous, snapshot.take(where, previous))
        if now is None:
            return None
    now["call"] = calls.call_record(call)
    store.save(where.ag_home, now, previous)
    return now


def known_layout(where, previous):
    """The layout the last known-good snapshot recorded (as the after-check reads it): a call that
    pointed ``core.hooksPath`` elsewhere does not move what is compared."""
    from ..layout import Layout
    try:
        return Layout.from_json(previous["where"])
    except (TypeError, ValueError, KeyError):
        return where


def since(where, previous, now):
    """The snapshot to keep: ``now``, or the known-good state after a repair; None when the repair failed
    (the last known-good snapshot then stays). ``previous``: the last known-good snapshot."""
    refs = snapshot.settled_refs(where, previous["refs"], now["refs"])
    old, found = previous["files"], now["files"]
    moved = [p for p in set(old) | set(found) if _differs(old.get(p), found.get(p))]
    changed = previous["config"] != now["config"] or refs != now["refs"] or \
        any(e[2] is None for e in found.values())  # install's file, damaged (``take``)
    if moved and not changed:  # the common case (nothing moved) reads nothing more
        own = _own(where)
        changed = any(own(p) for p in moved)
    if not changed:
        return now
    from .. import audit
    from . import after
    from .report import RULE, UNCHANGED, Report
    report = Report()
    own = _own(where)
    heads = {r: o for r, o in refs.items() if r.startswith("refs/heads/")}  # tracking refs: as they are now
    before = dict(previous, refs={r: o for r, o in now["refs"].items() if not r.startswith("refs/heads/")},
                  files={p: e for p, e in previous["files"].items() if own(p)})
    before["refs"].update(heads)
    before["files"].update((p, e) for p, e in now["files"].items() if not own(p))
    before["config"] = [e for e in previous["config"] if not _persons(e)] + [e for e in now["config"] if _persons(e)]
    if "local_remotes" in now:  # a remote on this machine: a teammate's push between calls stands (localremotes)
        before["local_remotes"] = now["local_remotes"]
    try:
        after.check(where, before, report)
    except Exception as exc:  # a bug, git not answering: never the new normal
        report.fail("the check before this call could not finish (%s)" % type(exc).__name__)
    if report.decision == UNCHANGED:
        return dict(now, refs=refs)
    call = previous.get("call") if isinstance(previous.get("call"), dict) else {}
    calls.keep(where, report, call)
    audit.record(where.ag_home, "check", RULE, report.audit_rows(), ["agentguard", "check"])
    if report.failed:
        store.mark_unrepaired(where.ag_home, where.top, True)
        return None
    return before  # the known-good state, not read again: a job still at work is not taken for it


def _own(where):
    """Whether a watched path is the guard's own between calls (see the module's text)."""
    from .. import grant
    owned = set(snapshot.owned_files(where, snapshot.install_record(where)))
    glass = grant.folder(where.ag_home)

    def own(path):
        if path in owned or guardpaths.inside(path, where.hooks_dir):
            return True
        return guardpaths.inside(path, where.ag_home) and not guardpaths.inside(path, glass)
    return own


def _persons(entry):
    """A program-running setting in the user's or the system's config (``gh auth setup-git``'s credential
    helper, ``git lfs install``'s filters, an editor): a person's tools set these between calls."""
    return isinstance(entry, list) and len(entry) == 4 and entry[0] in ("global", "system") and \
        isinstance(entry[2], str) and guardconfig.runs_program(*guardconfig.split(entry[2]))


def _differs(a, b):
    """Type, mode or content changed, or the file came or went (``after.same``, without importing the
    after-check on the common path)."""
    return (a is None) != (b is None) or (a is not None and (a[:2] != b[:2] or a[6] != b[6]))
