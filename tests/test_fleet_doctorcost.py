"""``doctor --all``'s cost per repository (#30) with nothing loosened: the refs are listed once (the probes'
current values, the ref-shape and branch checks, the remotes' HEADs), the config questions come from the one
listing, and a repository that differs from identical neighbours in its hook, its hooksPath, its runtime or
the shape of a protected branch still fails among them."""
import json
import os
import shutil

import pytest

from helpers import Git, agentguard

from agentguard.installer.committedconfig import CONFIG_FILE_VARS, REMOTE_KEYS
from agentguard.installer.doctor import probes, probeshare
from agentguard.installer.doctor.runner import Doctor
from agentguard.installer.gitaccess import gitenv

REFTX = "probe.reference-transaction"


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
    assert subcommands.count("update-ref") == 1  # both probes in one session, through the repository's own hook
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


@pytest.fixture
def clones(tmp_path, make_repo, env):
    """Four byte-identical repositories (copies of one, the same origin) under tmp_path/copies, installed."""
    first, _ = make_repo("copies/c0", install=False)
    for i in range(1, 4):
        shutil.copytree(first.path, os.path.join(str(tmp_path), "copies", "c%d" % i), symlinks=True)
    root = tmp_path / "copies"
    proc = agentguard("install", "--all", str(root), "--json", cwd=str(root), env=env, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return [Git(os.path.join(str(root), "c%d" % i), env) for i in range(4)]


def doctored(path, env, shared, monkeypatch):
    """({check id: Check}, [programs the probes ran]) of the doctor in ``path`` given ``shared``."""
    for k in list(os.environ):
        monkeypatch.delenv(k)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    ran = []
    real = probes.run
    monkeypatch.setattr(probes, "run", lambda argv, *a, **k: ran.append(
        argv[1] if argv[0] == "git" else os.path.basename(argv[0])) or real(argv, *a, **k))
    d = Doctor(path)
    d.run(shared=shared)
    monkeypatch.setattr(probes, "run", real)
    for key, where, passed in shared.offers:
        shared.known.setdefault(key, (where, passed))
    return {c.id: c for c in d.checks}, ran


HOOK = os.path.join(".git", "hooks", "reference-transaction")


def test_identical_clones_share_the_refusal_and_each_git_still_runs_its_hook(clones, env, monkeypatch):
    c0, c1, c2, c3 = clones
    shared = probeshare.Shared({}, None)
    first, _ = doctored(c0.path, env, shared, monkeypatch)
    assert "probed in" not in first[REFTX].summary and "moving main: refused" in first[REFTX].summary
    checks, ran = doctored(c1.path, env, shared, monkeypatch)
    assert all(c.status == "pass" for cid, c in checks.items() if cid.startswith("probe.")), checks
    assert "moving main: refused (probed in %s" % os.path.realpath(c0.path) in checks[REFTX].summary
    assert "accepted" in checks[REFTX].summary and ran.count("update-ref") == 1  # the accepted one, here
    # the same hook bytes, but not executable: git does not run it, so nothing refuses
    os.chmod(os.path.join(c2.path, HOOK), 0o644)
    checks, _ = doctored(c2.path, env, shared, monkeypatch)
    assert checks[REFTX].status == "fail" and "NOT refused" in checks[REFTX].summary, checks[REFTX]
    # the same files, but the config sends git elsewhere for its hooks
    empty = os.path.join(os.path.dirname(c3.path), "no-hooks")
    os.makedirs(empty)
    c3.run("config", "core.hooksPath", empty)
    checks, _ = doctored(c3.path, env, shared, monkeypatch)
    assert checks[REFTX].status == "fail" and "NOT refused" in checks[REFTX].summary, checks[REFTX]


@pytest.mark.parametrize("change", ["not executable", "hooks elsewhere"])
def test_a_matching_key_is_not_enough_git_must_be_seen_running_the_hook(clones, env, monkeypatch, change):
    c0, c1, _, _ = clones
    shared = probeshare.Shared({}, None)
    doctored(c0.path, env, shared, monkeypatch)
    (rkey,) = [k for k, _, passed in shared.offers if REFTX in passed]
    # as if the key could not tell: c1's git must still be seen running the very hook that refused in c0
    monkeypatch.setattr(probeshare, "reftx_fingerprint", lambda *a: rkey)
    if change == "not executable":
        os.chmod(os.path.join(c1.path, HOOK), 0o644)
    else:
        empty = os.path.join(os.path.dirname(c1.path), "no-hooks")
        os.makedirs(empty)
        c1.run("config", "core.hooksPath", empty)
    checks, ran = doctored(c1.path, env, shared, monkeypatch)
    assert checks[REFTX].status == "fail" and "NOT refused" in checks[REFTX].summary, checks[REFTX]
    assert "probed in" not in checks[REFTX].summary and ran.count("update-ref") == 2, ran  # tried here after all
