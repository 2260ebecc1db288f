"""#30: install's baseline keeps the bytes of the guard it wrote (~270 files) in one pack of the
after-check's store, not a file each (creating a file is most of what a store write costs), and
nothing is loosened: the after-check puts a damaged runtime file and hook back from the pack, a blob
is only given out when it matches its hash, a pack that is not whole gives nothing out (the
after-check says the bytes are not kept), and what an after-check keeps stays a file of its own."""
import os

from test_outcome import after, pre_check

from agentguard.hooks.outcome import packs, store


def store_dir(repo):
    return os.path.join(repo.path, ".git", "agentguard", "outcome", "store")


def digest_of(path):
    with open(path, "rb") as fh:
        return store.sha256(fh.read())


def the_pack(repo):
    names = [n for n in os.listdir(store_dir(repo)) if n.startswith(packs.PREFIX)]
    assert len(names) == 1, names
    return os.path.join(store_dir(repo), names[0])


def test_install_keeps_its_files_in_one_pack_and_the_after_check_restores_from_it(guarded):
    repo, _ = guarded
    ag_home = os.path.join(repo.path, ".git", "agentguard")
    source = os.path.join(ag_home, "runtime", "hooks", "server", "prereceive.py")
    hook = os.path.join(repo.path, ".git", "hooks", "pre-push")
    with open(source, "rb") as fh:
        original = fh.read()
    with open(hook, "rb") as fh:
        hook_bytes = fh.read()
    held = packs.held(store_dir(repo))
    assert digest_of(source) in held and digest_of(hook) in held
    assert len(os.listdir(store_dir(repo))) < 20  # not a file per runtime file
    assert not os.path.exists(os.path.join(store_dir(repo), digest_of(source)))
    assert store.get(ag_home, digest_of(source)) == original
    pre_check(repo, "ls")
    os.unlink(source)
    with open(hook, "wb") as fh:
        fh.write(b"#!/bin/sh\nexit 0\n")
    status, report = after(repo)
    assert report["decision"] == "repaired", report
    with open(source, "rb") as fh:
        assert fh.read() == original
    with open(hook, "rb") as fh:
        assert fh.read() == hook_bytes
    # the bytes the call wrote are kept as a file of their own (the report names that file)
    assert os.path.exists(os.path.join(store_dir(repo), store.sha256(b"#!/bin/sh\nexit 0\n")))


def test_a_pack_gives_out_only_whole_blobs_that_match_their_hash(guarded):
    repo, _ = guarded
    ag_home = os.path.join(repo.path, ".git", "agentguard")
    source = os.path.join(ag_home, "runtime", "hooks", "server", "prereceive.py")
    digest = digest_of(source)
    pack = the_pack(repo)
    with open(pack, "rb") as fh:
        raw = fh.read()
    offset, size = packs.blobs(raw)[digest]
    changed = bytearray(raw)
    changed[offset] ^= 1  # one byte of the blob: the hash no longer matches
    for forged in (bytes(changed), raw[:-1], raw + b"x", raw.replace(packs.HEADER, b"agentguard-pack 2\n", 1)):
        with open(pack, "wb") as fh:
            fh.write(forged)
        assert store.get(ag_home, digest) is None
    os.unlink(pack)
    pre_check(repo, "ls")
    os.unlink(source)
    status, report = after(repo)
    assert status != 0 and "not kept" in str(report), report  # said, never guessed
    assert not os.path.exists(source)


def test_few_new_files_are_kept_one_by_one(tmp_path):
    ag_home = str(tmp_path)
    keeping = store.Keeping(ag_home, pack=True)
    digests = [keeping.keep(b"%d" % i) for i in range(store.PACK_BEYOND)]
    keeping.done()
    assert sorted(os.listdir(os.path.join(ag_home, store.DIR, "store"))) == sorted(digests)
    keeping = store.Keeping(ag_home, pack=False)  # an after-check's: never a pack
    more = [keeping.keep(b"x%d" % i) for i in range(3 * store.PACK_BEYOND)]
    keeping.done()
    assert sorted(os.listdir(os.path.join(ag_home, store.DIR, "store"))) == sorted(digests + more)
    keeping = store.Keeping(ag_home, pack=True)
    many = [keeping.keep(b"y%d" % i) for i in range(store.PACK_BEYOND + 1)] + [keeping.keep(b"0")]
    keeping.done()
    names = os.listdir(os.path.join(ag_home, store.DIR, "store"))
    assert len(names) == len(digests) + len(more) + 1  # one pack, b"0" not kept again
    assert all(store.get(ag_home, d) == b"y%d" % i for i, d in enumerate(many[:-1]))
