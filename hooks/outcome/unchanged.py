"""``check --after``'s common case, told apart cheaply: the tool call changed nothing the after-check
compares. The snapshot is taken again exactly as the pre-check took it (``snapshot.take``, the
stored layout and roots, the stored hashes lent where a file's stat is unchanged, ctime and inode included)
and compared, whole, with the snapshot as ``after.run`` reads it (``store.parse``): the same values mean
that every comparison ``after.check`` makes (config entries, files, protected refs and their symbolic
refs, the local-path remotes) finds nothing. (Compared as values, not as the bytes ``store.serialize``
would write again: the same answer for any snapshot the pre-check wrote, a tenth of the CPU time.)
Whatever else ``after.run`` would act on sends the check to
``after.run`` itself: no snapshot that reads, a marker of damage not undone, repairs a pre-check left
to tell, a protected branch's loose ref file that is not a plain file of its own (``reflinks``:
a FIFO, a symlink, a hard link), a file with a second name, a file install wrote whole that does not
hold install's bytes. The stored snapshot is the same one ``after.run`` would trust: a forged one
gets no more from this path than from the full check (and what differs goes there).
Read-only: it writes, repairs and imports nothing of the after-check."""
import os
import stat

from . import snapshot, store


def nothing_to_undo(cwd):
    """True only when ``after.run(cwd)`` would find nothing to undo, fail or tell, and write nothing."""
    where, lost = snapshot.locate_guarded(cwd)
    if where is None or lost is not None or not os.path.isdir(where.ag_home) or _left_to_tell(where):
        return False
    raw = _read(store.snapshot_path(where.ag_home, where.top))
    before = store.parse(raw, where.top)
    if before is None or before.get("owned_only") is not None:
        return False
    from ..layout import Layout
    try:
        where = Layout.from_json(before["where"])
    except (TypeError, ValueError, KeyError):
        return False
    if not os.path.isdir(where.ag_home) or _left_to_tell(where):
        return False
    record = snapshot.install_record(where)  # read once, for the policy and the files install wrote
    policy = snapshot.policy_of(where, record)
    if policy is None or not _plain_ref_files(where, policy, before["refs"]):
        return False  # before git reads the refs: a FIFO there would hang git 2.39
    snapshot.LINKED.clear()
    now = snapshot.take(where, before, _stored_roots(where, before.get("roots")), record)
    if snapshot.LINKED or any(entry[2] is None for entry in now["files"].values()):
        return False  # a second name to undo (``reflinks.unshare_files``), or install's file not as installed
    if not _plain_ref_files(where, policy, now["refs"]):
        return False
    return dict(now, format=store.FORMAT) == before


def _left_to_tell(where):
    """A marker of damage not undone (``after.run`` clears it), or repairs a pre-check kept to tell."""
    return any(os.path.lexists(path) for path in (store.unrepaired_path(where.ag_home, where.top),
                                                   store.pending_path(where.ag_home, where.top)))


def _stored_roots(where, roots):
    """The roots the pre-check computed (``snapshot.watched_roots``, which reads the harnesses' table
    ``harness/watched.py``), when each is one the guard could watch: its home, its hooks, in the work tree, the home
    folder or ``/etc`` (system-wide harness settings). A list the agent wrote covers no fewer files
    than ``after.check``, which compares only the roots it shares with the snapshot; None: compute them."""
    if not isinstance(roots, list) or len(roots) < 2 or roots[:2] != [where.ag_home, where.hooks_dir]:
        return None
    places = [where.top, os.path.expanduser("~"), "/etc"]
    from ..guardpaths import inside
    if not all(isinstance(r, str) and any(inside(r, p) for p in places) for r in roots[2:]):
        return None
    return roots


def _read(path):
    from ..saferead import read_regular
    return read_regular(path, store.MAX_SNAPSHOT)


def _plain_ref_files(where, policy, refs):
    """No protected branch's loose ref file (of a literal name, or of a ref in ``refs``) is anything but
    a regular file with one name: what ``reflinks.clear_odd_refs`` and ``reflinks.unshare_refs`` act on."""
    from .reflinks import loose_ref_path
    names = ["refs/heads/" + name for name in policy.branches if not any(c in name for c in "*?[")]
    for ref in names + sorted(refs):
        path = loose_ref_path(where, ref) if isinstance(ref, str) else None
        if path is None:
            continue
        try:
            st = os.lstat(path)
        except OSError:
            continue  # packed only, or gone
        if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
            return False
    return True
