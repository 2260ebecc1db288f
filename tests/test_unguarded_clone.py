"""A team commits agentguard's adapter files; a fresh clone has them but agentguard was never
installed there (no `<git common dir>/agentguard/manifest.json`). Each adapter then blocks every tool
call that runs a command or writes a file, with one message that says how to install it (and lets
read-only tools through); after a call it says nothing (there is nothing to undo). A clone where
agentguard is installed but broken keeps the `agentguard doctor` message.

The real harnesses (Claude Code, OpenCode, pi) run in the fresh clone with a scripted model: the
model reads the message, the command did not run (its marker file is absent), nothing is lost.
Codex, Gemini CLI and Copilot CLI at the level of the hook command their settings run, Hermes and
gptme at the level of their plugin's client."""
import importlib.util
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "harness"))
from helpers import PI_PACKAGE, Git, need_path  # noqa: E402
from test_adapters import NODE  # noqa: E402
from test_harness_e2e import run_harness  # noqa: E402

ADAPTER_PATHS = [".claude", ".codex", ".gemini", ".github", ".opencode/plugins", ".pi", ".hermes", ".gptme",
                 "gptme.toml"]
NOT_INSTALLED = "[rule: not-installed]"


@pytest.fixture
def fresh_clone(guarded, tmp_path):
    """(the fresh clone, the guarded repository, its remote): the adapter files of every harness are
    committed on branch `adapters` of the guarded repository and pushed; the clone checks it out."""
    repo, bare = guarded
    repo.agentguard("install", "--harness", "all", "--shared")  # the team commits them
    repo.run("checkout", "-q", "-b", "adapters")
    repo.run("add", "-f", *[p for p in ADAPTER_PATHS if os.path.exists(os.path.join(repo.path, p))])
    repo.run("commit", "-q", "-m", "the team's adapters")
    repo.run("push", "-q", "origin", "adapters")
    repo.run("checkout", "-q", "main")
    path = str(tmp_path / "fresh")
    subprocess.run(["git", "clone", "-q", "-b", "main", bare.path, path], env=repo.env, check=True)
    clone = Git(path, repo.env)
    clone.run("checkout", "-q", "adapters")
    clone.run("checkout", "-q", "main")  # a team's main holding the adapters: the push would be to main
    clone.run("merge", "-q", "--ff-only", "origin/adapters")
    assert os.path.exists(os.path.join(path, ".claude", "settings.json"))
    assert not os.path.exists(os.path.join(path, ".git", "agentguard"))
    return clone, repo, bare


def snapshot(clone, bare):
    return {"clone": clone.rev("main"), "remote": bare.rev("main"), "adapters": bare.rev("adapters")}


def hook(clone, harness, payload, event=None):
    """The hook command the harness's settings run, given ``payload`` in the clone."""
    from agentguard.installer.harness.settingsfile import hook_command
    return subprocess.run(["sh", "-c", hook_command(harness, event)], cwd=clone.path, env=clone.env,
                          input=json.dumps(payload), capture_output=True, text=True, timeout=60)


def test_claude_code_in_a_fresh_clone_tells_the_model_to_install(fresh_clone):
    clone, _, bare = fresh_clone
    before = snapshot(clone, bare)
    readme = os.path.join(clone.path, "initial.txt")
    calls = [("shell", "touch MARKER && git push origin HEAD:main"),
             ("write", os.path.join(clone.path, "notes.txt"), "x\n"),
             ("tool", "Read", {"file_path": readme})]
    result = run_harness("claude", clone, calls)
    assert len(result.tool_results) == 3, (result.tool_results, result.stderr[-2000:])
    for said in result.tool_results[:2]:
        assert NOT_INSTALLED in said and "run agentguard install here" in said, said
        assert "sh -c" not in said, said  # the message alone, not the hook command (JSON deny)
    assert "initial" in result.tool_results[2]  # a read-only tool still works
    assert not os.path.exists(os.path.join(clone.path, "MARKER"))
    assert not os.path.exists(os.path.join(clone.path, "notes.txt"))
    assert snapshot(clone, bare) == before


def test_opencode_in_a_fresh_clone_tells_the_model_to_install(fresh_clone):
    clone, _, bare = fresh_clone
    before = snapshot(clone, bare)
    result = run_harness("opencode", clone, [("shell", "touch MARKER && git push origin HEAD:main")])
    assert result.tool_results and NOT_INSTALLED in result.tool_results[0], (result.tool_results,
                                                                             result.stderr[-2000:])
    assert "the opencode settings in this repository call agentguard" in result.tool_results[0]
    assert not os.path.exists(os.path.join(clone.path, "MARKER"))
    assert snapshot(clone, bare) == before


def test_pi_in_a_fresh_clone_tells_the_model_to_install(fresh_clone):
    clone, _, bare = fresh_clone
    need_path(PI_PACKAGE)
    before = snapshot(clone, bare)
    proc = subprocess.run(["node", os.path.join(NODE, "pi_session.mjs"), clone.path, "touch MARKER", "ls"],
                          cwd=clone.path, env=clone.env, capture_output=True, text=True, timeout=240)
    out = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    assert len(out) == 2, proc.stdout[-2000:] + proc.stderr[-2000:]
    for said in out:
        assert said["isError"] and NOT_INSTALLED in said["text"] and "the pi settings" in said["text"], said
        assert "could not check" not in said["text"], said  # no after-check complaint on top
    assert not os.path.exists(os.path.join(clone.path, "MARKER"))
    assert snapshot(clone, bare) == before


@pytest.mark.parametrize("harness,payload,status,json_deny", [
    ("codex", {"tool_name": "Bash", "tool_input": {"command": "touch MARKER"}}, 2, False),
    ("gemini", {"tool_name": "run_shell_command", "tool_input": {"command": "touch MARKER"}}, 2, True),
    ("copilot", {"toolName": "bash", "toolArgs": {"command": "touch MARKER"}}, 2, True),
    ("claude", {"tool_name": "Write", "tool_input": {"file_path": "x.txt", "content": "x"}}, 0, True),
])
def test_the_settings_hooks_block_with_the_install_message(fresh_clone, harness, payload, status, json_deny):
    clone, _, _ = fresh_clone
    proc = hook(clone, harness, dict(payload, cwd=clone.path))
    assert proc.returncode == status, proc.stderr
    said = proc.stdout if json_deny else proc.stderr
    assert NOT_INSTALLED in said and "the %s settings" % harness in said, (proc.stdout, proc.stderr)
    if json_deny:
        json.loads(proc.stdout)
    # read-only tools pass, and after a call there is nothing to say
    reads = {"codex": None, "gemini": "read_file", "copilot": "view", "claude": "Read"}[harness]
    if reads:
        key = "toolName" if harness == "copilot" else "tool_name"
        assert hook(clone, harness, {key: reads, "cwd": clone.path}).returncode == 0
    after = hook(clone, harness, dict(payload, cwd=clone.path), event="PostToolUse")
    assert (after.returncode, after.stdout, after.stderr) == (0, "", "")


def test_installed_but_broken_keeps_the_doctor_message(fresh_clone):
    """The distinction: where agentguard was installed (its manifest exists) and the runtime is gone,
    the message is the doctor's, and only what involves git is blocked."""
    _, repo, _ = fresh_clone
    os.unlink(os.path.join(repo.path, ".git", "agentguard", "check"))
    proc = hook(repo, "codex", {"tool_name": "Bash", "tool_input": {"command": "git push origin feat:main"},
                                "cwd": repo.path})
    assert proc.returncode == 2 and "[rule: guard-error]" in proc.stderr and NOT_INSTALLED not in proc.stderr
    assert hook(repo, "codex", {"tool_name": "Bash", "tool_input": {"command": "ls"}}).returncode == 0


def _client(clone, folder):
    path = os.path.join(clone.path, folder, "plugins", "agentguard", "client.py")
    spec = importlib.util.spec_from_file_location("agentguard_client_" + folder.strip("."), path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("folder,name", [(".hermes", "hermes"), (".gptme", "gptme")])
def test_the_python_plugins_block_with_the_install_message(fresh_clone, monkeypatch, folder, name):
    clone, _, _ = fresh_clone
    monkeypatch.setattr(os, "environ", dict(clone.env))
    client = _client(clone, folder)
    block, said = client.decide(clone.path, command="touch MARKER")
    assert block and NOT_INSTALLED in said and "the %s settings" % name in said, said
    block, said = client.decide(clone.path, write="notes.txt")
    assert block and NOT_INSTALLED in said
    assert client.after(clone.path) == (False, "")


def test_gptme_completion_check_says_how_to_install(fresh_clone):
    clone, _, _ = fresh_clone
    proc = subprocess.run(["sh", os.path.join(clone.path, ".gptme", "verify-completion.sh")], cwd=clone.path,
                          env=clone.env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and NOT_INSTALLED in proc.stdout and "the gptme settings" in proc.stdout
