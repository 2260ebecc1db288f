"""Many kept bytes in one file of the store: what a snapshot of a new guard (install's baseline, ~150
files: the runtime's sources and its compiled file, the hooks, the adapters) keeps at once.

Creating a file is what costs there (~0.3 ms of kernel time each on ext4, more than hashing and
writing its bytes), so the bytes a snapshot sees for the first time, when there are more than a few,
go to one file, ``store/pack-<sha256 of the file>``: a header line, one ``<sha256> <size>`` line a
blob, an empty line, the blobs one after the other. Written like every other store file (a temp file
renamed over its name: whole or absent); read bounded; each blob checked against its hash when it
is taken out (``store.get``), exactly as a loose file is. A file the store keeps one at a time (what
an after-check takes away, what a call changed) is still a file of its own, named by its hash."""
import os

from ..saferead import read_regular

PREFIX = "pack-"
HEADER = b"agentguard-pack 1\n"
MAX_PACK = 64 << 20  # what one pack holds at most (the store's files are at most 4 MiB each)
MAX_PACKS = 64  # packs read when looking for one blob: a store with more is not searched beyond them


def blobs(raw):
    """{sha256: (offset, size)} of a pack's bytes, or {} when they are not a whole pack."""
    if not raw or not raw.startswith(HEADER):
        return {}
    end = raw.find(b"\n\n", len(HEADER) - 1)
    if end < 0:
        return {}
    index, offset = {}, end + 2
    for line in raw[len(HEADER):end].split(b"\n"):
        digest, _, size = line.partition(b" ")
        if len(digest) != 64 or not size.isdigit():
            return {}
        index[digest.decode("ascii")] = (offset, int(size))
        offset += int(size)
    return index if offset == len(raw) else {}


def names(store_dir):
    try:
        return sorted(n for n in os.listdir(store_dir) if n.startswith(PREFIX))[:MAX_PACKS]
    except OSError:
        return []


def find(store_dir, digest):
    """The bytes a pack in ``store_dir`` holds under ``digest`` (unchecked: ``store.get`` checks them), or None."""
    for name in names(store_dir):
        raw = read_regular(os.path.join(store_dir, name), MAX_PACK + 1)
        where = blobs(raw).get(digest)
        if where is not None:
            return raw[where[0]:where[0] + where[1]]
    return None


def held(store_dir):
    """Every sha256 the packs in ``store_dir`` hold."""
    out = set()
    for name in names(store_dir):
        out.update(blobs(read_regular(os.path.join(store_dir, name), MAX_PACK + 1)))
    return out


def packed(items):
    """[bytes] of the packs holding ``items`` ([(sha256, bytes)]), each at most ``MAX_PACK`` (the store names
    each ``PREFIX`` and its sha256)."""
    out, start = [], 0
    while start < len(items):
        end, size = start + 1, len(items[start][1])
        while end < len(items) and size + len(items[end][1]) <= MAX_PACK:
            size += len(items[end][1])
            end += 1
        part = items[start:end]
        raw = HEADER + b"".join(b"%s %d\n" % (d.encode("ascii"), len(b)) for d, b in part) + b"\n" \
            + b"".join(b for _, b in part)
        out.append(raw)
        start = end
    return out

