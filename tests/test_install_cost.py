"""What one repository's install costs in git processes (#30: install --all over 200 repositories):
git is asked each question once (the push guard's config reads in one listing, no throwaway git dir
when there is nothing to resolve, one for-each-ref for the default policy, the exclude file's path
once, the after-check's baseline on install's own layout), and what it asks is still asked: a
remote's push URL is still resolved by git, and the guard is in place afterwards."""
import os

import helpers
from helpers import agentguard, doctor_checks

# one install's git processes, with a remote (its URL resolved by git: 5 more) and without; 3 of them are the
# process's own (GitPython's `git version` twice, `--exec-path`); before #30's round three: 27 and 22
MAX_GIT = {True: 22, False: 17}


def counting_git(tmp_path, env):
    """``helpers.counting_git``, with a cache of its own (git's option table is keyed by the git binary:
    asked once, by the warm-up)."""
    env, marks = helpers.counting_git(tmp_path, env)
    return dict(env, AGENTGUARD_CACHE_HOME=str(tmp_path / "cache")), marks


def starts(marks):
    return marks.read_text().splitlines() if marks.exists() else []


def test_one_install_starts_few_git_processes(make_repo, tmp_path, env):
    counting, marks = counting_git(tmp_path, env)
    warm, _ = make_repo("warm", remote=False, install=False)
    agentguard("install", cwd=warm.path, env=counting)
    for remote in (True, False):
        repo, _ = make_repo("r-%s" % remote, remote=remote, install=False)
        marks.unlink()
        proc = agentguard("install", cwd=repo.path, env=counting)
        assert "installed in" in proc.stdout
        asked = starts(marks)
        assert len(asked) <= MAX_GIT[remote], "\n".join(asked)
        assert not [a for a in asked if "--help-all" in a]  # the option table came from the cache
        assert ("remote -v" in "\n".join(asked)) == remote  # a remote's push URL is still git's answer
        assert sum(a.startswith("init ") for a in asked) == remote  # no throwaway git dir for nothing
        checks = doctor_checks(repo)
        failed = [c for c in checks.values() if c["status"] == "fail"]
        assert checks and not failed, failed


def test_a_durable_batch_syncs_its_own_file_system_not_the_machines(tmp_path, monkeypatch):
    """syncfs(2) of the file system written (sync(2) waits for every dirty page of the machine): the
    files land whole and in place; sync(2) stays the fallback where libc has no syncfs."""
    from agentguard.installer.setup import durable
    durable._SYNCFS.clear()
    durable.sync_filesystems([str(tmp_path)])
    if durable._SYNCFS[0] is None:
        return  # no syncfs here: sync(2) was used, as before

    def machine_wide():
        raise AssertionError("sync(2) called")
    monkeypatch.setattr(durable.os, "sync", machine_wide)
    batch = durable.Batch()
    for i in range(durable.FEW + 2):  # files and directories beyond a few: syncfs before and after the renames
        batch.write(str(tmp_path / "d" / ("f%d" % i)), b"%d" % i)
        batch.write(str(tmp_path / ("d%d" % i) / "f"), b"d%d" % i, 0o600)
    batch.commit()
    assert sorted(os.listdir(tmp_path / "d")) == ["f%d" % i for i in range(durable.FEW + 2)]
    assert open(tmp_path / "d" / "f5", "rb").read() == b"5" and open(tmp_path / "d5" / "f", "rb").read() == b"d5"
    assert os.stat(tmp_path / "d5" / "f").st_mode & 0o777 == 0o600
    assert not [n for n in os.listdir(tmp_path / "d") if n.startswith(".agentguard-tmp-")]


def test_the_runtime_and_its_compiled_file_land_in_one_batch_sources_first(tmp_path, monkeypatch):
    """One durable batch (two flushes, not four): the compiled file is one of the runtime's files, in place
    only after every source, and holds each module's code as compiling that source gives it."""
    import marshal
    from agentguard.installer.setup import durable, runtime_files
    files = runtime_files.runtime_files()
    root = tmp_path / "runtime"
    renamed, flushes = [], []
    real_replace, real_sync = durable.os.replace, durable.sync_filesystems
    monkeypatch.setattr(durable.os, "replace", lambda a, b: (renamed.append(b), real_replace(a, b))[1])
    monkeypatch.setattr(durable, "sync_filesystems", lambda dirs: (flushes.append(dirs), real_sync(dirs))[1])
    runtime_files.write_runtime([(str(root / rel), data, 0o644) for rel, data in files.items()], str(root))
    assert len(flushes) == 2
    sources = [rel for rel in files if rel.startswith("hooks/") and rel.endswith(".py")]
    assert sources
    compiled = str(root / "hooks.marshal")
    assert renamed[-1] == compiled and all(renamed.index(str(root / rel)) < len(renamed) - 1 for rel in sources)
    data = open(compiled, "rb").read()
    table = marshal.loads(data[len(b"agentguard compiled runtime 1\n") + 4:])
    for name, (package, rel, code) in table.items():
        assert marshal.loads(code).co_filename == "agentguard-runtime/" + rel and rel in sources
        assert package == rel.endswith("/__init__.py")
    assert len(table) == len(sources) and len(renamed) == len(files)
