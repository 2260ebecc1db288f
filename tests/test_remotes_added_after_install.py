"""Remotes that appear after install (issue #25): the push guard in git's transport covers them at
once through install's catch-all rule (no reinstall, doctor green), and the first push of a
protected branch to a remote that has no branch at all is allowed (an empty repository is how every
project starts); every other push onto a protected branch is still refused, with nothing lost.
Real bare remotes, the real `git push`, the real `agentguard check` and doctor."""
import json
import os
import subprocess

import pytest

from helpers import Git, refused, doctor_checks, doctor_report


def check(repo, command=None):
    """The decision of `.git/agentguard/check --json COMMAND`, or of `check --after --json`."""
    args = ["--json", command] if command is not None else ["--after", "--json"]
    proc = subprocess.run([os.path.join(repo.path, ".git", "agentguard", "check"), *args], cwd=repo.path,
                          env=repo.env, capture_output=True, text=True, timeout=120)
    return json.loads(proc.stdout)


def bare_repo(tmp_path, name, env):
    path = tmp_path / name
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(path)], env=env, check=True)
    return Git(str(path), env)


def heads(bare):
    return bare.run("for-each-ref", "--format=%(refname) %(objectname)", "refs/heads/").stdout


@pytest.fixture
def new_project(make_repo, tmp_path):
    """`git init`, install, a first commit on main; then a remote added: an empty bare repository."""
    repo, _ = make_repo(remote=False)
    bare = bare_repo(tmp_path, "origin.git", repo.env)
    repo.run("remote", "add", "origin", bare.path)
    return repo, bare


@pytest.mark.parametrize("flags", [[], ["--no-verify"]], ids=["hooks", "no-verify"])
def test_the_first_push_of_main_to_an_empty_remote_is_allowed(new_project, flags):
    repo, bare = new_project
    assert repo.run("remote", "get-url", "--push", "origin").stdout.startswith("agw::")
    assert check(repo, "git push -u origin main")["decision"] == "allow"
    proc = repo.run("push", *flags, "-u", "origin", "main", check=False)
    assert proc.returncode == 0, proc.stderr
    assert bare.rev("refs/heads/main") == repo.rev("main")
    assert repo.run("config", "branch.main.merge").stdout.strip() == "refs/heads/main"
    assert check(repo)["decision"] == "unchanged"
    # from now on the remote has a branch: main is protected there like anywhere
    repo.run("checkout", "-q", "-b", "feat")
    repo.commit("feature work")
    before = heads(bare)
    assert check(repo, "git push origin feat:main")["decision"] == "block"
    proc = repo.run("push", "--no-verify", "origin", "feat:main", check=False)
    assert refused(proc) and heads(bare) == before


@pytest.mark.parametrize("flags", [[], ["--no-verify"]], ids=["hooks", "no-verify"])
def test_the_same_push_to_a_remote_that_has_a_branch_is_refused(new_project, tmp_path, flags):
    """Someone else pushed a branch there: this clone has not seen it, so the analyser leaves the
    decision to the push guard, which sees the remote's real advertisement and refuses."""
    repo, bare = new_project
    other = Git(str(tmp_path / "other"), repo.env)
    repo.run("clone", "-q", bare.path, other.path, cwd=str(tmp_path))
    other.run("checkout", "-q", "-b", "theirs")
    other.commit("their work")
    other.run("push", "-q", "origin", "theirs")
    before = heads(bare)
    proc = repo.run("push", *flags, "origin", "main", check=False)
    assert refused(proc) and "protected branch 'main'" in proc.stderr
    assert heads(bare) == before and bare.rev("refs/heads/main") is None
    assert repo.rev("refs/remotes/origin/main") is None


def test_a_seen_branch_on_the_remote_makes_the_analyser_refuse(new_project):
    repo, bare = new_project
    repo.run("push", "-q", "origin", "main:refs/heads/feat")  # a feature branch first: allowed
    assert bare.rev("refs/heads/feat") == repo.rev("main")
    out = check(repo, "git push -u origin main")
    assert out["decision"] == "block" and out["rule"] == "push-protected"
    proc = repo.run("push", "--no-verify", "-u", "origin", "main", check=False)
    assert refused(proc) and bare.rev("refs/heads/main") is None


def test_deleting_or_forcing_main_on_an_empty_remote_stays_refused(new_project):
    repo, bare = new_project
    for command in ("git push --force origin main", "git push origin +main", "git push origin :main",
                    "git push --delete origin main"):
        assert check(repo, command)["decision"] == "block", command
    proc = repo.run("push", "--no-verify", "origin", ":main", check=False)
    assert proc.returncode != 0 and heads(bare) == ""


def test_a_remote_added_after_install_is_guarded_at_once(guarded, tmp_path):
    repo, origin = guarded
    upstream = bare_repo(tmp_path, "upstream.git", repo.env)
    repo.run("remote", "add", "upstream", upstream.path)
    repo.run("fetch", "-q", "upstream")
    pushes = [line for line in repo.run("remote", "-v").stdout.splitlines() if line.endswith("(push)")]
    assert pushes and all("\tagw::" in line for line in pushes), pushes
    checks, proc = doctor_report(repo)
    assert proc.returncode == 0 and checks["push.remotes"]["status"] == "pass", checks["push.remotes"]
    assert checks["probe.push-guard"]["status"] == "pass"
    assert check(repo, "git push upstream feat")["decision"] == "allow"
    repo.run("push", "-q", "upstream", "feat")
    assert upstream.rev("refs/heads/feat") == repo.rev("feat")
    assert check(repo)["decision"] == "unchanged"
    proc = repo.run("push", "--no-verify", "upstream", "feat:main", check=False)
    assert refused(proc) and upstream.rev("refs/heads/main") is None
    assert heads(upstream) == "refs/heads/feat %s\n" % repo.rev("feat")


def test_the_users_insteadof_applies_to_a_remote_added_after_install(guarded, tmp_path):
    """git applies no insteadOf to a URL its pushInsteadOf rewrote: the helper asks git for it."""
    repo, _ = guarded
    target = bare_repo(tmp_path / "shared", "later.git", repo.env)
    repo.run("config", "--global", "url.%s/.insteadOf" % os.path.dirname(target.path), "shared:")
    repo.run("remote", "add", "later", "shared:later.git")
    assert repo.run("remote", "get-url", "--push", "later").stdout.strip() == "agw::agw::shared:later.git"
    repo.run("push", "-q", "later", "feat")
    assert target.rev("refs/heads/feat") == repo.rev("feat")
    proc = repo.run("push", "--no-verify", "later", "feat:main", check=False)
    assert refused(proc) and target.rev("refs/heads/main") is None
    assert doctor_checks(repo)["push.remotes"]["status"] == "pass"


def test_the_users_pushinsteadof_still_decides_where_pushes_go(make_repo, tmp_path):
    repo, _ = make_repo(remote=False, install=False)
    fetch_from = bare_repo(tmp_path / "fetch", "r.git", repo.env)
    push_to = bare_repo(tmp_path / "push", "r.git", repo.env)
    repo.run("config", "--global", "url.%s/.pushInsteadOf" % os.path.dirname(push_to.path),
             os.path.dirname(fetch_from.path) + "/")
    repo.run("remote", "add", "origin", fetch_from.path)
    repo.agentguard("install")
    repo.run("checkout", "-q", "-b", "feat")
    repo.commit("feature work")
    repo.run("push", "-q", "origin", "feat")
    assert push_to.rev("refs/heads/feat") == repo.rev("feat") and heads(fetch_from) == ""
    proc = repo.run("push", "--no-verify", "origin", "feat:main", check=False)
    assert refused(proc) and push_to.rev("refs/heads/main") is None


def test_a_pushurl_set_after_install_is_named_by_the_doctor_and_fixed(guarded, tmp_path):
    """git applies no pushInsteadOf to an explicit pushurl, so the catch-all cannot cover one set
    later: the doctor names it, `doctor --fix` puts the guard in front of it."""
    repo, _ = guarded
    elsewhere = bare_repo(tmp_path, "elsewhere.git", repo.env)
    repo.run("config", "remote.origin.pushurl", elsewhere.path)
    repo.run("push", "-q", "origin", "feat")  # seen by the pre-push hook only: a remote with a branch now
    checks, proc = doctor_report(repo)
    assert proc.returncode != 0 and checks["push.remotes"]["status"] == "fail"
    assert "origin" in checks["push.remotes"]["summary"]
    assert checks["push.remotes"]["fix"] == "agentguard doctor --fix" and "pushurl" in checks["push.remotes"]["summary"]
    repo.agentguard("doctor", "--fix", check=False)
    assert doctor_checks(repo)["push.remotes"]["status"] == "pass"
    proc = repo.run("push", "--no-verify", "origin", "feat:main", check=False)
    assert refused(proc) and elsewhere.rev("refs/heads/main") is None


def test_another_spelling_of_the_remote_meets_the_guard(guarded):
    """A URL install never saw (here the remote's path with a `./` in it) is caught by the catch-all."""
    repo, bare = guarded
    other = os.path.join(os.path.dirname(bare.path), ".", os.path.basename(bare.path))
    before = heads(bare)
    proc = repo.run("push", "--no-verify", other, "feat:main", check=False)
    assert refused(proc) and heads(bare) == before
    assert check(repo, "git push %s feat:main" % other)["decision"] == "block"


def test_without_the_push_guard_the_pre_push_hook_asks_the_remote(make_repo, tmp_path):
    """Installed with --no-push-guard: the pre-push hook alone judges, and asks the remote whether it
    has any branch only when a protected branch is being created. Agents are refused the push (the
    hook is all there is, and --no-verify skips it)."""
    repo, _ = make_repo(remote=False, install=False)
    repo.agentguard("install", "--no-push-guard")
    empty = bare_repo(tmp_path, "empty.git", repo.env)
    repo.run("remote", "add", "origin", empty.path)
    assert check(repo, "git push -u origin main")["decision"] == "block"
    repo.run("push", "-q", "-u", "origin", "main")
    assert empty.rev("refs/heads/main") == repo.rev("main")
    assert check(repo)["decision"] == "unchanged"
    busy = bare_repo(tmp_path, "busy.git", repo.env)
    repo.run("push", "-q", busy.path, "main:refs/heads/other")
    proc = repo.run("push", busy.path, "main", check=False)
    assert refused(proc) and busy.rev("refs/heads/main") is None
