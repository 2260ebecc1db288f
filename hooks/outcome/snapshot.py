"""The guard's state in one work tree, as the after-check compares it: the files the guard is made
of or that can switch it off (stat, and a hash when the stat changed), the config entries the
guard's rules read (``guardconfig.WATCHED``, every level, one git process) and every protected
branch with its remote-tracking refs (one more git process, run alongside)."""
import os
import stat

from .. import gitio, guardconfig, guardpaths, layout
from ..globmatch import fnmatchcase
from ..jsonlite import loads
from ..saferead import read_regular
from ..harness import registry
from ..policy import PolicyError, load_policy
from . import reflinks, store

SKIP_IN_HOME = ("audit.jsonl", "lock", store.DIR)  # what changes on its own: the log, the lock, these records
MAX_FILES = 3000
LINKED: set = set()  # regular files ``describe`` found with another name (st_nlink > 1): reflinks.unshare_files


def locate(cwd):
    """The layout of the work tree at ``cwd``, or None (not in a work tree, or git not answering)."""
    try:
        where = layout.at(cwd, env=gitio.scrubbed_env())
    except gitio.GitError:
        return None
    return where if where is not None and not where.bare else None


def locate_guarded(cwd):
    """(layout, lost) for the after-check: the work tree at ``cwd`` as git sees it, lost None; or, when
    git does not answer for the work tree around ``cwd`` (its nearest ``.git``, found without git) as
    the snapshot stored for it recorded, that snapshot's layout and why git does not (``unanswered``):
    a call that made it read as bare, put its work tree elsewhere or left git seeing no repository is
    never taken for "no repository here". (None, None): neither."""
    try:
        found = layout.at(cwd, env=gitio.scrubbed_env())
    except gitio.GitError:
        found = None
    top = nearest_top(cwd)
    if found is not None and not found.bare and top in (None, found.top):
        return found, None  # the common case: one realpath and one lstat more than ``locate``
    from . import unanswered
    stored = unanswered.recorded(top) if top is not None else None
    if stored is not None:
        return stored, unanswered.lost_because(stored)
    return (found if found is not None and not found.bare else None), None


def nearest_top(cwd):
    """The nearest folder at or above ``cwd`` (real) that holds a ``.git``: where git's own search stops."""
    path = os.path.realpath(cwd)
    while not os.path.lexists(os.path.join(path, ".git")):
        parent = os.path.dirname(path)
        if parent == path:
            return None
        path = parent
    return path


def record(cwd, fresh=False, where=None):
    """Take and keep the snapshot of the work tree at ``cwd`` (when agentguard is installed there),
    unless an after-check left damage it could not undo (``fresh``: install's new baseline;
    ``where``: its layout, when the caller just asked git for it)."""
    where = locate(cwd) if where is None else where
    if where is None or not os.path.isdir(where.ag_home):
        return None
    if fresh:
        store.mark_unrepaired(where.ag_home, where.top, False)
    elif os.path.exists(store.unrepaired_path(where.ag_home, where.top)):
        return None
    previous = store.load(where.ag_home, where.top)
    snapshot = take(where, previous, pack=fresh)
    if previous is not None and not fresh:
        snapshot["refs"] = settled_refs(where, previous["refs"], snapshot["refs"])
    store.save(where.ag_home, snapshot)
    return snapshot


def take(where, previous=None, roots=None, record=None, pack=False):
    """The snapshot dict of ``where`` now; ``previous`` lends the hashes of files whose stat is unchanged.
    A file install wrote whole is recorded as install wrote it, whatever it holds now: damage to it
    (in this call or between calls) is never taken as the state to keep. ``roots``: what to cover
    (default: ``watched_roots``); ``record``: install's manifest as the caller just read it; ``pack``: the
    bytes new to the store kept in one file (``store.Keeping``: install's baseline)."""
    record = install_record(where) if record is None else record
    policy = policy_of(where, record)
    from . import localremotes
    reading = localremotes.start(where, previous, policy, describe)  # alongside read_git's processes
    config, refs = read_git(where, policy)
    roots = watched_roots(where) if roots is None else roots
    found = files(where, (previous or {}).get("files") or {}, roots, pack)
    for path, (digest, mode) in owned_files(where, record).items():
        entry = found.get(path)
        if entry is None or entry[0] != "f" or entry[1] != mode or entry[6] != digest:
            found[path] = ["f", mode, None, None, None, None, digest]
    out = {"top": where.top, "where": where.to_json(), "files": found, "roots": roots, "config": config,
           "refs": refs, "symrefs": refs.symrefs}
    out["local_remotes"] = localremotes.take(where, config, policy, describe, previous, reading)
    if isinstance((previous or {}).get("call"), dict):
        out["call"] = previous["call"]  # the tool call it was taken for (``calls.call_record``)
    if not any(ref.startswith("refs/heads/") for ref in refs) and _is_empty(where):
        out["no_branches"] = True  # a new repository: its first commit may create a protected branch
    return out


def _is_empty(where):
    """The backstop's rule (``repostate.is_empty``), asked only when no protected branch exists."""
    from ..repostate import is_empty
    return is_empty(where.common_dir, where.top, env=gitio.scrubbed_env())


def settled_refs(where, before, now):
    """``now``, except a protected branch that moved to commits no counterpart has since ``before``:
    it is recorded where it was, so the next after-check puts it back."""
    moved = sorted(ref for ref, oid in before.items() if ref.startswith("refs/heads/") and now.get(ref) != oid)
    policy = policy_of(where) if moved else None  # the common case (nothing moved) reads nothing more
    if policy is None:
        return now
    from ..repostate import RepoState
    from .refs import may_stand
    state = RepoState.of(where)
    out = dict(now)
    for ref in moved:
        if now.get(ref) is None or not may_stand(ref[len("refs/heads/"):], now[ref], before[ref], now,
                                                           policy, state):
            out[ref] = before[ref]
    return out


def install_record(where):
    """install's manifest (a dict; {} when there is none that reads)."""
    try:
        data = loads((read_regular(os.path.join(where.ag_home, "manifest.json"), 1 << 22) or b"").decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def owned_files(where, record):
    """{path: (sha256, mode)} of the files install wrote whole (the guard's home, the hooks, the adapter
    files), not the settings it merged into a user's file (the user may change those)."""
    owned = record.get("owned")
    adapters = record.get("adapters")
    adapters = {os.path.join(where.top, rel) for rel in adapters} if isinstance(adapters, dict) else set()
    out = {}
    dirs = (where.ag_home, where.hooks_dir)
    below = tuple(d + "/" for d in dirs) if all(guardpaths.plain(d) and d != "/" for d in dirs) else None
    for path, value in owned.items() if isinstance(owned, dict) else ():
        if below is not None and guardpaths.plain(path):  # ``inside``, with the folders' part done once
            mine = path in adapters or path in dirs or path.startswith(below)
        else:
            mine = path in adapters or any(guardpaths.inside(path, d) for d in dirs)
        if mine and isinstance(value, list) and len(value) == 2 and isinstance(value[0], str) \
                and isinstance(value[1], int):
            out[path] = (value[0], value[1])
    return out


def policy_of(where, record=None):
    """The policy install recorded (its manifest: the policy file is one of the files a call can
    change), else the policy snapshot, or None."""
    from ..policy import Policy
    record = install_record(where) if record is None else record
    try:
        return Policy.from_json(record.get("policy"))
    except (PolicyError, TypeError, AttributeError):
        pass
    try:
        return load_policy(where.ag_home)
    except PolicyError:
        return None


def read_git(where, policy=None):
    """(config entries, {protected ref: oid}): two git processes, run at the same time (the config's
    listing once per ``check``: ``guardconfig.listing``, shared with the analyser)."""
    policy = policy_of(where) if policy is None else policy
    patterns = list(policy.branches) if policy is not None else []
    env = gitio.scrubbed_env()
    refs_argv = ["for-each-ref", "--format=%(objectname) %(refname) %(symref)"] \
        + [p for pat in patterns for p in ("refs/heads/" + pat, "refs/remotes/*/" + pat)]
    config_out = guardconfig.listed(where.top, env)
    if config_out is not None:
        refs_out = gitio.run(refs_argv, cwd=where.top, env=env)
    else:
        config_out, refs_out = gitio.run_many([guardconfig.LISTING, refs_argv], cwd=where.top, env=env)
    if refs_out[0] != 0 or config_out[0] not in (0, 1):
        raise gitio.GitError("git cannot read this repository's refs or config")
    refs = reflinks.Refs()
    if patterns:
        for line in refs_out[1].decode("utf-8", "surrogateescape").splitlines():
            ref = reflinks.parse_line(line, refs)
            if policy.classify(ref) is None:
                refs.pop(ref)
                refs.symrefs.pop(ref, None)
    entries = guardconfig.parse_listing(config_out[1], where.top)
    return [e for e in entries if guardconfig.watched(e[2])], refs


parse_config = guardconfig.parse_listing  # (the name install's program records and the doctor read it by)


def watched_roots(where):
    """What the snapshot covers: files, directories (every file below) and ``dir/name*`` patterns.
    The user-level ones follow this process's HOME: a snapshot and an after-check that see different
    homes compare only the roots they share (never taking one home's files for the other's)."""
    roots = [where.ag_home, where.hooks_dir]
    roots += [os.path.join(where.top, *rel.split("/")) for rel in guardpaths.worktree_files()]
    skip = registry.not_watched()  # the harnesses write those all the time
    roots += [path for path in guardpaths.user_files() if os.path.basename(path) not in skip]
    return roots


def under(path, root):
    """True when ``path`` is one of the files ``root`` covers."""
    directory, name = os.path.split(root)
    if "*" not in name:
        return guardpaths.inside(path, root)
    if not guardpaths.inside(path, directory) or path == directory:
        return False
    return fnmatchcase(os.path.relpath(path, directory).split(os.sep)[0], name)


def watched_paths(where, roots):
    """Every existing file the ``roots`` cover (a missing one is simply not listed)."""
    found: list = []
    ag_home, hooks_dir = where.ag_home, where.hooks_dir  # (a property: computed once, not once a root)
    for root in roots:
        if root == ag_home:
            try:
                names = sorted(os.listdir(root))
            except OSError:
                names = []
            for name in names:
                if name not in SKIP_IN_HOME:
                    _add_tree(os.path.join(root, name), found)
        else:
            _add_pattern(root, found, depth=1 if root == hooks_dir else 6)
    return found[:MAX_FILES]


def _add_pattern(path, found, depth=6):
    directory, name = os.path.split(path)
    if "*" not in name:
        _add_tree(path, found, depth)
        return
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return
    for entry in names:
        if fnmatchcase(entry, name):
            _add_tree(os.path.join(directory, entry), found)


def _add_tree(path, found, depth=6):
    """``path`` when it is a file or a symlink, every file below it when it is a directory (not what a
    repair moved aside: kept, no longer the guard's)."""
    if store.MOVED_ASIDE in os.path.basename(path):
        return
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return
    if not stat.S_ISDIR(mode):
        found.append(path)
        return
    _add_below(path, found, depth)


def _add_below(path, found, depth):
    """The files below directory ``path`` (``_add_tree`` of each entry, its type from the directory
    listing: one ``lstat`` per file, taken by ``describe``, not two)."""
    if depth <= 0 or len(found) > MAX_FILES:
        return
    try:
        with os.scandir(path) as listing:
            entries = sorted(listing, key=_name)
    except OSError:
        return
    for entry in entries:
        if store.MOVED_ASIDE in entry.name:
            continue
        if entry.is_dir(follow_symlinks=False):
            _add_below(entry.path, found, depth - 1)
        else:
            found.append(entry.path)


def _name(entry):
    return entry.name


def files(where, previous, roots=None, pack=False):
    """{path: [type, mode, size, mtime_ns, ctime_ns, inode, sha256]} of the files ``roots`` (default:
    all) cover; the bytes of every version seen go to the store (``pack``: see ``store.Keeping``)."""
    out = {}
    keeping = store.Keeping(where.ag_home, pack)
    for path in watched_paths(where, watched_roots(where) if roots is None else roots):
        entry = describe(path, previous.get(path), keep=keeping.keep)
        if entry is not None:
            out[path] = entry
    keeping.done()
    return out


def describe(path, known=None, ag_home=None, keep=None):
    """The entry of one file now (None when it is gone); ``known`` lends its hash when the stat matches.
    Its bytes go to the store of ``ag_home`` (or to ``keep``), when one is given."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    kind = "l" if stat.S_ISLNK(st.st_mode) else "f" if stat.S_ISREG(st.st_mode) else "o"
    if st.st_nlink > 1 and kind == "f":
        LINKED.add(path)
    sig = [kind, stat.S_IMODE(st.st_mode), st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]
    if isinstance(known, list) and known[:6] == sig and isinstance(known[6], str):
        return sig + [known[6]]
    if keep is None:  # (``store.put`` keeps no more than ``store.MAX_FILE``; it hashes the rest)
        keep = (lambda data: store.put(ag_home, data)) if ag_home else store.sha256
    if kind == "l":
        digest = keep(os.fsencode(os.readlink(path)))
    elif kind == "f":
        data = read_regular(path, store.MAX_FILE + 1)  # lstat said a file: one swapped for a FIFO since never waits
        if data is None:
            return sig + [""]
        digest = keep(data)
    else:
        digest = ""
    return sig + [digest]


# -- agentguard's own writes ----------------------------------------------------------------------
def before_own_writes(ag_home, paths):
    """What ``paths`` hold just before agentguard itself (install, ``doctor --fix``, the post-checkout
    install of a new worktree) writes them: {path: (sha256 or None, its config entries or None)}."""
    out = {}
    for path in paths:
        entry = describe(path, None, ag_home)
        out[path] = (entry[6] if entry is not None else None, _config_entries(path))
    return out


def adopt_own_writes(ag_home, before):
    """Tell every work tree's snapshot what agentguard itself just wrote, so that no after-check takes
    it for a tool call's doing (an agent's ``git worktree add`` runs install for the new worktree,
    which writes the shared manifest and user-level trust entries). A path is adopted only where the
    snapshot recorded exactly what it held before agentguard wrote it: a change a call made first
    stays for the after-check to undo."""
    directory = store.home(ag_home)
    try:
        names = sorted(n for n in os.listdir(directory) if n.endswith(".json"))
    except OSError:
        return
    now = None  # what the paths hold now: read once a snapshot is found (a first install has none)
    for name in names:
        try:
            raw = read_regular(os.path.join(directory, name), store.MAX_SNAPSHOT) or b""
            top = loads(raw.decode("utf-8")).get("top")
        except (ValueError, UnicodeDecodeError, AttributeError):
            continue
        data = store.load(ag_home, top) if isinstance(top, str) else None
        if data is not None and now is None:
            now = {path: (describe(path, None, ag_home), _config_entries(path)) for path in before}
        if data is not None and _adopt_into(data, before, now):
            store.save(ag_home, data)


def _adopt_into(data, before, now):
    changed = False
    files, roots = data["files"], data.get("roots") or []
    for path, (digest, entries) in before.items():
        entry, entries_now = now[path]
        recorded = files.get(path)
        if (recorded[6] if isinstance(recorded, list) and len(recorded) == 7 else None) == digest and \
                (recorded is not None or any(under(path, r) for r in roots if isinstance(r, str))):
            if entry is None:
                files.pop(path, None)
            else:
                files[path] = entry
            changed = True
        if entries is not None and entries_now is not None:
            mine = [c for c in data["config"] if isinstance(c, list) and len(c) == 4 and c[1] == path]
            if [c[2:] for c in mine] == [c[2:] for c in entries]:
                scope = mine[0][0] if mine else "local"
                data["config"] = [c for c in data["config"] if c not in mine] + [[scope] + c[1:] for c in entries_now]
                changed = True
    return changed


def _config_entries(path):
    """The watched entries of git config file ``path`` (None when ``path`` is no git config file)."""
    if os.path.basename(path) not in ("config", "config.worktree"):
        return None
    rc, out = gitio.run(["config", "-z", "--file", path, "--show-scope", "--show-origin", "--get-regexp",
                         guardconfig.WATCHED], cwd=os.path.dirname(path), env=gitio.scrubbed_env())
    if rc not in (0, 1):
        return None
    return [[e[0], path, e[2], e[3]] for e in parse_config(out, os.path.dirname(path))]
