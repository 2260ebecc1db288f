"""One install or uninstall at a time per repository: the loser waits briefly or exits with a clear
message, and racing installs and uninstalls never leave a half-chained hook."""
import fcntl
import os
import subprocess
import time

import pytest

from helpers import AGENTGUARD
from helpers import USER_HOOK, snapshot

LOCK_MESSAGE = "another agentguard install or uninstall is running"


def user_hook_repo(make_repo):
    repo, _ = make_repo(remote=False, install=False)
    hook = os.path.join(repo.path, ".git", "hooks", "pre-commit")
    with open(hook, "wb") as fh:
        fh.write(USER_HOOK)
    os.chmod(hook, 0o755)
    return repo


def hold_lock(repo):
    home = os.path.join(repo.path, ".git", "agentguard")
    os.makedirs(home, exist_ok=True)
    fd = os.open(os.path.join(home, "lock"), os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def start(repo, *args):
    return subprocess.Popen([AGENTGUARD, *args], cwd=repo.path, env=repo.env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


@pytest.mark.slow  # waits out the 5 s lock
@pytest.mark.parametrize("command", ["install", "uninstall"])
def test_loser_gives_up_with_a_clear_message(make_repo, command):
    repo = user_hook_repo(make_repo)
    if command == "uninstall":
        repo.agentguard("install")
    fd = hold_lock(repo)
    before = snapshot(repo.path)
    try:
        began = time.monotonic()
        proc = repo.agentguard(command, check=False)
        waited = time.monotonic() - began
    finally:
        os.close(fd)
    assert proc.returncode == 1
    assert LOCK_MESSAGE in proc.stderr and "Traceback" not in proc.stderr
    assert 4 < waited < 30  # it waited (about 5 s) before giving up
    assert snapshot(repo.path) == before  # nothing changed, not even a chained copy


def test_waiter_proceeds_when_the_lock_is_released(make_repo):
    repo = user_hook_repo(make_repo)
    fd = hold_lock(repo)
    proc = start(repo, "install")
    time.sleep(1.5)
    assert proc.poll() is None, "install must wait for the lock"
    assert not os.path.exists(os.path.join(repo.path, ".git", "hooks", "pre-commit.agentguard-chained"))
    os.close(fd)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, out + err
    with open(os.path.join(repo.path, ".git", "hooks", "pre-commit.agentguard-chained"), "rb") as fh:
        assert fh.read() == USER_HOOK


OURS = (".git/hooks", ".git/agentguard", ".pi", ".hermes", ".gptme", "gptme.toml")


def install_state(repo):
    """The part of the repository install and uninstall touch (commits change the rest)."""
    return {rel: v for rel, v in snapshot(repo.path).items()
            if rel.startswith(OURS) and not rel.startswith(".git/agentguard/outcome")}  # a stat cache


def installed_or_not(repo, installed, uninstalled):
    now = install_state(repo)
    assert now in (installed, uninstalled), sorted(
        rel for rel in set(now) | set(installed) if now.get(rel) != installed.get(rel))


@pytest.mark.slow  # races installs and uninstalls for seconds
def test_racing_installs_and_uninstalls(make_repo):
    repo = user_hook_repo(make_repo)
    repo.agentguard("install")
    installed = install_state(repo)
    repo.agentguard("uninstall")
    uninstalled = install_state(repo)
    for round_ in range(6):
        commands = [["install"], ["install"]] if round_ % 2 else [["install"], ["uninstall"], ["install"]]
        procs = [start(repo, *c) for c in commands]
        for proc in procs:
            out, err = proc.communicate(timeout=120)
            assert proc.returncode == 0, out + err
        installed_or_not(repo, installed, uninstalled)
        # whatever won, the user's hook is intact and runs exactly once when git runs pre-commit
        chained = os.path.join(repo.path, ".git", "hooks", "pre-commit.agentguard-chained")
        hook = os.path.join(repo.path, ".git", "hooks", "pre-commit")
        with open(chained if os.path.exists(chained) else hook, "rb") as fh:
            assert fh.read() == USER_HOOK
        repo.run("checkout", "-q", "-B", "feat-%d" % round_)
        proc = repo.run("commit", "-q", "--allow-empty", "-m", "round %d" % round_)
        assert proc.stderr.count("user pre-commit ran") == 1, proc.stderr
        repo.run("checkout", "-q", "main")
        repo.agentguard("uninstall")
        assert install_state(repo) == uninstalled
