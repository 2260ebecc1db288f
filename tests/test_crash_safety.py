"""SIGKILL install and uninstall at many points: every file is the old one or the new one, never half,
and a re-run of install or of uninstall completes the job exactly (byte for byte, modes included).

tests/harness/kill_at_write.py kills the real CLI just before its Nth filesystem change (Python's audit
hooks see each one), so each point is a real `kill -9` at a known moment, not a timing guess.
"""
import os
import re
import shutil
import subprocess
import sys

import pytest

from helpers import USER_HOOK, USER_TOML, agentguard, snapshot

# kills the real CLI at every filesystem change: minutes; the writes are agentguard's own, whatever git runs
pytestmark = [pytest.mark.slow, pytest.mark.one_git]

HERE = os.path.dirname(os.path.abspath(__file__))
DRIVER = os.path.join(HERE, "harness", "kill_at_write.py")
RUNTIME_STRIDE = 40  # the runtime's ~150 writes are alike; every file outside it is killed at each point


def run_killed(work, n, *args, env):
    return subprocess.run([sys.executable, DRIVER, work, str(n), *args], cwd=work, env=env,
                          capture_output=True, text=True, timeout=120)


def changes(work, args, env):
    """[(event, path, destination)] of every filesystem change ``agentguard args`` makes below ``work``."""
    proc = run_killed(work, 0, *args, env=env)
    assert proc.returncode == 0, proc.stderr
    return [tuple(line.split("\t")[1:]) + ("",) * (4 - len(line.split("\t")))
            for line in proc.stderr.splitlines() if line.startswith("write\t")]


def kill_points(found):
    """Which changes to kill at: all but the chmod of a temp file (the same state as the rename after
    it), and every RUNTIME_STRIDE-th one inside the runtime (~150 alike writes), and the last one."""
    runtime = os.sep + os.path.join("agentguard", "runtime")
    points, seen_runtime = [], 0
    for index, (event, path, _) in enumerate(found, start=1):
        if event == "os.chmod" and os.path.basename(path).startswith(".agentguard-tmp-"):
            continue
        if runtime in path or OUTCOME.rstrip(os.sep) in path:  # the after-check's cache: alike too
            seen_runtime += 1
            if seen_runtime % RUNTIME_STRIDE != 1:
                continue
        points.append(index)
    return sorted(set(points) | {len(found)})


OUTCOME = os.path.join(".git", "agentguard", "outcome") + os.sep


def is_leftover(rel):
    """What a kill may leave that is neither old nor new: a temp file of an atomic write or of the
    byte-compiler (the next run removes both), the write-ahead manifest, or the after-check's
    snapshot (a cache of stat data that every `check` rewrites; uninstall removes it)."""
    name = os.path.basename(rel)
    return (name.startswith(".agentguard-tmp-") or rel.startswith(OUTCOME) or rel == OUTCOME.rstrip(os.sep)
            or re.search(r"\.pyc\.[0-9]+\Z", name) is not None
            or rel.endswith(os.path.join("agentguard", "manifest.json")))


def assert_old_or_new(after, old, new, context):
    for rel in set(after) | set(old) | set(new):
        if is_leftover(rel):
            continue
        assert after.get(rel) in (old.get(rel), new.get(rel)), "%s: %s is neither the old nor the new one (%r)" % (
            context, rel, after.get(rel))


def diff(a, b):
    return sorted(rel for rel in set(a) | set(b)
                  if a.get(rel) != b.get(rel) and not rel.startswith(OUTCOME) and rel != OUTCOME.rstrip(os.sep))


def make_template(root, env):
    """A repository with a user pre-commit hook to chain and a user gptme.toml to merge."""
    subprocess.run(["git", "init", "-q", "-b", "main", root], env=env, check=True)
    subprocess.run(["git", "-C", root, "commit", "-q", "--allow-empty", "-m", "initial"], env=env, check=True)
    hook = os.path.join(root, ".git", "hooks", "pre-commit")
    with open(hook, "wb") as fh:
        fh.write(USER_HOOK)
    os.chmod(hook, 0o755)
    with open(os.path.join(root, "gptme.toml"), "wb") as fh:
        fh.write(USER_TOML)


SCENARIOS = {
    # name: (set-up commands run before the one that is killed, the killed command)
    "fresh-install": ([], ["install"]),
    "reinstall-new-policy": ([["install"]], ["install", "--protect", "main", "--protect", "release/*"]),
    "uninstall": ([["install"]], ["uninstall"]),
}


@pytest.mark.parametrize("shard", [0, 1])
@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_kill_at_every_point(scenario, shard, tmp_path, env):
    setup, killed = SCENARIOS[scenario]
    work = str(tmp_path / "work")  # every run happens at this one path (install records absolute paths)
    make_template(work, env)
    pristine = snapshot(work)
    for args in setup:
        agentguard(*args, cwd=work, env=env)
    ready = str(tmp_path / "ready")
    shutil.copytree(work, ready, symlinks=True)
    old = snapshot(work)

    def restore():
        shutil.rmtree(work)
        shutil.copytree(ready, work, symlinks=True)

    def finish_with(args):
        agentguard(*args, cwd=work, env=env)
        return snapshot(work)

    new = finish_with(killed)
    uninstalled = finish_with(["uninstall"])
    assert set(diff(uninstalled, pristine)) <= {".git/agentguard", ".git/agentguard/lock"}
    installed = None
    if killed[0] == "uninstall":
        restore()
        installed = finish_with(["install"])  # the state a re-install after a killed uninstall reaches

    restore()
    found = changes(work, killed, env)
    points = kill_points(found)
    assert len(found) > 20 and len(points) > 10, (found, points)
    for i, n in enumerate(points):
        if i % 2 != shard:
            continue
        restore()
        proc = run_killed(work, n, *killed, env=env)
        context = "%s killed before change %d of %d %r" % (scenario, n, len(found), found[n - 1])
        assert proc.returncode == -9, "%s: %r" % (context, proc.stderr[-2000:])
        assert "Traceback" not in proc.stderr
        assert_old_or_new(snapshot(work), old, new, context)
        if (i // 2) % 2 == 0:
            # a re-run of the command that was killed completes it exactly
            assert diff(finish_with(killed), new) == [], context
        elif killed[0] == "uninstall":
            # or the other way out: install again
            assert diff(finish_with(["install"]), installed) == [], context
        # and uninstall then puts everything back, byte for byte
        assert diff(finish_with(["uninstall"]), uninstalled) == [], context
    with open(os.path.join(work, ".git", "hooks", "pre-commit"), "rb") as fh:
        assert fh.read() == USER_HOOK
    with open(os.path.join(work, "gptme.toml"), "rb") as fh:
        assert fh.read() == USER_TOML


def test_doctor_names_an_interrupted_install(make_repo):
    repo, _ = make_repo(remote=False, install=False)
    shutil.copytree(repo.path, repo.path + "-copy", symlinks=True)
    found = changes(repo.path, ["install"], repo.env)
    shutil.rmtree(repo.path)
    shutil.copytree(repo.path + "-copy", repo.path, symlinks=True)
    # the record is renamed into place last, but for the after-check's first snapshot (a cache)
    last = max(n for n, change in enumerate(found, start=1) if change[2].endswith("manifest.json"))
    assert all(OUTCOME.rstrip(os.sep) in change[1] for change in found[last:]), found[last:]
    proc = run_killed(repo.path, last, "install", env=repo.env)  # every file written, but the record
    assert proc.returncode == -9
    doctor = repo.agentguard("doctor", "--json", check=False)
    assert doctor.returncode == 1
    assert '"install.manifest"' in doctor.stdout and "interrupted" in doctor.stdout
    fixed = repo.agentguard("doctor", "--fix", check=False)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "interrupted" not in repo.agentguard("doctor", "--json").stdout
