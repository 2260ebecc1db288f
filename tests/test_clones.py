"""A repository the command line creates (`git clone`, `git init`) or enters (`cd`, `pushd`, `git -C`,
`--git-dir`, `GIT_DIR=`) with no agentguard installation of its own is judged with the policy of the
guarded repository the check belongs to: the one the command starts in, or, for a later tool call
whose cwd is elsewhere, the installation whose decision command (`.git/agentguard/check`) runs.
A repository with its own installation keeps its own policy.

Every case is asked of the real decision command of a guarded repository (protecting `main` and
`release/*`), as a pair: the command that must be blocked, and the same work done the allowed way.
Then, for real: what is allowed runs and the remote's protected branches do not move; the blocked
command, run without the guard against a copy of the remote, would have moved them."""
import json
import os
import shutil
import subprocess

import pytest

from helpers import AGENTGUARD, Git, module_world


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    root, env, work, remote = module_world(tmp_path_factory, "clones")
    work.run("push", "-q", "-u", "origin", "main", "main:release/1")
    work.run("remote", "set-head", "origin", "main")
    work.agentguard("install", "--protect", "main", "--protect", "release/*", "--harness", "pi")
    # an existing clone that has no installation, on main
    subprocess.run(["git", "clone", "-q", remote, str(root / "plain")], env=env, check=True)
    # a repository with an installation of its own, protecting only `trunk`, checked out on it
    subprocess.run(["git", "init", "-q", "-b", "trunk", str(root / "own")], env=env, check=True)
    own = Git(str(root / "own"), env)
    own.commit("own")
    own.run("branch", "main")
    own.agentguard("install", "--protect", "trunk", "--harness", "pi")
    return {"root": str(root), "remote": remote, "work": work, "env": env}


def check(world, command, cwd=None):
    """(decision, rule) of the guarded repository's decision command for ``command`` run in ``cwd``."""
    launcher = os.path.join(world["work"].path, ".git", "agentguard", "check")
    proc = subprocess.run([launcher, "--json", "--cwd", cwd or world["work"].path, "--", command],
                          env=world["env"], capture_output=True, text=True, timeout=60)
    answer = json.loads(proc.stdout)
    assert proc.returncode == (0 if answer["decision"] == "allow" else 1), proc.stderr
    return answer["decision"], answer["rule"]


def fill(text, world, tag):
    return text.replace("{R}", world["remote"]).replace("{T}", world["root"]).replace("{N}", tag)


# (command that must be blocked, its rule, the same work the allowed way). {R}: the remote, {T}: a
# scratch root, {N}: a name unique to the case. Nothing here runs: only the decision is asked.
CASES = [
    # git clone, every spelling, then the work in the new clone
    ("git clone {R} {T}/{N} && cd {T}/{N} && git commit -qam w", "commit-on-protected",
     "git clone {R} {T}/{N} && cd {T}/{N} && git switch -c f && git commit -qam w"),
    ("git clone {R} {T}/{N} && cd {T}/{N} && git commit -qam w && git push origin HEAD:main", "commit-on-protected",
     "git clone {R} {T}/{N} && cd {T}/{N} && git switch -c f && git commit -qam w && git push origin HEAD:f"),
    ("git clone -q {R} {T}/{N} && cd {T}/{N} && git push origin HEAD:main", "push-protected",
     "git clone -q {R} {T}/{N} && cd {T}/{N} && git push origin HEAD:topic"),
    ("git clone -- {R} {T}/{N} && git -C {T}/{N} push origin HEAD:release/7", "push-protected",
     "git clone -- {R} {T}/{N} && git -C {T}/{N} push origin HEAD:releases-7"),
    ("git -C {T} clone {R} {N} && cd {T}/{N} && git push origin HEAD", "push-protected",
     "git -C {T} clone {R} {N} && cd {T}/{N} && git switch -c {N} && git push -u origin HEAD"),
    ("mkdir {T}/{N} && cd {T}/{N} && git clone {R} && cd remote && git push", "push-protected",
     "mkdir {T}/{N} && cd {T}/{N} && git clone {R} && cd remote && git switch -c t && git push -u origin t"),
    ("git clone file://{R} {T}/{N} && cd {T}/{N} && git push origin main", "push-protected",
     "git clone file://{R} {T}/{N} && cd {T}/{N} && git push origin main:topic"),
    ("git clone -b release/1 {R} {T}/{N} && cd {T}/{N} && git commit --allow-empty -m x", "commit-on-protected",
     "git clone -b release/1 {R} {T}/{N} && cd {T}/{N} && git switch -c x && git commit --allow-empty -m x"),
    ("git clone --origin up {R} {T}/{N} && cd {T}/{N} && git push up HEAD:main", "push-protected",
     "git clone --origin up {R} {T}/{N} && cd {T}/{N} && git push up HEAD:topic"),
    ("git clone {R} {T}/{N} && cd {T}/{N} && git reset --hard HEAD~1", "protected-move",
     "git clone {R} {T}/{N} && cd {T}/{N} && git reset --hard origin/main"),
    ("git clone {R} {T}/{N} && cd {T}/{N} && git push --no-verify origin HEAD:topic", "no-verify",
     "git clone {R} {T}/{N} && cd {T}/{N} && git push origin HEAD:topic"),
    ("git clone -c alias.ci='commit --no-verify' {R} {T}/{N}", "no-verify",
     "git clone -c alias.st=status {R} {T}/{N}"),
    ("git clone --bare {R} {T}/{N}.git && git --git-dir={T}/{N}.git push origin main:release/2", "push-protected",
     "git clone --bare {R} {T}/{N}.git && git --git-dir={T}/{N}.git push origin main:topic"),
    ("mkdir {T}/{N} && cd {T}/{N} && git clone --bare {R} && cd remote.git && git update-ref refs/heads/main HEAD",
     "protected-move",
     "mkdir {T}/{N} && cd {T}/{N} && git clone --bare {R} && cd remote.git && git update-ref refs/heads/topic HEAD"),
    ("git clone --mirror {R} {T}/{N}.git && cd {T}/{N}.git && git push", "push-mirror",
     "git clone --mirror {R} {T}/{N}.git && cd {T}/{N}.git && git fetch"),
    ("sh -c 'git clone {R} {T}/{N} && cd {T}/{N} && git push origin HEAD:main'", "push-protected",
     "sh -c 'git clone {R} {T}/{N} && cd {T}/{N} && git push origin HEAD:topic'"),
    ("git clone {R} {T}/{N} && GIT_DIR={T}/{N}/.git git push origin main:main", "push-protected",
     "git clone {R} {T}/{N} && GIT_DIR={T}/{N}/.git git push origin main:topic"),
    ("git clone {R} {T}/{N} && git --git-dir={T}/{N}/.git --work-tree={T}/{N} commit --allow-empty -m x",
     "commit-on-protected",
     "git clone {R} {T}/{N} && git --git-dir={T}/{N}/.git --work-tree={T}/{N} branch topic"),
    # git init
    ("git init {T}/{N} && cd {T}/{N} && git commit --allow-empty -m a && git push {R} main", "push-protected",
     "git init {T}/{N} && cd {T}/{N} && git commit --allow-empty -m a && git push {R} main:topic"),
    ("git init -b release/9 {T}/{N} && cd {T}/{N} && git commit --allow-empty -m a && git push {R} HEAD",
     "push-protected",
     "git init -b topic {T}/{N} && cd {T}/{N} && git commit --allow-empty -m a && git push {R} HEAD"),
    ("git init --bare {T}/{N}.git && git -C {T}/{N}.git fetch {R} main:t && git -C {T}/{N}.git push {R} t:main",
     "push-protected",
     "git init --bare {T}/{N}.git && git -C {T}/{N}.git fetch {R} main:t && git -C {T}/{N}.git push {R} t:t2"),
    ("git init --bare {T}/{N}.git && git -C {T}/{N}.git fetch {R} main:main", "protected-move",
     "git init --bare {T}/{N}.git && git -C {T}/{N}.git fetch {R} main:t"),
    # entering an existing clone with no installation
    ("cd {T}/plain && git push origin HEAD:release/3", "push-protected", "cd {T}/plain && git push origin HEAD:r3"),
    ("pushd {T}/plain && git commit --allow-empty -m x", "commit-on-protected",
     "pushd {T}/plain && git switch -c x && git commit --allow-empty -m x"),
    ("pushd {T}/plain && popd && cd {T}/plain && git commit --allow-empty -m x", "commit-on-protected",
     "pushd {T}/plain && popd && git status"),
    ("git -C {T}/plain merge origin/release/1", "merge-on-protected", "git -C {T}/plain merge origin/main"),
    ("export GIT_DIR={T}/plain/.git && git push origin HEAD:main", "push-protected",
     "export GIT_DIR={T}/plain/.git && git push origin HEAD:topic"),
    ("env GIT_DIR={T}/plain/.git git push origin main:release/4", "push-protected",
     "env GIT_DIR={T}/plain/.git git push origin main:topic"),
    ("git --git-dir={T}/plain/.git branch -f main HEAD~1", "protected-move",
     "git --git-dir={T}/plain/.git branch -f topic HEAD~1"),
    ("GIT_DIR=$D git push origin HEAD:topic", "unanalysable", "GIT_DIR=$D git log -1"),
    # a repository with its own installation keeps its own policy (`trunk` only)
    ("cd {T}/own && git commit --allow-empty -m x", "commit-on-protected",
     "cd {T}/own && git switch main && git commit --allow-empty -m x"),
]


@pytest.mark.parametrize("blocked,rule,allowed", CASES, ids=[str(i) for i in range(len(CASES))])
def test_a_repository_the_command_makes_or_enters_is_judged_with_the_guarded_policy(world, blocked, rule,
                                                                                     allowed):
    tag = "c%d" % CASES.index((blocked, rule, allowed))
    remote = Git(world["remote"], world["env"])
    before = {b: remote.rev(b) for b in ("main", "release/1")}
    assert check(world, fill(blocked, world, tag)) == ("block", rule)
    assert check(world, fill(allowed, world, tag)) == ("allow", "")
    # asking changed nothing: no directory made, the remote's branches where they were
    assert not os.path.exists(os.path.join(world["root"], tag))
    assert {b: remote.rev(b) for b in before} == before


@pytest.mark.parametrize("command,expected", [
    ("git push origin HEAD:release/3", ("block", "push-protected")),
    ("git commit --allow-empty -m x", ("block", "commit-on-protected")),
    ("git push --no-verify origin HEAD:topic", ("block", "no-verify")),
    ("git push origin HEAD:topic", ("allow", "")),
    ("git switch -c x && git commit --allow-empty -m x", ("allow", "")),
])
def test_a_later_tool_call_in_the_clone_is_judged_with_the_launchers_policy(world, command, expected):
    """The second way out: a harness whose shell moved to the clone passes that cwd to the guarded
    repository's decision command; `release/*` is this installation's pattern, not a default."""
    assert check(world, command, cwd=os.path.join(world["root"], "plain")) == expected


def test_without_the_launcher_the_default_policy_judges(world):
    """The control for the test above: the same question asked of the installed package (no
    installation runs it) knows only the default branches, so `release/3` passes there."""
    proc = subprocess.run([AGENTGUARD, "check", "--json",
                           "--cwd", os.path.join(world["root"], "plain"), "git push origin HEAD:release/3"],
                          env=world["env"], capture_output=True, text=True, timeout=60)
    assert json.loads(proc.stdout)["decision"] == "allow"


def test_what_is_allowed_runs_and_no_protected_branch_moves(world):
    remote = Git(world["remote"], world["env"])
    before = {b: remote.rev(b) for b in ("main", "release/1")}
    root = world["root"]
    command = ("git clone -q {R} {T}/e1 && cd {T}/e1 && git switch -q -c e1 && git commit -q --allow-empty -m w && "
               "git push -q origin HEAD:topic-e1 && git init -q {T}/e2 && cd {T}/e2 && "
               "git commit -q --allow-empty -m a && git push -q {R} HEAD:topic-e2")
    command = fill(command, world, "e")
    assert check(world, command) == ("allow", "")
    subprocess.run(["sh", "-c", command], cwd=world["work"].path, env=world["env"], check=True, timeout=120)
    assert remote.rev("topic-e1") == Git(os.path.join(root, "e1"), world["env"]).rev("HEAD")
    assert remote.rev("topic-e2") == Git(os.path.join(root, "e2"), world["env"]).rev("HEAD")
    assert {b: remote.rev(b) for b in before} == before
    assert world["work"].rev("main") == before["main"]


def test_the_blocked_command_would_have_landed(world):
    """The control: the command the analyser blocks, run without asking it against a copy of the
    remote, moves that copy's main: the guard is what stands in the way."""
    copy = os.path.join(world["root"], "copy.git")
    shutil.copytree(world["remote"], copy)
    command = ("git clone -q {R} {T}/l1 && cd {T}/l1 && git commit -q --allow-empty -m w && "
               "git push -q origin HEAD:main").replace("{R}", copy).replace("{T}", world["root"])
    assert check(world, command) == ("block", "commit-on-protected")
    before = Git(copy, world["env"]).rev("main")
    subprocess.run(["sh", "-c", command], cwd=world["work"].path, env=world["env"], check=True, timeout=120)
    assert Git(copy, world["env"]).rev("main") != before
