"""Behaviour that depends on the git version. The whole suite runs twice in CI (scripts/test.sh): on the
system git (2.39) and on git 2.47 built from Debian trixie's source; these tests pin what differs:
`ref:` symref values (2.46+), the extra AUTO_MERGE transactions (2.47), reftable storage (2.45+), and
the doctor's verdict on a git too old for reference-transaction."""
import json
import os
import re
import subprocess

import pytest

from helpers import Git, refused
from helpers import assert_refused_and_kept, state


def git_version(env=None):
    text = subprocess.run(["git", "--version"], capture_output=True, text=True, env=env, check=True).stdout
    return tuple(int(x) for x in re.search(r"(\d+)\.(\d+)", text).groups())


def test_symref_updates_pass_and_a_protected_branch_cannot_become_one(guarded):
    repo, bare = guarded
    before = state(repo, bare)
    # checkouts are symref updates of HEAD (2.46+ reports them as `ref:refs/heads/...` values)
    repo.run("checkout", "-q", "feat")
    repo.run("checkout", "-q", "main")
    repo.run("symbolic-ref", "HEAD", "refs/heads/feat")
    repo.run("symbolic-ref", "HEAD", "refs/heads/main")
    assert state(repo, bare) == before
    proc = repo.run("symbolic-ref", "refs/heads/main", "refs/heads/feat", check=False)
    if git_version(repo.env) < (2, 46):
        # SECURITY.md: before 2.46 git writes symrefs without running reference-transaction
        assert proc.returncode == 0 and repo.rev("main") == repo.rev("feat")
        doctor = repo.agentguard("doctor", "--json", check=False)
        assert doctor.returncode == 1 and '"branches.ahead"' in doctor.stdout
        return
    assert_refused_and_kept(proc, repo, bare, before)
    assert repo.run("symbolic-ref", "-q", "refs/heads/main", check=False).returncode != 0  # still a plain ref


def test_hook_sees_what_this_git_sends(make_repo):
    """Chain a logging hook behind ours and check the transaction shapes this git version produces."""
    repo, _ = make_repo(install=False)
    log = os.path.join(repo.path, ".git", "rt.log")
    hook = os.path.join(repo.path, ".git", "hooks", "reference-transaction")
    with open(hook, "w") as fh:
        fh.write('#!/bin/sh\n{ echo "== $1"; cat; } >> "%s"\n' % log)
    os.chmod(hook, 0o755)
    repo.agentguard("install", "--no-adapters")
    repo.run("checkout", "-q", "-b", "feat")
    open(log, "w").close()
    repo.commit("on feat")
    with open(log) as fh:
        text = fh.read()
    version = git_version(repo.env)
    assert ("AUTO_MERGE" in text) == (version >= (2, 47)), text
    open(log, "w").close()
    repo.run("checkout", "-q", "main")
    with open(log) as fh:
        text = fh.read()
    assert ("ref:refs/heads/main HEAD" in text) == (version >= (2, 46)), text
    # and every one of those transactions went through, with agentguard in front of the logger
    assert repo.run("symbolic-ref", "HEAD").stdout.strip() == "refs/heads/main"


needs_reftable = pytest.mark.skipif(git_version() < (2, 45), reason="reftable needs git 2.45+ (CI runs 2.47)")


@needs_reftable
def test_reftable_commits_are_still_refused(tmp_path, env):
    work = tmp_path / "rt"
    subprocess.run(["git", "init", "-q", "--ref-format=reftable", "-b", "main", str(work)], env=env, check=True)
    repo = Git(str(work), env)
    repo.commit("initial")
    repo.agentguard("install", "--no-adapters")
    with open(os.path.join(repo.path, "y.txt"), "w") as fh:
        fh.write("y\n")
    repo.run("add", "y.txt")
    main = repo.rev("main")
    proc = repo.run("commit", "-q", "--no-verify", "-m", "direct", check=False)
    assert refused(proc) and repo.rev("main") == main
    assert repo.staged() == ["y.txt"]


@needs_reftable
def test_reftable_renames_are_an_open_hole_the_doctor_names(tmp_path, env):
    """SECURITY.md: with reftable storage a rename reaches the hook only as a HEAD line, and refusing that
    line does not undo the rename, so git cannot stop `branch -M feat main`. The doctor warns about the
    storage before, and fails on the result after."""
    bare = tmp_path / "rt-remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], env=env, check=True)
    work = tmp_path / "rt"
    subprocess.run(["git", "init", "-q", "--ref-format=reftable", "-b", "main", str(work)], env=env, check=True)
    repo = Git(str(work), env)
    repo.commit("initial")
    repo.run("remote", "add", "origin", str(bare))
    repo.run("push", "-q", "-u", "origin", "main")
    repo.agentguard("install", "--no-adapters")
    checks = {c["id"]: c for c in json.loads(repo.agentguard("doctor", "--json").stdout)["checks"]}
    assert checks["git.ref-storage"]["status"] == "warn" and "reftable" in checks["git.ref-storage"]["summary"]
    repo.run("checkout", "-q", "-b", "feat")
    repo.commit("feature")
    feat = repo.rev("feat")
    repo.run("branch", "-M", "feat", "main")  # the hole: git runs it
    assert repo.rev("main") == feat
    doctor = repo.agentguard("doctor", "--json", check=False)
    assert doctor.returncode == 1
    checks = {c["id"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert any(k.startswith("branches.") and v["status"] == "fail" for k, v in checks.items()), checks


def test_git_older_than_2_28_fails_the_doctor(guarded, tmp_path):
    """No git older than 2.28 can be installed on this machine (Debian's archive starts at 2.39), so a
    wrapper that reports 2.27.0 for `git --version` and runs the real git for everything else stands in
    for one. The doctor must fail on the version alone, with the fix."""
    repo, _ = guarded
    real = subprocess.run(["sh", "-c", "command -v git"], capture_output=True, text=True, env=repo.env).stdout.strip()
    shim = tmp_path / "oldgit"
    shim.mkdir()
    (shim / "git").write_text('#!/bin/sh\n[ "$1" = --version ] && { echo "git version 2.27.0"; exit 0; }\n'
                              'exec %s "$@"\n' % real)
    os.chmod(shim / "git", 0o755)
    env = dict(repo.env, PATH="%s%s%s" % (shim, os.pathsep, repo.env["PATH"]))
    doctor = repo.agentguard("doctor", "--json", check=False, env=env)
    assert doctor.returncode == 1
    checks = {c["id"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert checks["git.version"]["status"] == "fail" and "2.28" in checks["git.version"]["summary"]
    assert "git" in checks["git.version"]["fix"]
    ok = {c["id"]: c for c in json.loads(repo.agentguard("doctor", "--json").stdout)["checks"]}
    assert ok["git.version"]["status"] == "pass" and ok["git.ref-storage"]["status"] == "pass"
