"""A protected branch's remote counterpart is a remote recorded at install, at its recorded URL (issue #13).

A fetch may write any remote's tracking refs, so "any refs/remotes/<remote>/main" let a remote added or
re-pointed by anyone lead main onto unpushed local work. Every refusal here also asserts that nothing
was lost: main, feat and the remote's main are where they were.
"""
import json
import os
import subprocess

import pytest

from helpers import (Git, assert_refused_and_kept, doctor_checks, doctor_report, refused, state, succeeded_unrefused,
                     upstream_advance)



def forged_remote(repo, tmp_path, name="x.git"):
    """A bare copy of the repository whose main is the unpushed local `feat` (the attack of issue #13)."""
    path = str(tmp_path / name)
    subprocess.run(["git", "clone", "-q", "--bare", repo.path, path], env=repo.env, check=True)
    repo.run("-C", path, "branch", "-f", "main", repo.rev("feat"))  # no hooks in the copy
    return path


@pytest.fixture
def check(monkeypatch):
    """The analyser's decision in-process (the code the runtime copy runs): (decision, rule)."""
    from agentguard.hooks.analyser.check import verdict

    def run(repo, command):
        for key in list(os.environ):
            monkeypatch.delenv(key)
        for key, value in repo.env.items():
            if not key.startswith("GIT_") or key == "GIT_CONFIG_NOSYSTEM":
                monkeypatch.setenv(key, value)
        return verdict(command=command, cwd=repo.path)[:2]
    return run


# -- the holes of issue #13, closed ----------------------------------------------------------------
def test_an_added_remote_cannot_lead_main_onto_local_work(guarded, tmp_path, check):
    repo, bare = guarded
    forged = forged_remote(repo, tmp_path)
    feat = repo.rev("feat")
    assert check(repo, "git remote add evil %s" % forged) == ("allow", "")
    succeeded_unrefused(repo.run("remote", "add", "evil", forged))
    assert check(repo, "git fetch evil") == ("allow", "")
    succeeded_unrefused(repo.run("fetch", "-q", "evil"))  # writing another remote's tracking refs unlocks nothing now
    assert check(repo, "git merge --ff-only evil/main") == ("block", "merge-on-protected")
    before = state(repo, bare)
    for cmd in (["merge", "--ff-only", "evil/main"], ["reset", "--hard", "evil/main"],
                ["pull", "--ff-only", "evil", "main"]):
        assert_refused_and_kept(repo.run(*cmd, check=False), repo, bare, before)
    repo.run("checkout", "-q", "feat")  # git will not fetch into the branch checked out
    for cmd in (["fetch", "evil", "main:main"], ["update-ref", "refs/heads/main", "evil/main"]):
        assert_refused_and_kept(repo.run(*cmd, check=False), repo, bare, before)
    assert repo.run("rev-parse", "evil/main").stdout.strip() == feat, "the remote is unchanged"
    assert repo.run("-C", forged, "rev-parse", "main").stdout.strip() == feat
    assert repo.rev("feat") == feat


def test_a_reconfigured_remote_cannot_lead_main(guarded, tmp_path, check):
    repo, bare = guarded
    forged = forged_remote(repo, tmp_path)
    origin_main = repo.rev("refs/remotes/origin/main")
    url = repo.run("remote", "get-url", "origin").stdout.strip()
    assert check(repo, "git remote set-url origin %s" % forged) == ("block", "remote-config")
    repo.run("remote", "set-url", "origin", forged)  # what a person (or a hole) may still do
    before = state(repo, bare)
    proc = repo.run("fetch", "origin", check=False)
    assert_refused_and_kept(proc, repo, bare, before)
    assert "[rule: remote-config]" in proc.stderr and "agentguard install" in proc.stderr
    assert repo.rev("refs/remotes/origin/main") == origin_main
    # with git's hooks switched off (an open hole) the fetch lands, but main still cannot follow it
    repo.run("-c", "core.hooksPath=/dev/null", "fetch", "-q", "origin")
    assert repo.rev("refs/remotes/origin/main") == repo.rev("feat")
    assert_refused_and_kept(repo.run("merge", "--ff-only", "origin/main", check=False), repo, bare, before)
    repo.run("remote", "set-url", "origin", url)
    repo.run("fetch", "-q", "origin")  # the real remote puts its main back
    assert repo.rev("refs/remotes/origin/main") == origin_main


@pytest.mark.parametrize("how", ["set-url-and-back", "config-env", "insteadof", "uploadpack", "--upload-pack",
                                 "fetch-refspec", "other-remote-refspec"])
def test_other_ways_to_feed_origin_main_are_refused(guarded, tmp_path, how):
    repo, bare = guarded
    forged = forged_remote(repo, tmp_path)
    url = repo.run("remote", "get-url", "origin").stdout.strip()
    origin_main = repo.rev("refs/remotes/origin/main")
    env = None
    cmd = ["fetch", "origin"]
    if how == "set-url-and-back":  # forge, then put the URL back before merging: the fetch is refused
        repo.run("remote", "set-url", "origin", forged)
    elif how == "config-env":
        env = dict(repo.env, GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0="url.%s.insteadOf" % forged,
                   GIT_CONFIG_VALUE_0=url)
    elif how == "insteadof":
        repo.run("config", "url.%s.insteadOf" % forged, url)
    elif how == "uploadpack":  # the same URL, another repository behind it
        repo.run("config", "remote.origin.uploadpack", "git-upload-pack %s #" % forged)
    elif how == "--upload-pack":
        cmd = ["fetch", "--upload-pack", "git-upload-pack %s #" % forged, "origin"]
    elif how == "fetch-refspec":  # a branch pushed to origin, fetched into origin's main
        repo.run("push", "-q", "origin", "feat")
        repo.run("config", "remote.origin.fetch", "+refs/heads/feat:refs/remotes/origin/main")
    else:
        repo.run("remote", "add", "evil", forged)
        repo.run("config", "remote.evil.fetch", "+refs/heads/main:refs/remotes/origin/main")
        cmd = ["fetch", "--all"]
    before = state(repo, bare)
    assert_refused_and_kept(repo.run(*cmd, check=False, env=env), repo, bare, before)
    assert repo.rev("refs/remotes/origin/main") == origin_main
    if how == "set-url-and-back":
        repo.run("remote", "set-url", "origin", url)
    assert_refused_and_kept(repo.run("merge", "--ff-only", repo.rev("feat"), check=False), repo, bare, before)


REMOTE_COMMANDS = [
    ("git remote add upstream /elsewhere.git", "allow", ""),
    ("git remote -v", "allow", ""),
    ("git remote", "allow", ""),
    ("git remote show origin", "allow", ""),
    ("git remote prune origin", "allow", ""),
    ("git remote update", "allow", ""),
    ("git remote set-head origin -a", "allow", ""),
    ("git remote get-url origin", "allow", ""),
    ("git remote set-branches --add origin feat", "allow", ""),
    ("git remote set-url upstream /elsewhere.git", "allow", ""),  # not a remote main follows
    ("git remote set-url origin /tmp/x", "block", "remote-config"),
    ("git remote set-url --push origin /tmp/x", "block", "push-guard"),  # any remote: pushurl escapes the guard
    ("git remote set-url --add origin /tmp/x", "block", "remote-config"),
    ("git remote rename origin old", "block", "remote-config"),
    ("git remote rename upstream origin", "block", "remote-config"),
    ("git remote remove origin", "block", "remote-config"),
    ("git remote rm origin", "block", "remote-config"),
    ("git -C sub remote set-url origin /tmp/x", "block", "remote-config"),
    ("sh -c 'git remote remove origin'", "block", "remote-config"),
    ("git remote set-url $R /tmp/x", "block", "unanalysable"),
    ("git remote $SUB origin", "block", "unanalysable"),
]


def test_the_analyser_on_git_remote(guarded, check):
    repo, _ = guarded
    os.makedirs(os.path.join(repo.path, "sub"))
    got = [(command, *check(repo, command)) for command, _, _ in REMOTE_COMMANDS]
    assert got == REMOTE_COMMANDS
    from agentguard.hooks.analyser.check import analyse
    reason = analyse("git remote set-url origin /tmp/x", None, repo.path).reason()
    assert "ask the user" in reason and "agentguard install" in reason


def test_follows_remote(guarded, monkeypatch):
    repo, _ = guarded
    from agentguard.hooks.analyser.repoview import RepoView, follows_remote
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    repo.run("remote", "add", "upstream", "/elsewhere.git")
    view = RepoView.at(repo.path)
    assert follows_remote(view, "origin") and not follows_remote(view, "upstream")
    assert not follows_remote(view, "nothing")


# -- ordinary work keeps working -------------------------------------------------------------------
def test_sync_from_origin_still_works(guarded, tmp_path, env):
    """(tests/test_keep_working.py syncs main every other way too)"""
    repo, bare = guarded
    new = upstream_advance(bare, env, tmp_path)
    succeeded_unrefused(repo.run("fetch", "-q", "origin"))
    succeeded_unrefused(repo.run("merge", "-q", "--ff-only", "origin/main"))
    assert repo.rev("main") == new


def test_a_new_remote_is_followed_after_reinstall(guarded, tmp_path, env):
    repo, bare = guarded
    up = str(tmp_path / "upstream.git")
    subprocess.run(["git", "clone", "-q", "--bare", bare.path, up], env=env, check=True)
    other = tmp_path / "up-clone"
    subprocess.run(["git", "clone", "-q", up, str(other)], env=env, check=True)
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "upstream work"], cwd=str(other), env=env,
                   check=True)
    subprocess.run(["git", "push", "-q", "origin", "main"], cwd=str(other), env=env, check=True)
    succeeded_unrefused(repo.run("remote", "add", "upstream", up))
    succeeded_unrefused(repo.run("fetch", "-q", "upstream"))
    before = state(repo, bare)
    assert_refused_and_kept(repo.run("merge", "--ff-only", "upstream/main", check=False), repo, bare, before)
    checks = doctor_checks(repo)
    assert checks["policy.remotes"]["status"] == "warn" and "upstream" in checks["policy.remotes"]["summary"]
    proc = repo.agentguard("install")  # the user records the new remote
    assert "remote 'upstream' (%s) was added" % up in proc.stderr
    succeeded_unrefused(repo.run("merge", "-q", "--ff-only", "upstream/main"))
    assert repo.rev("main") == repo.rev("upstream/main")
    checks = doctor_checks(repo)
    assert checks["policy.remotes"]["status"] == "pass"


def test_reinstall_after_a_url_change_is_reported_and_followed(guarded, tmp_path, env):
    repo, bare = guarded
    mirror = str(tmp_path / "mirror.git")
    subprocess.run(["git", "clone", "-q", "--bare", bare.path, mirror], env=env, check=True)
    repo.run("remote", "set-url", "origin", mirror)
    checks, proc = doctor_report(repo)
    assert proc.returncode == 1 and checks["policy.remotes"]["status"] == "fail"
    assert "fetches from %s, not from %s" % (mirror, bare.path) in checks["policy.remotes"]["summary"]
    assert "agentguard install" in checks["policy.remotes"]["fix"]
    dry = repo.agentguard("install", "--dry-run")
    assert "fetches from %s" % mirror in dry.stderr and "policy.json" in dry.stdout
    proc = repo.agentguard("install")
    assert "fetches from %s, not from %s" % (mirror, bare.path) in proc.stderr
    policy = json.load(open(os.path.join(repo.path, ".git", "agentguard", "policy.json")))
    assert policy["remotes"] == {"origin": mirror}
    new = upstream_advance(Git(mirror, env), env, tmp_path)
    succeeded_unrefused(repo.run("fetch", "-q", "origin"))
    succeeded_unrefused(repo.run("merge", "-q", "--ff-only", "origin/main"))
    assert repo.rev("main") == new
    assert doctor_report(repo)[1].returncode == 0


def test_a_snapshot_without_remotes_keeps_the_old_rule(guarded, tmp_path, env):
    repo, bare = guarded
    home = os.path.join(repo.path, ".git", "agentguard")
    for name, key in (("policy.json", None), ("manifest.json", "policy")):
        with open(os.path.join(home, name)) as fh:
            data = json.load(fh)
        (data[key] if key else data).pop("remotes")
        with open(os.path.join(home, name), "w") as fh:
            json.dump(data, fh)
    checks, proc = doctor_report(repo)
    assert proc.returncode == 0 and checks["policy.remotes"]["status"] == "warn"
    assert checks["policy.remotes"]["fix"].startswith("agentguard install")
    new = upstream_advance(bare, env, tmp_path)
    succeeded_unrefused(repo.run("pull", "-q", "--ff-only"))
    assert repo.rev("main") == new
    proc = repo.agentguard("install")
    assert "now follow only the remotes recorded now (origin)" in proc.stderr
    assert doctor_checks(repo)["policy.remotes"]["status"] == "pass"


# -- the doctor ------------------------------------------------------------------------------------
def test_doctor_on_a_healthy_repository(guarded):
    repo, _ = guarded
    checks, proc = doctor_report(repo)
    assert proc.returncode == 0
    assert checks["policy.remotes"]["status"] == "pass" and "origin" in checks["policy.remotes"]["summary"]
    assert checks["branches.tracking"]["status"] == "pass"


def test_doctor_fails_on_a_forged_tracking_ref(guarded):
    repo, bare = guarded
    origin_main = repo.rev("refs/remotes/origin/main")
    repo.run("-c", "core.hooksPath=/dev/null", "update-ref", "refs/remotes/origin/main", "feat")  # a hole
    before = state(repo, bare)
    checks, proc = doctor_report(repo)
    assert proc.returncode == 1 and checks["branches.tracking"]["status"] == "fail", checks["branches.tracking"]
    assert repo.rev("feat") in checks["branches.tracking"]["summary"]
    fix = checks["branches.tracking"]["fix"]
    assert fix.startswith("git fetch origin '+refs/heads/main:refs/remotes/origin/main'")
    assert state(repo, bare) == before, "the doctor changes nothing"
    repo.sh(fix)  # the fix works with the guard in place
    assert repo.rev("refs/remotes/origin/main") == origin_main
    checks, proc = doctor_report(repo)
    assert proc.returncode == 0 and checks["branches.tracking"]["status"] == "pass"


def test_doctor_on_a_tracking_ref_the_remote_does_not_have(guarded, tmp_path, env):
    repo, bare = guarded
    new = upstream_advance(bare, env, tmp_path)  # not fetched: the doctor cannot judge, and says so
    repo.run("-c", "core.hooksPath=/dev/null", "update-ref", "refs/remotes/origin/main", "feat")
    checks = doctor_checks(repo)
    assert checks["branches.tracking"]["status"] == "warn" and new in checks["branches.tracking"]["summary"]
    repo.sh(checks["branches.tracking"]["fix"].split("#")[0])
    assert repo.rev("refs/remotes/origin/main") == new
    repo.run("config", "remote.origin.url", str(tmp_path / "gone.git"))
    repo.agentguard("install")  # recorded as it is now: an unreachable remote is a warning, not a failure
    checks = doctor_checks(repo)
    assert checks["branches.tracking"]["status"] == "warn" and "could not ask origin" in \
        checks["branches.tracking"]["summary"]
    repo.run("checkout", "-q", "feat")
    assert refused(repo.run("branch", "-f", "main", "feat", check=False))


# -- what stays open (SECURITY.md) -----------------------------------------------------------------
def test_an_agent_cannot_reinstall_to_record_its_remote(guarded, tmp_path, check):
    """Recording the remotes again is the user's decision: the analyser blocks `agentguard install` when a
    remote changed since the last install, or when the same command line changes one first."""
    repo, bare = guarded
    forged = forged_remote(repo, tmp_path)
    assert check(repo, "git remote add evil %s && agentguard install" % forged)[0] == "block"
    repo.run("remote", "add", "evil", forged)
    repo.run("fetch", "-q", "evil")
    assert check(repo, "agentguard install")[0] == "block"
    assert check(repo, "agentguard install --dry-run") == ("allow", "")
    main = repo.rev("main")
    assert refused(repo.run("merge", "-q", "--ff-only", "evil/main", check=False))
    assert repo.rev("main") == main and bare.rev("main") == main
