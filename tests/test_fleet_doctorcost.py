"""``doctor --all``'s cost per repository (#30) with nothing loosened: the refs are listed once (the probes'
current values, the ref-shape and branch checks, the remotes' HEADs), the config questions come from the one
listing, and a repository that differs from identical neighbours in its hook, its hooksPath, its runtime or
the shape of a protected branch still fails among them."""
import json
import os

import pytest

from helpers import agentguard

from agentguard.installer.committedconfig import CONFIG_FILE_VARS, REMOTE_KEYS
from agentguard.installer.doctor import probes, probeshare
from agentguard.installer.doctor.runner import Doctor
from agentguard.installer.gitaccess import gitenv


@pytest.fixture
def fleet(tmp_path, make_repo, env):
    repos = [make_repo("root/r%d" % i, install=False)[0] for i in range(5)]
    proc = agentguard("install", "--all", str(tmp_path / "root"), "--json", cwd=str(tmp_path), env=env, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return tmp_path / "root", repos


def test_one_repository_lists_its_refs_once_and_asks_git_no_ref_or_config_question(fleet, env, monkeypatch):
    _, repos = fleet
    for k in list(os.environ):
        monkeypatch.delenv(k)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    asked = []
    real_git, real_probe = gitenv.run, probes.run
    monkeypatch.setattr(gitenv, "run", lambda args, *a, **k: asked.append(list(args)) or real_git(args, *a, **k))
    monkeypatch.setattr(probes, "run", lambda argv, *a, **k: asked.append(
        list(argv[1:]) if argv[0] == "git" else [os.path.basename(argv[0])]) or real_probe(argv, *a, **k))
    d = Doctor(repos[1].path)
    d.run(shared=probeshare.Shared({}, None))
    assert d.ok(), [c for c in d.checks if c.status == "fail"]
    subcommands = [a[0] for a in asked]
    assert subcommands.count("for-each-ref") == 1, asked
    assert subcommands.count("update-ref") == 2  # each probe still runs the repository's own hook through git
    assert not [a for a in asked if a[0] in ("rev-parse", "symbolic-ref", "remote") and a != asked[0]], asked
    # every config question from the listing; the remotes' one is asked of git only where the environment
    # names config files (then git is asked in it, the listing in the doctor's clean one)
    remotes = ["config", "-z", "--get-regexp", REMOTE_KEYS]
    kept = any(k in os.environ for k in CONFIG_FILE_VARS)
    assert [a for a in asked if a[0] == "config"] == ([remotes] if kept else []), asked
    ran = {c.id: c for c in d.checks}
    assert "moving main: refused" in ran["probe.reference-transaction"].summary
    assert ran["refs.shape"].status == "pass" and ran["branches.ahead"].status == "pass"


def test_a_repository_that_differs_among_identical_ones_still_fails(fleet, env):
    root, (r0, r1, r2, r3, r4) = fleet
    with open(os.path.join(r1.path, ".git", "hooks", "reference-transaction"), "w") as fh:
        fh.write("#!/bin/sh\nexit 0\n")  # git runs it, it refuses nothing
    elsewhere = os.path.join(str(root), "..", "other-hooks")
    os.makedirs(elsewhere)
    r2.run("config", "core.hooksPath", elsewhere)
    with open(os.path.join(r3.path, ".git", "agentguard", "runtime", "hooks", "policy.py"), "a") as fh:
        fh.write("\n# changed\n")
    # a protected name, dangling: not listed. Written past git, as git 2.46 and newer put symref updates
    # through the reference-transaction hook, which refuses them
    with open(os.path.join(r4.path, ".git", "refs", "heads", "master"), "w") as fh:
        fh.write("ref: refs/heads/nowhere\n")
    proc = agentguard("doctor", "--all", str(root), "--json", cwd=str(root), env=env, check=False)
    assert "Traceback" not in proc.stderr, proc.stderr
    rows = {os.path.basename(r["path"]): r for r in json.loads(proc.stdout)["repositories"]}
    assert proc.returncode != 0 and rows["r0"]["protected"], rows["r0"]
    failed = {name: {f["id"] for f in row["failed"]} for name, row in rows.items()}
    assert {"probe.reference-transaction", "hooks.reference-transaction"} <= failed["r1"]
    assert not rows["r2"]["protected"] and "probe.reference-transaction" in failed["r2"], failed["r2"]
    assert "runtime.files" in failed["r3"]
    assert "refs.shape" in failed["r4"], rows["r4"]
