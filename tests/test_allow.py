"""The break-glass (`agentguard allow BRANCH`): a person at a terminal grants ONE push or move of a
protected branch. Driven for real: the CLI on a pseudo-terminal (and without one), real pushes to a
bare remote with and without hooks, real local moves, the decision command, the after-check, the
doctor and the audit log."""
import json
import os
import subprocess

import pytest

from helpers import AGENTGUARD, agentguard, allow_on_pty, refused, state, upstream_advance

GRANTS = os.path.join(".git", "agentguard", "allow")


def grant_files(repo):
    folder = os.path.join(repo.path, GRANTS)
    if not os.path.isdir(folder):
        return []
    return sorted(n for n in os.listdir(folder) if n.endswith(".json"))


def audit_rules(repo):
    path = os.path.join(repo.path, ".git", "agentguard", "audit.jsonl")
    if not os.path.exists(path):
        return []
    return [json.loads(line)["rule"] for line in open(path)]


def granted(repo, branch="main", *more):
    rc, out = allow_on_pty(repo, branch, *more, typed=branch)
    assert rc == 0, out
    assert "granted one push or move of '%s'" % branch in out
    assert len(grant_files(repo)) == 1
    return out


# -- granting -------------------------------------------------------------------------------------

def test_no_terminal_on_stdin_is_refused_and_writes_nothing(guarded):
    repo, _ = guarded
    proc = agentguard("allow", "main", cwd=repo.path, env=repo.env, check=False, input="main\n")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "no terminal on stdin" in proc.stderr and "nothing was granted" in proc.stderr
    proc = subprocess.run([AGENTGUARD, "allow", "main"], cwd=repo.path, env=repo.env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert grant_files(repo) == []
    assert "break-glass-grant" not in audit_rules(repo)


def test_a_wrong_name_or_no_answer_grants_nothing(guarded):
    repo, _ = guarded
    rc, out = allow_on_pty(repo, "main", typed="mian")
    assert rc == 1 and "nothing was granted" in out
    rc, out = allow_on_pty(repo, "main", typed=None)
    assert rc == 1 and "nothing was granted" in out
    assert grant_files(repo) == []


def test_usage_and_unprotected_branches(guarded):
    repo, _ = guarded
    rc, out = allow_on_pty(repo, "feat")
    assert rc == 1 and "needs no grant" in out
    rc, out = allow_on_pty(repo, "main", "--minutes", "61")
    assert rc == 2, out
    rc, out = allow_on_pty(repo, "main", "--minutes", "0")
    assert rc == 2, out
    rc, out = allow_on_pty(repo, "bad..name")
    assert rc == 2, out
    assert repo.agentguard("allow", check=False).returncode == 2  # no BRANCH
    assert grant_files(repo) == []


def test_list_and_revoke(guarded):
    repo, bare = guarded
    assert "no break-glass grant" in repo.agentguard("allow", "--list").stdout
    granted(repo)
    assert "'main': one push or move" in repo.agentguard("allow", "--list").stdout
    assert "revoked" in repo.agentguard("allow", "--revoke", "main").stdout
    assert grant_files(repo) == []
    before = state(repo, bare)
    assert refused(repo.run("push", "origin", "feat:main", check=False))
    assert state(repo, bare) == before
    assert audit_rules(repo)[-3:-1] == ["break-glass-grant", "break-glass-revoke"]


# -- pushing --------------------------------------------------------------------------------------

@pytest.mark.parametrize("flags", [[], ["--no-verify"]], ids=["hooks", "no-verify"])
def test_a_grant_lets_one_push_land_then_pushes_are_refused_again(guarded, flags):
    """With hooks, pre-push leaves the push to the guard in git's transport; with --no-verify only the
    guard runs: either way exactly one layer spends the grant, and the next push is refused."""
    repo, bare = guarded
    granted(repo)
    feat = repo.rev("feat")
    proc = repo.run("push", *flags, "origin", "feat:main", check=False)
    assert proc.returncode == 0, proc.stderr
    assert bare.rev("main") == feat
    assert repo.rev("refs/remotes/origin/main") == feat
    assert grant_files(repo) == []
    assert audit_rules(repo).count("break-glass-use") == 1
    # the second push: refused, nothing moved
    repo.run("checkout", "-q", "feat")
    repo.commit("more work")
    before = state(repo, bare)
    proc = repo.run("push", *flags, "origin", "feat:main", check=False)
    assert refused(proc), proc.stderr
    assert state(repo, bare) == before


def test_the_pre_push_hook_spends_the_grant_without_the_transport_guard(make_repo):
    repo, bare = make_repo(install=False)
    repo.agentguard("install", "--no-push-guard")
    repo.run("checkout", "-q", "-b", "feat")
    repo.commit("feature work")
    granted(repo)
    assert repo.run("push", "origin", "feat:main", check=False).returncode == 0
    assert bare.rev("main") == repo.rev("feat")
    assert grant_files(repo) == []
    repo.commit("more")
    before = state(repo, bare)
    assert refused(repo.run("push", "origin", "feat:main", check=False))
    assert state(repo, bare) == before


def test_a_grant_never_deletes_the_branch_and_is_kept(guarded):
    repo, bare = guarded
    granted(repo)
    before = state(repo, bare)
    for flags in ([], ["--no-verify"]):
        assert refused(repo.run("push", *flags, "origin", ":main", check=False))
        assert state(repo, bare) == before
    assert len(grant_files(repo)) == 1  # not spent on a refused deletion


def test_a_push_of_two_protected_branches_needs_a_grant_for_each(make_repo):
    repo, bare = make_repo(install=False)
    repo.run("branch", "release")
    repo.run("push", "-q", "origin", "release")
    repo.agentguard("install", "--protect", "main", "--protect", "release")
    repo.run("checkout", "-q", "-b", "feat")
    repo.commit("feature work")
    granted(repo)
    before = (bare.rev("main"), bare.rev("release"))
    assert refused(repo.run("push", "origin", "feat:main", "feat:release", check=False))
    assert (bare.rev("main"), bare.rev("release")) == before
    assert len(grant_files(repo)) == 1  # all or none: the grant for main is still there


def test_an_expired_grant_is_refused_and_removed(guarded):
    repo, bare = guarded
    granted(repo, "main", "--minutes", "1")
    path = os.path.join(repo.path, GRANTS, grant_files(repo)[0])
    data = json.load(open(path))
    data["created"] -= 3600
    data["expires"] -= 3600
    with open(path, "w") as fh:
        json.dump(data, fh)
    before = state(repo, bare)
    assert refused(repo.run("push", "origin", "feat:main", check=False))
    assert state(repo, bare) == before
    assert grant_files(repo) == []
    assert "break-glass-expired" in audit_rules(repo)


def test_a_grant_longer_than_an_hour_is_not_honoured(guarded):
    repo, bare = guarded
    granted(repo)
    path = os.path.join(repo.path, GRANTS, grant_files(repo)[0])
    data = json.load(open(path))
    data["expires"] += 24 * 3600
    with open(path, "w") as fh:
        json.dump(data, fh)
    before = state(repo, bare)
    assert refused(repo.run("push", "--no-verify", "origin", "feat:main", check=False))
    assert state(repo, bare) == before


# -- local moves ----------------------------------------------------------------------------------

def test_a_grant_lets_one_local_move_through(guarded):
    repo, bare = guarded
    feat = repo.rev("feat")
    granted(repo)
    proc = repo.run("merge", "--ff-only", "feat", check=False)
    assert proc.returncode == 0, proc.stderr
    assert repo.rev("main") == feat
    assert grant_files(repo) == []
    # the next move is refused, nothing lost
    repo.run("checkout", "-q", "feat")
    repo.commit("more")
    more = repo.rev("HEAD")
    repo.run("checkout", "-q", "main")
    assert refused(repo.run("update-ref", "refs/heads/main", more, check=False))
    assert repo.rev("main") == feat and repo.rev("feat") == more
    # a person's move stands: the doctor does not call main ahead, the after-check keeps it
    report = json.loads(repo.agentguard("doctor", "--json", "--no-probes", check=False).stdout)
    checks = {c["id"]: c for c in report["checks"]}
    assert checks["branches.ahead"]["status"] == "pass", checks["branches.ahead"]
    agent = os.path.join(".git", "agentguard", "check")
    assert subprocess.run([agent, "--json", "ls"], cwd=repo.path, env=repo.env, capture_output=True).returncode == 0
    after = subprocess.run([agent, "--after", "--json"], cwd=repo.path, env=repo.env, capture_output=True, text=True)
    assert json.loads(after.stdout)["decision"] == "unchanged", after.stdout
    assert repo.rev("main") == feat
    assert bare.rev("main") != feat


def test_branch_force_with_a_grant(guarded):
    repo, _ = guarded
    repo.run("checkout", "-q", "feat")
    granted(repo)
    assert repo.run("branch", "-f", "main", "feat", check=False).returncode == 0
    assert repo.rev("main") == repo.rev("feat")
    assert grant_files(repo) == []


# -- agents ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("command", [
    "agentguard allow main",
    "agentguard allow --minutes 5 main",
    "%s allow main" % AGENTGUARD,
    "python3 -m agentguard.installer.cli allow main",
    "script -qc 'agentguard allow main' /dev/null",
    "bash -c 'agentguard allow main'",
    "agentguard allow --revoke main",
    "echo '{}' > .git/agentguard/allow/6d61696e.json",
    "cp /tmp/x .git/agentguard/allow/6d61696e.json",
])
def test_the_decision_command_blocks_the_break_glass(guarded, command):
    repo, _ = guarded
    proc = subprocess.run([os.path.join(".git", "agentguard", "check"), "--json", command], cwd=repo.path,
                          env=repo.env, capture_output=True, text=True)
    answer = json.loads(proc.stdout)
    assert proc.returncode == 1 and answer["decision"] == "block", answer
    assert answer["rule"] == "break-glass", answer
    assert "own terminal" in answer["reason"]


def test_a_harness_file_tool_cannot_write_a_grant(guarded):
    repo, _ = guarded
    proc = subprocess.run([os.path.join(".git", "agentguard", "check"), "--json", "--write",
                           os.path.join(GRANTS, "6d61696e.json")], cwd=repo.path, env=repo.env, capture_output=True,
                          text=True)
    assert proc.returncode == 1 and json.loads(proc.stdout)["rule"] == "break-glass", proc.stdout


def test_listing_grants_is_not_blocked(guarded):
    repo, _ = guarded
    proc = subprocess.run([os.path.join(".git", "agentguard", "check"), "--json", "agentguard allow --list"],
                          cwd=repo.path, env=repo.env, capture_output=True, text=True)
    assert json.loads(proc.stdout)["decision"] == "allow"


def _tool_call(repo, action):
    """One agent tool call as every adapter runs it: the pre-check (which records the snapshot), the
    call, the after-check. Returns the after-check's JSON answer."""
    agent = os.path.join(repo.path, ".git", "agentguard", "check")
    pre = subprocess.run([agent, "--json", "true"], cwd=repo.path, env=repo.env, capture_output=True, text=True)
    assert json.loads(pre.stdout)["decision"] == "allow"
    action()
    after = subprocess.run([agent, "--after", "--json"], cwd=repo.path, env=repo.env, capture_output=True, text=True)
    return json.loads(after.stdout)


def test_a_grant_made_during_a_tool_call_is_removed_and_reported(guarded):
    """A harness that gives the agent a terminal (Codex's write_stdin): the grant appears during the
    call; the after-check takes it away and tells the model, and the next push is refused."""
    repo, bare = guarded
    answer = _tool_call(repo, lambda: granted(repo))
    assert answer["decision"] == "repaired", answer
    assert "break-glass grant" in answer["reason"]
    assert grant_files(repo) == []
    before = state(repo, bare)
    assert refused(repo.run("push", "origin", "feat:main", check=False))
    assert state(repo, bare) == before


def test_a_grant_made_and_spent_on_a_local_move_in_one_call_is_undone(guarded):
    repo, _ = guarded
    main = repo.rev("main")

    def call():
        granted(repo)
        assert repo.run("merge", "--ff-only", "feat", check=False).returncode == 0

    answer = _tool_call(repo, call)
    assert answer["decision"] == "repaired", answer
    assert repo.rev("main") == main  # moved back, its commit kept on a rescue branch
    assert answer["rescued"] and repo.rev(answer["rescued"][0]) == repo.rev("feat")


def test_a_grant_made_and_spent_on_a_push_in_one_call_is_reported_as_not_undone(guarded):
    repo, bare = guarded

    def call():
        granted(repo)
        assert repo.run("push", "origin", "feat:main", check=False).returncode == 0

    remote = bare.rev("main")
    answer = _tool_call(repo, call)
    assert answer["decision"] == "unrepaired", answer
    assert "cannot be undone" in answer["reason"]
    # this remote is a local path: the after-check put its main back, the pushed commit kept there
    # (tests/test_local_remote.py); a remote elsewhere keeps the push, which is what the report says
    rescued = bare.run("for-each-ref", "--format=%(objectname)", "refs/agentguard/rescued/").stdout.split()
    assert bare.rev("main") == remote and repo.rev("feat") in rescued


def test_a_persons_grant_spent_by_the_agents_push_is_not_repaired(guarded):
    repo, bare = guarded
    granted(repo)  # the person, between tool calls
    answer = _tool_call(repo, lambda: repo.run("push", "origin", "feat:main"))
    assert answer["decision"] == "unchanged", answer
    assert bare.rev("main") == repo.rev("feat")
    assert grant_files(repo) == []


def test_a_persons_grant_spent_by_the_agents_local_move_stands(guarded):
    repo, _ = guarded
    granted(repo)
    answer = _tool_call(repo, lambda: repo.run("merge", "--ff-only", "feat"))
    assert answer["decision"] == "unchanged", answer
    assert repo.rev("main") == repo.rev("feat")
    assert _tool_call(repo, lambda: None)["decision"] == "unchanged"  # and stays so at the next call
    assert repo.rev("main") == repo.rev("feat")


# -- doctor and audit -----------------------------------------------------------------------------

def test_the_doctor_lists_an_active_grant_and_the_audit_log_records_each_step(guarded):
    repo, _ = guarded
    granted(repo, "main", "--minutes", "5")
    report = json.loads(repo.agentguard("doctor", "--json", "--no-probes", check=False).stdout)
    checks = {c["id"]: c for c in report["checks"]}
    assert checks["audit.grants"]["status"] == "pass"
    assert "'main': one push or move, 4 min" in checks["audit.grants"]["summary"]
    assert "no refusals" in checks["audit.recent"]["summary"]  # a grant is not a refusal
    repo.run("push", "origin", "feat:main")
    report = json.loads(repo.agentguard("doctor", "--json", "--no-probes", check=False).stdout)
    checks = {c["id"]: c for c in report["checks"]}
    assert "no break-glass grant is usable now; last used" in checks["audit.grants"]["summary"]
    entries = [json.loads(line) for line in open(os.path.join(repo.path, ".git", "agentguard", "audit.jsonl"))]
    assert [e["rule"] for e in entries] == ["break-glass-grant", "break-glass-use"]
    assert entries[1]["hook"] == "push-guard" and entries[1]["refs"][0]["ref"] == "refs/heads/main"


def test_the_server_side_does_not_honour_a_grant(make_repo, tmp_path):
    """A guarded server judges pushes with its own rule; a client's grant changes nothing there."""
    repo, bare = make_repo(install=False)
    repo.agentguard("install", "--server", bare.path)
    repo.agentguard("install")
    repo.run("checkout", "-q", "-b", "feat")
    repo.commit("feature work")
    granted(repo)
    before = bare.rev("main")
    proc = repo.run("push", "origin", "feat:main", check=False)
    assert proc.returncode != 0 and "server-push-protected" in proc.stderr, proc.stderr
    assert bare.rev("main") == before
    assert grant_files(repo) == []  # spent by the client's guard, which let it go to the server



@pytest.mark.parametrize("guard", [True, False], ids=["transport-guard", "pre-push"])
def test_a_push_the_remote_then_rejects_has_spent_the_grant(make_repo, tmp_path, guard):
    """SECURITY.md: the grant is spent by the first push that reaches the guard, even when git then
    rejects it (here: the remote's main moved on, "fetch first"); the remote keeps its main. The push
    guard judges on git's own connection (#30), and git rejects this one before it sends a command:
    the guard never sees it, and the grant stands for the push that does reach it."""
    repo, bare = make_repo(install=False)
    repo.agentguard("install", *([] if guard else ["--no-push-guard"]))
    repo.run("checkout", "-q", "-b", "feat")
    repo.commit("feature work")
    upstream = upstream_advance(bare, repo.env, tmp_path)
    granted(repo)
    proc = repo.run("push", "origin", "feat:main", check=False)
    assert proc.returncode != 0 and "rejected" in proc.stderr, proc.stderr
    assert bare.rev("main") == upstream
    if guard:
        assert grant_files(repo) != [] and "break-glass-use" not in audit_rules(repo)
        proc = repo.run("push", "origin", "+feat:main", check=False)  # one that reaches the guard
        assert proc.returncode == 0, proc.stderr
        assert bare.rev("main") == repo.rev("feat")
    assert grant_files(repo) == []
    assert "break-glass-use" in audit_rules(repo)


def _spend(ag_home):
    from agentguard.hooks import grant
    return grant.consume(ag_home, [("main", "refs/heads/main", "", "")], "pre-push")


def test_of_many_users_at_once_exactly_one_spends_the_grant(guarded):
    import multiprocessing
    repo, _ = guarded
    granted(repo)
    home = os.path.join(repo.path, ".git", "agentguard")
    with multiprocessing.get_context("spawn").Pool(8) as pool:
        won = pool.map(_spend, [home] * 32)
    assert won.count(True) == 1
    assert grant_files(repo) == []
    assert not [n for n in os.listdir(os.path.join(repo.path, GRANTS)) if n.startswith(".claim")]
