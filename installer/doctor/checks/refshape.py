"""Protected branches that are not plain refs: one made a symbolic ref (``ref: refs/heads/feature``,
written by hand or with the hooks off: it moves whenever its target does, unseen by the backstop), or
whose loose ref file has a second name (a hard link) or is a symlink (writing the other name moves
it without git). ``doctor --fix`` makes each a ref of its own again, never writing through a symref:
at the place the after-check's last snapshot recorded, else where it resolves to now (the ``rescue``
repair then moves it back if that holds commits its remote lacks)."""
import os
import stat

from ....hooks.textsafe import safe
from ...gitaccess.repo import is_reftable
from .base import Repair


def _odd(ctx):
    """[(branch, why, target or None)] of the protected local branches that are not plain refs."""
    def read():
        out = []
        names = [[ref, target] for ref, _, target in ctx.refs() if ref.startswith("refs/heads/")]
        names += [["refs/heads/" + b, None] for b in ctx.policy.branches
                  if not any(c in b for c in "*?[") and "refs/heads/" + b not in {n for n, _ in names}]
        for ref, target in names:
            kind = ctx.policy.classify(ref)
            if not kind or kind[0] != "local":
                continue
            loose = os.path.join(ctx.info.common_dir, *ref.split("/"))
            if target is None and (os.path.lexists(loose) or is_reftable(ctx.info, ctx.git)):
                # not listed: a dangling symref, or no such branch (files storage keeps a symref in a
                # loose file only: no file, no symref)
                target = ctx.git(["symbolic-ref", "-q", ref]).strip() or None
            if target:
                out.append((kind[1], "a symbolic ref to %s" % target, target))
                continue
            try:
                st = os.lstat(loose)
            except OSError:
                continue
            if stat.S_ISLNK(st.st_mode) or stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
                out.append((kind[1], "a loose ref file with another name (a hard link or a symlink)", None))
        return out
    return ctx.memo("refshape", read)


def check_refshape(ctx):
    if ctx.policy is None:
        return
    odd = _odd(ctx)
    if odd:
        ctx.add("refs.shape", "fail", "; ".join("protected branch %s is %s" % (safe(b, 80), safe(why, 200))
                                                         for b, why, _ in odd[:3]),
                "agentguard doctor --fix   # makes each a ref of its own again", repair=REFSHAPE)
    else:
        ctx.add("refs.shape", "pass", "every protected branch is a plain ref")


def _refshape(doctor):
    from ....hooks.gitio import scrubbed_env
    from ....hooks.outcome import reflinks, snapshot, store
    from ....hooks.outcome.report import Report
    where = snapshot.locate(doctor.info.top)
    if where is None:
        return
    recorded = (store.load(where.ag_home, where.top) or {}).get("refs") or {}
    refs = snapshot.read_git(where)[1]
    report = Report()
    for ref in [r for r in recorded if r not in refs]:  # a dangling symref is not listed
        target = reflinks.symref_of(where, ref, scrubbed_env())
        if target:
            refs.symrefs[ref] = target
    # where each stood at the last snapshot, else where it resolves now (never "did not exist": that deletes)
    old = {ref: recorded.get(ref) or refs.get(ref) for ref in refs.symrefs if recorded.get(ref) or refs.get(ref)}
    refs.symrefs = {ref: t for ref, t in refs.symrefs.items() if ref in old}
    reflinks.undo_symrefs(where, {"refs": old, "symrefs": {}}, refs, report)
    reflinks.unshare_refs(where, snapshot.read_git(where)[1], report)
    doctor.notes.extend([u["what"] for u in report.undone] + ["could not: " + f for f in report.failed])


REFSHAPE = Repair("refshape", -1, _refshape)  # before the reinstall: its fresh baseline must see main as a ref
