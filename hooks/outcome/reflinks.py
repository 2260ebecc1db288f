"""Refs and guarded files reached another way than git writes them: a protected branch made a
symbolic ref (``ref: refs/heads/feature`` written by hand), a protected branch's loose ref file or one
of the guard's files given a second name (a hard link, written through later) or replaced by a symlink
to a file the caller controls. The repair is made on the ref itself (``update-ref --no-deref``, never
through a symref) and a linked file becomes its own file again (same bytes, a new inode)."""
import os
import stat

from .. import gitio, guardpaths
from ..saferead import read_regular
from . import store



class Refs(dict):
    """{ref: oid} as ``for-each-ref`` resolves them, with ``symrefs`` {ref: target} of those that are
    symbolic refs (``%(symref)``, read by the same process)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.symrefs: dict = {}


def parse_line(line, refs):
    """One ``%(objectname) %(refname) %(symref)`` line into ``refs``; returns the refname."""
    oid, _, rest = line.partition(" ")
    ref, _, target = rest.partition(" ")
    refs[ref] = oid
    if target:
        refs.symrefs[ref] = target
    return ref


def recorded(before):
    """The snapshot's {ref: symref target} (an older snapshot has none: no protected ref was one)."""
    found = before.get("symrefs")
    if not isinstance(found, dict):
        return {}
    return {k: v for k, v in found.items() if isinstance(k, str) and isinstance(v, str)}


def _git(where, args):
    rc, _ = gitio.run(gitio.REPAIR + args, cwd=where.top)
    return rc == 0


def symref_of(where, ref, env=None):
    """The target of symbolic ref ``ref`` (dangling or not), or None (a git process: repairs only)."""
    rc, out = gitio.run(["symbolic-ref", "-q", ref], cwd=where.top, env=env)
    return out.decode("utf-8", "surrogateescape").strip() or None if rc == 0 else None


def undo_symrefs(where, before, now, report):
    """Put back every protected ref whose symbolic-ref state the call changed (made one, re-pointed,
    turned into a plain ref): the ref itself, its target untouched. Returns {ref: oid} as it stands
    after the repair, for the ordinary comparison of where the refs point."""
    was, have = recorded(before), getattr(now, "symrefs", {})
    old_refs = before.get("refs") or {}
    out = dict(now)
    for ref in sorted(set(was) | set(have)):
        if was.get(ref) == have.get(ref) or not ref.startswith("refs/"):
            continue
        if ref in was:
            if _git(where, ["symbolic-ref", "-m", "agentguard: put back " + ref, ref, was[ref]]):
                report.add("ref", "put back %s as a symbolic ref to %s" % (ref, was[ref]), ref=ref,
                           old=was[ref], new=have.get(ref) or now.get(ref) or "")
                out[ref] = old_refs.get(ref, now.get(ref))
            else:
                report.fail("%s was a symbolic ref to %s and could not be put back" % (ref, was[ref]))
            continue
        old, target = old_refs.get(ref), have[ref]
        args = ["update-ref", "--no-deref", "-m", "agentguard: put back " + ref]
        args += [ref, old, now.get(ref, "")] if old else ["-d", ref]
        if _git(where, args):
            report.add("ref", "%s was made a symbolic ref to %s: %s is a ref of its own again%s (%s is untouched)"
                       % (ref, target, ref, " at " + old[:12] if old else " no more (it did not exist)", target),
                       ref=ref, old=old or "", new="ref: " + target)
            if old:
                out[ref] = old
            else:
                out.pop(ref, None)
        else:
            report.fail("%s was made a symbolic ref to %s and could not be put back" % (ref, target))
    return out


# -- second names ---------------------------------------------------------------------------------
def loose_ref_path(where, ref):
    """The loose ref file of ``ref`` in the common dir (None for a name that could leave it)."""
    parts = ref.split("/")
    if not ref.startswith("refs/heads/") or any(p in ("", ".", "..") for p in parts):
        return None
    return os.path.join(where.common_dir, *parts)


def clear_odd_refs(where, policy, before, report):
    """A FIFO, socket or device where a protected branch's loose ref file is (one lstat per protected
    name without a wildcard): taken away before git reads the refs (git 2.39 would wait on a FIFO for
    ever); the branch then reads as deleted, and is put back like one. A directory there, where the
    branch stood before (``before``: the snapshot's refs), is moved aside (``_dir_aside``)."""
    for name in policy.branches:
        path = None if any(c in name for c in "*?[") else loose_ref_path(where, "refs/heads/" + name)
        if path is None:
            continue
        try:
            mode = os.lstat(path).st_mode
        except OSError:
            continue
        if stat.S_ISDIR(mode) and "refs/heads/" + name in (before or {}):
            _dir_aside(where, name, path, report)
            continue
        if stat.S_ISREG(mode) or stat.S_ISLNK(mode) or stat.S_ISDIR(mode):
            continue
        try:
            os.unlink(path)
        except OSError:
            report.fail("the ref file of protected branch %s is not a file (a FIFO or socket) and could not be "
                        "taken away" % name)
            continue
        report.add("ref", "the ref file of protected branch %s was not a file (a FIFO or socket): taken away"
                   % name, ref="refs/heads/" + name, old="", new="")


def _dir_aside(where, name, path, report):
    """Protected branch ``name`` deleted and a directory made in its place (``main/x``): every branch
    below it is kept on ``agentguard/rescued/<name>/...``, the directory goes to the guard's home
    (kept, never deleted), so that ``name`` can be put back."""
    rc, out = gitio.run(["for-each-ref", "--format=%(objectname) %(refname)", "refs/heads/%s/" % name],
                        cwd=where.top)
    kept = []
    for line in out.decode("utf-8", "surrogateescape").splitlines() if rc == 0 else ():
        oid, _, ref = line.partition(" ")
        rescued = "refs/heads/agentguard/rescued/" + ref[len("refs/heads/"):]
        if _git(where, ["update-ref", "--no-deref", "-m", "agentguard: rescued " + ref, rescued, oid, "0" * 40]):
            kept.append(rescued[len("refs/heads/"):])
    aside = os.path.join(store.home(where.ag_home), "moved", "%s-%d" % (name.replace("/", "-"), os.getpid()))
    try:
        os.makedirs(os.path.dirname(aside), exist_ok=True)
        os.replace(path, aside)
    except OSError:
        report.fail("protected branch %s was replaced by a directory that could not be moved aside" % name)
        return
    report.add("ref", "protected branch %s was replaced by a directory: moved to %s%s" % (
        name, aside, "; the branches in it are kept on " + ", ".join(kept) if kept else ""),
        ref="refs/heads/" + name, old="", new="")


def unshare_refs(where, refs, report):
    """A protected branch's loose ref file that is a symlink or has another name (a hard link): written
    as a plain file of its own, as git writes it (``<ref>.lock``, then a rename), so that writing the
    other name moves nothing. One lstat per protected branch."""
    for ref, oid in sorted(refs.items()):
        if ref in getattr(refs, "symrefs", {}):
            continue
        path = loose_ref_path(where, ref)
        try:
            st = os.lstat(path) if path else None
        except OSError:
            continue  # packed only, or gone
        if st is None or stat.S_ISREG(st.st_mode) and st.st_nlink == 1:
            continue
        how = "a symlink" if stat.S_ISLNK(st.st_mode) else "a hard link (another name for the same file)" \
            if stat.S_ISREG(st.st_mode) else "not a file"
        if _write_ref(path, oid):
            report.add("ref", "the ref file of %s was %s: written again as a file of its own (still at %s)"
                       % (ref, how, oid[:12]), ref=ref, old=oid, new=oid)
        else:
            report.fail("the ref file of %s is %s and could not be written again" % (ref, how))


def _write_ref(path, oid):
    lock = path + ".lock"
    try:
        fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except OSError:
        return False  # git holds the lock, or the directory is not writable
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(oid.encode("ascii") + b"\n")
        if os.path.isdir(path) and not os.path.islink(path):
            return False
        os.replace(lock, path)
        return True
    except (OSError, UnicodeEncodeError):
        try:
            os.unlink(lock)
        except OSError:
            pass
        return False


def unshare_files(where, linked, report, show):
    """The guard's own files (its home, its hooks directory) that have a second name: written again
    through the store and a rename, so that writing the other name changes nothing of the guard.
    ``linked``: the regular files whose lstat (already taken) said ``st_nlink > 1``."""
    paths, _ = sorted(linked), linked.clear()
    for path in paths:
        if not any(guardpaths.inside(path, d) for d in (where.ag_home, where.hooks_dir)):
            continue  # a user's file (a dotfile manager may link it): not the guard's to rewrite
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode) or st.st_nlink == 1:
            continue  # already written again (restored by the file comparison)
        data = read_regular(path, store.MAX_FILE + 1)
        data = data if data is not None and len(data) <= store.MAX_FILE else None
        if data is None:
            report.fail("%s has another name (a hard link) and could not be read to be written again" % show(path))
            continue
        try:
            store.write_atomic(path, data, stat.S_IMODE(st.st_mode))
        except OSError:
            report.fail("%s has another name (a hard link) and could not be written again" % show(path))
            continue
        report.add("file", "%s had another name (a hard link, which could change it later): it is a file of its "
                   "own again, same bytes" % show(path), path=path)
