"""What the pre-check (the runtime copy's ``check``, as the adapters run it) loads and starts for the
commands agents run all the time: no harness module (the snapshot reads ``harness/watched.py``'s table),
and one listing of the repository's config, which the analyser and the snapshot share; the snapshot's
config entries are what git's own ``--get-regexp WATCHED`` finds."""
import itertools
import os
import re
import shutil

import pytest

from agentguard.hooks import gitio, guardconfig
from agentguard.hooks.harness.registry import NAMES
from agentguard.hooks.outcome import snapshot, store

from test_lazyre import runtime_check

COMMIT = "git add -A && git commit -m 'fix the thing' && git push -u origin HEAD"


def _logged_check(repo, tmp_path, command):
    """(decision, modules loaded, [git command lines]) of one runtime pre-check, git's runs logged."""
    log, bin_dir = tmp_path / "git.log", tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    real = shutil.which("git", path=repo.env["PATH"])
    (bin_dir / "git").write_text('#!/bin/sh\nprintf "%%s\\n" "$*" >> "%s"\nexec "%s" "$@"\n' % (log, real))
    (bin_dir / "git").chmod(0o755)
    log.write_text("")
    _, decision, loaded = runtime_check(repo, command, {"PATH": "%s:%s" % (bin_dir, repo.env["PATH"])})
    return decision, loaded, log.read_text().splitlines()


@pytest.mark.parametrize("command, most", [(COMMIT, 6), ("git status", 4), ("ls -la", 4)])
def test_the_pre_check_loads_no_harness_and_lists_the_config_once(command, most, guarded, tmp_path):
    repo, _ = guarded
    repo.run("checkout", "-q", "feat")
    decision, loaded, gits = _logged_check(repo, tmp_path, command)
    assert decision == "allow"
    assert not {"hooks.harness." + name for name in NAMES} & loaded
    assert len([g for g in gits if " config " in " %s " % g]) == 1, gits
    assert not [g for g in gits if "--get-regexp" in g], gits
    assert len(gits) <= most, gits
    # the snapshot was recorded, with the config entries the guard watches (the remote's URL)
    where = snapshot.locate(repo.path)
    saved = store.load(where.ag_home, where.top)
    assert saved is not None and any(e[2] == "remote.origin.url" for e in saved["config"])


def test_the_pre_check_still_refuses_a_commit_on_main(guarded, tmp_path):
    repo, _ = guarded
    decision, _, gits = _logged_check(repo, tmp_path, "git commit -m x")
    assert decision == "block" and len([g for g in gits if " config " in " %s " % g]) <= 1, gits


def test_the_snapshots_config_is_what_git_finds_by_the_pattern(guarded, tmp_path):
    """Every level (the user's, an include, the repository's), keys with and without a value: the listing
    filtered by ``guardconfig.watched`` is ``git config --get-regexp WATCHED``, entry for entry, in order."""
    repo, _ = guarded
    extra = tmp_path / "extra.cfg"
    extra.write_text("[core]\n\tpager = less\n[alias]\n\tst = status\n\tx = !sh\n")
    user = os.path.join(repo.env["HOME"], ".gitconfig")
    with open(user, "a") as fh:
        fh.write("[credential]\n\thelper = store\n[url \"git@example.com:\"]\n\tinsteadOf = https://example.com/\n")
    for args in (["include.path", str(extra)], ["branch.feat.remote", "origin"], ["remote.origin.pushurl", "/x"],
                 ["filter.lfs.smudge", "git-lfs smudge"], ["color.ui", "auto"], ["protocol.ext.allow", "always"],
                 ["user.name", "n"]):
        repo.run("config", *args)
    with open(os.path.join(repo.path, ".git", "config"), "a") as fh:
        fh.write("[sendemail]\n\tsmtpserver\n[diff \"x\"]\n\ttextconv = cat\n")
    where = snapshot.locate(repo.path)
    rc, out = gitio.run(["config", "-z", "--show-scope", "--show-origin", "--get-regexp", guardconfig.WATCHED],
                        cwd=where.top, env=gitio.scrubbed_env(repo.env))
    assert rc == 0
    expected = guardconfig.parse_listing(out, where.top)
    assert len(expected) >= 10 and any(e[3] is None for e in expected)
    old_env = dict(os.environ)
    try:
        os.environ.clear()
        os.environ.update(repo.env)
        assert snapshot.read_git(where)[0] == expected
    finally:
        os.environ.clear()
        os.environ.update(old_env)


def test_watched_is_the_pattern():
    """``guardconfig.watched`` (no ``re``) says what ``WATCHED`` says, on every key made of the parts its
    forms name (and a few that are none of them), two and three parts long."""
    pattern = re.compile(guardconfig.WATCHED)
    parts = {"x", "a.b", "", "Core", "HooksPath", "ext", "origin"}
    for sec, sub, names in guardconfig._WATCHED_FORMS:
        parts |= {sec, sub or "x", *(names or ("x",))}
    parts = sorted(parts)
    keys = [".".join(k) for n in (2, 3) for k in itertools.product(parts, repeat=n)]
    differ = [k for k in keys if bool(pattern.search(k)) != guardconfig.watched(k)]
    assert not differ and sum(map(guardconfig.watched, keys)) > 1000, differ[:10]


def test_an_unchanged_snapshot_is_not_written_again_a_changed_one_is(guarded):
    """Two pre-checks with nothing changed in between: the snapshot's file is left as it was (neither
    serialized nor written), and the call record beside it names the second call. A remote-tracking
    ref of a protected branch that moves in between (as a fetch moves it) is in the next snapshot."""
    repo, bare = guarded
    repo.run("checkout", "-q", "feat")
    where = snapshot.locate(repo.path)
    path = store.snapshot_path(where.ag_home, where.top)
    assert runtime_check(repo, "ls -la")[1] == "allow"
    before = os.stat(path)
    assert runtime_check(repo, "ls -l")[1] == "allow"
    after = os.stat(path)
    assert (after.st_ino, after.st_mtime_ns, after.st_ctime_ns) == (before.st_ino, before.st_mtime_ns,
                                                                    before.st_ctime_ns)
    assert store.load(where.ag_home, where.top)["call"]["what"] == "ls -l"
    feat = repo.run("rev-parse", "feat").stdout.strip()
    assert store.load(where.ag_home, where.top)["refs"]["refs/remotes/origin/main"] != feat
    bare.run("fetch", "-q", repo.path, "feat:refs/heads/main")  # a teammate's push
    repo.run("fetch", "-q", "origin")
    assert runtime_check(repo, "ls")[1] == "allow"
    saved = store.load(where.ag_home, where.top)
    assert saved["refs"]["refs/remotes/origin/main"] == feat and saved["call"]["what"] == "ls"
    assert os.stat(path).st_ino != before.st_ino


def test_a_snapshot_file_replaced_since_it_was_read_is_written_again(guarded):
    """``store.save`` skips the write only while the file is the one ``load`` read: one replaced in
    between (here by the same values in other bytes) is written again, in ``serialize``'s bytes."""
    repo, _ = guarded
    where = snapshot.locate(repo.path)
    path = store.snapshot_path(where.ag_home, where.top)
    previous = store.load(where.ag_home, where.top)
    canonical = store.serialize(previous)
    store.write_atomic(path, canonical.replace(b", ", b",  "))
    store.save(where.ag_home, dict(previous), previous)
    with open(path, "rb") as fh:
        assert fh.read() == canonical
    store.write_atomic(path, canonical.replace(b", ", b",  "))
    store.load(where.ag_home, where.top)
    store.save(where.ag_home, dict(previous), previous)
    with open(path, "rb") as fh:
        assert fh.read() == canonical.replace(b", ", b",  ")  # read as it is, the same values: left alone
