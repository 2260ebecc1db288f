"""``<git common dir>/agentguard/outcome/``: the snapshots and the bytes they name.

``store/<sha256>`` holds every version of a watched file a snapshot has seen, so the after-check can
put back the bytes that were there before a tool call (and keep those it takes away);
``<worktree key>.json`` is the snapshot of one work tree. Written atomically, read bounded."""
import os

from ..jsonlite import dumps_sorted, loads
from ..saferead import read_regular

DIR = "outcome"
FORMAT = 1
MAX_SNAPSHOT = 8 << 20
MAX_FILE = 4 << 20  # a watched file larger than this is compared, but its bytes are not kept
_LOADED: dict = {}  # {snapshot file: its stat (``_stat_of``) when ``load`` last read it}


def home(ag_home):
    return os.path.join(ag_home, DIR)


def snapshot_path(ag_home, top):
    # crc32, not a hash module (~3 ms to import on every tool call); the snapshot names its ``top``
    name = os.path.basename(top) or "root"
    return os.path.join(home(ag_home), "%s-%08x.json" % (name[:40], crc32(os.fsencode(top))))


def crc32(data):
    """``binascii.crc32(data)``, computed here: a path's few bytes cost less than loading binascii (a
    shared library: ~0.7 ms of CPU on every check and after-check)."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0xEDB88320 & -(crc & 1))
    return crc ^ 0xFFFFFFFF


def sha256(data):
    import hashlib  # only when a file's stat changed: the unchanged path never pays for it
    return hashlib.sha256(data).hexdigest()


def write_atomic(path, data, mode=0o644, durable=False):
    """Write ``data`` to ``path`` through a temp file and a rename: the old file or the new one, never
    half. ``durable``: synced to disk, file and directory (install's files; a snapshot is a cache).
    The temp name is ``.agentguard-tmp-`` and 8 characters, what install's clean-up removes."""
    directory = os.path.dirname(path)
    os.makedirs(directory, exist_ok=True)
    while True:
        tmp = os.path.join(directory, ".agentguard-tmp-" + os.urandom(4).hex())
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            break
        except FileExistsError:
            continue
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    if durable:
        fsync_dir(directory)


MOVED_ASIDE = ".agentguard-moved-"  # a directory found where a guarded file was: kept under this name, never watched


def take_away(path):
    """Take ``path`` away: a file or link is unlinked (its bytes are in the store), a directory where a
    file was is moved aside (``MOVED_ASIDE``), never deleted."""
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            os.replace(path, "%s%s%d" % (path, MOVED_ASIDE, os.getpid()))
        elif os.path.lexists(path):
            os.unlink(path)
    except OSError:
        pass


def put_back(ag_home, path, entry):
    """Write the bytes a snapshot ``entry`` recorded (a file with its mode, or a symlink's target) back at
    ``path``, what is there now taken away first; False, with nothing touched, when they are not kept."""
    data = get(ag_home, entry[6])
    if data is None:
        return False
    take_away(path)
    if entry[0] == "l":
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.symlink(os.fsdecode(data), path)
    else:
        write_atomic(path, data, entry[1])
    return True


def fsync_dir(directory):
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def put(ag_home, data):
    """Keep ``data`` under its hash; returns the hash."""
    digest = sha256(data)
    path = os.path.join(home(ag_home), "store", digest)
    if len(data) <= MAX_FILE and not os.path.exists(path):
        write_atomic(path, data, 0o600)
    return digest


PACK_BEYOND = 8  # more new files than this at once are kept in one pack (``packs``), fewer each on its own


class Keeping:
    """``keep(data)`` -> its hash, the bytes kept once ``done()`` returns: each in a file of its own, or,
    with ``pack`` (install's baseline) and more than ``PACK_BEYOND`` new to the store, all in one file
    (``packs``). What an after-check keeps stays a file of its own, named by its hash (what it reports)."""

    def __init__(self, ag_home, pack=False):
        self.ag_home, self.pack = ag_home, pack
        self.new: dict = {}  # {hash: bytes} not in the store yet

    def keep(self, data):
        digest = sha256(data)
        if len(data) <= MAX_FILE and digest not in self.new \
                and not os.path.exists(os.path.join(home(self.ag_home), "store", digest)):
            self.new[digest] = data
        return digest

    def done(self):
        new, self.new = self.new, {}
        if self.pack and len(new) > PACK_BEYOND:  # (``packs`` is loaded only then)
            from . import packs
            store_dir = os.path.join(home(self.ag_home), "store")
            for digest in packs.held(store_dir):  # what an earlier pack holds is not kept again
                new.pop(digest, None)
            if len(new) > PACK_BEYOND:
                for raw in packs.packed(sorted(new.items())):
                    write_atomic(os.path.join(store_dir, packs.PREFIX + sha256(raw)), raw, 0o600)
                return
        for data in new.values():
            put(self.ag_home, data)


def get(ag_home, digest):
    """The bytes kept under ``digest`` (a file of its own, else a blob of a pack), or None when they are
    not there (or not what they claim)."""
    try:
        data = read_regular(os.path.join(home(ag_home), "store", digest), MAX_FILE + 1)
    except (ValueError, TypeError):
        return None
    if data is None and isinstance(digest, str) and len(digest) == 64:
        from . import packs
        data = packs.find(os.path.join(home(ag_home), "store"), digest)
    return data if data is not None and sha256(data) == digest else None


def load(ag_home, top):
    """The snapshot of work tree ``top``, or None when there is none that reads; its ``call`` is the
    record kept beside it (``save``), when that reads."""
    path = snapshot_path(ag_home, top)
    _LOADED[path] = _stat_of(path)  # before reading: a file replaced in between is not taken as read
    data = parse(read_regular(path, MAX_SNAPSHOT), top)
    if data is not None:
        call = _read_call(ag_home, top)
        if call is not None:
            data["call"] = call
    return data


def parse(raw, top):
    """The snapshot of work tree ``top`` in ``raw`` (a snapshot file's bytes), validated; None when it
    does not read as one."""
    try:
        data = loads((raw or b"").decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("top") != top:
        return None
    if not all(isinstance(data.get(k), t) for k, t in (("files", dict), ("config", list), ("refs", dict))):
        return None
    # by type all the way down: a ref is a name and an object id, an entry is a list, where is names
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in data["refs"].items()) \
            or not all(isinstance(v, list) for v in data["files"].values()) \
            or not all(isinstance(v, list) for v in data["config"]) \
            or not isinstance(data.get("where", {}), dict) \
            or not all(isinstance(v, str) for v in data.get("where", {}).values()):
        return None
    return data


def serialize(snapshot):
    """The bytes of ``snapshot``'s file: all of it but its ``call``, keys sorted (the same state gives
    the same bytes: an unchanged snapshot is not written again, and ``check --after`` compares bytes)."""
    return dumps_sorted(dict({k: v for k, v in snapshot.items() if k != "call"}, format=FORMAT)).encode("utf-8")


def save(ag_home, snapshot, stored=None):
    """Keep ``snapshot``: its file rewritten only when its bytes changed (each pre-check takes one,
    and the state seldom changes); the tool call it was taken for (``calls.call_record``), which
    changes every time, in a small file beside it. ``stored``: the snapshot as ``load`` read it, not
    changed since: when ``snapshot`` holds the same values and the file is still the one ``load``
    read (its stat), nothing is serialized or read again (a JSON value written by ``serialize`` and
    read back is equal to itself: the bytes would be the same)."""
    path = snapshot_path(ag_home, snapshot["top"])
    unchanged = stored is not None and _same(snapshot, stored)
    if not unchanged or _LOADED.get(path) is None or _LOADED.get(path) != _stat_of(path):
        data = serialize(snapshot)
        if read_regular(path, len(data) + 1) != data:
            write_atomic(path, data)
    call = snapshot.get("call")
    if isinstance(call, dict):
        write_atomic(call_path(ag_home, snapshot["top"]), dumps_sorted(call).encode("utf-8"))
    else:
        try:
            os.unlink(call_path(ag_home, snapshot["top"]))
        except OSError:
            pass


def _same(snapshot, stored):
    """Whether ``snapshot`` and ``stored`` hold the same values, the tool call's record aside."""
    return dict({k: v for k, v in snapshot.items() if k != "call"}, format=FORMAT) == \
        {k: v for k, v in stored.items() if k != "call"}


def _stat_of(path):
    """(inode, size, mtime, ctime) of ``path``, or None when there is no such file."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


CALL = ".call"
PENDING = ".pending"


def call_path(ag_home, top):
    """The record of the tool call the snapshot of ``top`` was last taken for (not ``.json``: never
    read as a snapshot)."""
    return snapshot_path(ag_home, top)[:-len(".json")] + CALL


def _read_call(ag_home, top):
    try:
        call = loads((read_regular(call_path(ag_home, top), 1 << 16) or b"").decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None
    return call if isinstance(call, dict) else None


def pending_path(ag_home, top):
    """The pre-check's repairs kept until an after-check tells the model (``calls.keep``)."""
    return snapshot_path(ag_home, top)[:-len(".json")] + PENDING


def unrepaired_path(ag_home, top):
    """A marker left while an after-check could not undo everything: until it is gone (a later
    after-check succeeds, or install runs), ``check`` keeps the older snapshot instead of recording
    the damage as the new normal."""
    return snapshot_path(ag_home, top)[:-len(".json")] + ".unrepaired"


def mark_unrepaired(ag_home, top, flag):
    path = unrepaired_path(ag_home, top)
    try:
        if flag:
            write_atomic(path, b"1\n")
        elif os.path.exists(path):
            os.unlink(path)
    except OSError:
        pass
