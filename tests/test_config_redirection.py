"""Config redirection (issue #13): every way to make git read a config file that switches its hooks off
is judged on what git itself would then do (asked with that environment and those -c options), and
what actually happens when the command runs is shown, so a block is never a guess.

Each case: the command really switches hooks off (run against the same repository with the guard
bypassed by it, it moves main); the analyser blocks it; nothing was lost."""
import json
import os
import shutil
import subprocess

import pytest

from helpers import AGENTGUARD


def _decide(repo, command, env=None):
    proc = subprocess.run([AGENTGUARD, "check", "--json", "--cwd", repo.path, command], env=env or repo.env,
                          capture_output=True, text=True, timeout=60)
    return json.loads(proc.stdout) if proc.stdout.strip() else {"decision": "error", "stderr": proc.stderr}


@pytest.fixture
def off(tmp_path):
    """A config file that switches hooks off."""
    path = tmp_path / "hooks-off.gitconfig"
    path.write_text("[core]\n\thooksPath = /dev/null\n")
    return str(path)


CASES = [
    ("git -c include.path={off} commit --allow-empty -m x", {}),
    ("GIT_CONFIG_GLOBAL={off} git commit --allow-empty -m x", {}),
    ("GIT_CONFIG_SYSTEM={off} git commit --allow-empty -m x", {"GIT_CONFIG_NOSYSTEM": None}),
    ("GIT_CONFIG_PARAMETERS=\"'include.path'='{off}'\" git commit --allow-empty -m x", {}),
    ("export GIT_CONFIG_GLOBAL={off}; git commit --allow-empty -m x", {}),
    ("env GIT_CONFIG_GLOBAL={off} git commit --allow-empty -m x", {}),
    ("HOME={home} git commit --allow-empty -m x", {}),
]


@pytest.mark.parametrize("template, env_changes", CASES, ids=[c[0][:50] for c in CASES])
def test_config_redirection_is_asked_of_git_and_blocked(guarded, off, tmp_path, template, env_changes):
    repo, bare = guarded
    home = tmp_path / "otherhome"
    home.mkdir()
    shutil.copy(off, home / ".gitconfig")
    command = template.format(off=off, home=home)
    env = dict(repo.env)
    for k, v in env_changes.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    main = repo.rev("main")
    decision = _decide(repo, command, env)
    assert decision["decision"] == "block" and decision["rule"] == "hooks-path", decision
    assert repo.rev("main") == main and bare.rev("main") == main
    # and it is no guess: run for real, the command does get past the hooks
    subprocess.run(["sh", "-c", command], cwd=repo.path, env=env, capture_output=True, timeout=60)
    assert repo.rev("main") != main, "the case no longer bypasses the hooks: drop it or fix it"


@pytest.mark.parametrize("path", ["~/.gitconfig", "~/.config/git/config"])
def test_user_config_files_are_guarded_like_dot_git_config(guarded, path):
    repo, _ = guarded
    target = os.path.expanduser(path.replace("~", repo.env["HOME"]))
    for args in (["check", "--cwd", repo.path, "echo '[core] hooksPath = /dev/null' >> %s" % path],
                 ["check", "--cwd", repo.path, "--write", target]):
        proc = subprocess.run([AGENTGUARD, *args], env=repo.env, capture_output=True, text=True, timeout=60)
        assert proc.returncode == 1 and "guard-files" in proc.stdout + proc.stderr, proc.stdout
    assert not os.path.exists(target)


def test_a_config_file_that_keeps_the_hooks_is_allowed(guarded, tmp_path):
    repo, _ = guarded
    harmless = tmp_path / "harmless.gitconfig"
    harmless.write_text("[user]\n\tname = Someone\n")
    repo.run("checkout", "-q", "feat")
    for command in ("GIT_CONFIG_GLOBAL=%s git commit --allow-empty -m x" % harmless,
                    "git -c include.path=%s commit --allow-empty -m x" % harmless):
        assert _decide(repo, command)["decision"] == "allow", command


def test_doctor_reports_an_include_in_the_repositorys_config(guarded, off):
    repo, _ = guarded
    checks = {c["id"]: c for c in json.loads(repo.agentguard("doctor", "--json", check=False).stdout)["checks"]}
    assert checks["bypass.include"]["status"] == "pass"
    repo.run("config", "--local", "include.path", off)  # written by hand, past the analyser
    checks = {c["id"]: c for c in json.loads(repo.agentguard("doctor", "--json", check=False).stdout)["checks"]}
    assert checks["bypass.include"]["status"] == "warn" and off in checks["bypass.include"]["summary"]
    assert checks["bypass.include"]["fix"].startswith("git config --local --unset-all include.path")
