"""``doctor --all`` makes one probe commit for the run (``probes.shared_commit``) instead of two git
processes per repository; each repository's reference-transaction probe still runs its own hook against
it, and a broken hook is still found; without the shared commit each repository makes its own."""
import os

import pytest

from helpers import agentguard

from agentguard.installer.doctor import probes, probeshare
from agentguard.installer.doctor.runner import Doctor


@pytest.fixture
def fleet(tmp_path, make_repo, env, monkeypatch):
    repos = [make_repo("root/r%d" % i, install=False)[0] for i in range(2)]
    proc = agentguard("install", "--all", str(tmp_path / "root"), "--json", cwd=str(tmp_path), env=env, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for k in list(os.environ):
        monkeypatch.delenv(k)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    return repos


def probed(repo, commit, monkeypatch):
    """({check id: status}, [git subcommands the probes ran]) of the doctor in ``repo`` given ``commit``."""
    ran = []
    real = probes.run

    def run(argv, cwd, env, stdin=b""):
        ran.append(argv[1] if argv[0] == "git" else os.path.basename(argv[0]))
        return real(argv, cwd, env, stdin)
    monkeypatch.setattr(probes, "run", run)
    d = Doctor(repo.path)
    d.run(shared=probeshare.Shared({}, commit))
    monkeypatch.setattr(probes, "run", real)
    return {c.id: c for c in d.checks}, ran


def test_one_probe_commit_serves_every_repository_and_each_runs_its_own_hook(fleet, monkeypatch):
    with probes.shared_commit() as commit:
        assert commit is not None
        for repo in fleet:
            checks, ran = probed(repo, commit, monkeypatch)
            assert "mktree" not in ran and "commit-tree" not in ran, ran
            assert ran.count("update-ref") == 1  # the accepted and the refused transaction in one session
            assert all(c.status == "pass" for cid, c in checks.items() if cid.startswith("probe.")), checks
            assert "refused" in checks["probe.reference-transaction"].summary
        where = commit[0]
    assert not os.path.exists(where)  # the run's commit goes with the run
    for repo in fleet:
        assert commit[1] not in repo.run("log", "--all", "--format=%H").stdout
        assert not repo.run("cat-file", "-e", commit[1], check=False).returncode == 0


def test_a_broken_backstop_is_found_with_the_shared_commit(fleet, monkeypatch):
    hook = os.path.join(fleet[1].path, ".git", "hooks", "reference-transaction")
    with open(hook, "w") as fh:
        fh.write("#!/bin/sh\nexit 0\n")
    with probes.shared_commit() as commit:
        good, _ = probed(fleet[0], commit, monkeypatch)
        bad, _ = probed(fleet[1], commit, monkeypatch)
    assert good["probe.reference-transaction"].status == "pass"
    assert bad["probe.reference-transaction"].status == "fail"
    assert "NOT refused" in bad["probe.reference-transaction"].summary


def test_without_a_shared_commit_each_repository_makes_its_own(fleet, monkeypatch):
    checks, ran = probed(fleet[0], None, monkeypatch)
    assert ran.count("mktree") == 1 and ran.count("commit-tree") == 1
    assert checks["probe.reference-transaction"].status == "pass"
