"""The user-files lock (``fsops.UserFilesLock``: an flock on the home folder) is held only by an install
that writes a file in the user's home (Codex's trust entries), so ``install --all`` runs the installs of
repositories that write none side by side; the ones that do, and uninstall, still wait for it."""
import fcntl
import os
import subprocess
import time

from helpers import AGENTGUARD


def hold_home(env):
    """Hold the user-files lock as another install writing the user's files would."""
    fd = os.open(env["HOME"], os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def start(repo, *args):
    return subprocess.Popen([AGENTGUARD, *args], cwd=repo.path, env=repo.env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def codex_config(env):
    path = os.path.join(env["HOME"], ".codex", "config.toml")
    return open(path).read() if os.path.exists(path) else ""


def test_an_install_writing_only_its_repository_does_not_wait_for_the_user_files_lock(make_repo, env):
    repo, _ = make_repo(install=False)
    fd = hold_home(env)
    try:
        proc = start(repo, "install", "--harness", "claude")
        out, err = proc.communicate(timeout=110)  # with the lock taken for every install: 120 s, then busy
    finally:
        os.close(fd)
    assert proc.returncode == 0, out + err
    assert repo.agentguard("doctor", check=False).returncode == 0


def test_an_install_writing_a_user_file_waits_for_the_lock_and_then_writes_it(make_repo, env):
    repo, _ = make_repo(install=False)
    fd = hold_home(env)
    proc = start(repo, "install", "--harness", "codex")
    try:
        time.sleep(2)
        assert proc.poll() is None, "an install writing ~/.codex/config.toml must wait for the lock"
        assert repo.path not in codex_config(env)
    finally:
        os.close(fd)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, out + err
    assert repo.path in codex_config(env)


def test_uninstall_takes_its_trust_entry_out_under_the_lock(make_repo, env):
    """uninstall read-modify-writes the same user file: it waits for an install that writes it."""
    repo, _ = make_repo(install=False)
    repo.agentguard("install", "--harness", "codex")
    assert repo.path in codex_config(env)
    fd = hold_home(env)
    proc = start(repo, "uninstall")
    try:
        time.sleep(2)
        assert proc.poll() is None, "uninstall must wait for the user-files lock"
        assert repo.path in codex_config(env)
    finally:
        os.close(fd)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, out + err
    assert repo.path not in codex_config(env)
