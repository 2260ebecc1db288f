"""Claude Code as it is now (2.1.332): the PowerShell tool is checked like Bash, and a hook that fails
blocks the call (``onFailure: "block"``, from 2.1.295), written only where the installed version takes it.

The real-binary tests run tests/node's claude with the scripted fake model (agent_claude); the rest
drive ``check --hook claude`` with PowerShell payloads in the shape 2.1.332 sends (the Bash payload,
tool_name "PowerShell", tool_input {command, description}), and install with a stand-in ``claude``
on PATH that prints a version."""
import json
import os
import stat
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "harness"))
from fakeserver import NODE_BIN, Result as Outcome  # noqa: E402
from helpers import AGENTGUARD, doctor_report, need  # noqa: E402

LOCAL = ".claude/settings.local.json"


def pre_entry(repo):
    with open(os.path.join(repo.path, LOCAL)) as fh:
        return json.load(fh)["hooks"]["PreToolUse"][-1]["hooks"][0]


def with_path(repo, folder):
    return dict(repo.env, PATH=folder + os.pathsep + repo.env["PATH"])


def fake_claude(tmp_path, version):
    folder = tmp_path / ("claude-" + version)
    folder.mkdir()
    script = folder / "claude"
    script.write_text("#!/bin/sh\necho '%s (Claude Code)'\n" % version)
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(folder)


def powershell(repo, command):
    payload = {"session_id": "s", "cwd": repo.path, "hook_event_name": "PreToolUse", "permission_mode": "default",
               "tool_name": "PowerShell", "tool_input": {"command": command, "description": "run a command"},
               "tool_use_id": "toolu_1"}
    return subprocess.run([AGENTGUARD, "check", "--hook", "claude"], input=json.dumps(payload), cwd=repo.path,
                          env=repo.env, capture_output=True, text=True, timeout=60)


REFUSED = [
    ("git push --no-verify origin feat:main", "no-verify"),  # read as sh, as Bash's
    ("git -c core.hooksPath=/dev/null commit -m x", "hooks-path"),
    ("g`it push origin feat:main --no-verify", "unanalysable"),  # the backtick escape: g`it is git
    ("& ('gi'+'t') push origin feat:main", "unanalysable"),  # a command name made when it runs
    ("$g = 'git'; & $g push origin feat:main", "unanalysable"),
    ("git commit -m x,--no-verify", "unanalysable"),  # a comma: two arguments to PowerShell
    ("git commit -m \"a\\\" --no-verify \"b\"", "unanalysable"),  # \ is no escape: --no-verify is an argument
    ("git commit -m 'say \"hi\" --no-verify'", "unanalysable"),  # Windows PowerShell breaks it up
    ("git push origin \u201cfeat:main\u201d", "unanalysable"),  # curly quotes are quotes to PowerShell
    ("iex ('gi' + 't push origin feat:main')", "unanalysable"),
    ("Set-Content .git/hooks/pre-push 'exit 0'", "unanalysable"),
    ("Remove-Item ('.gi'+'t/hooks/pre-push')", "unanalysable"),
    ("[Diagnostics.Process]::Start('g' + 'it', 'push origin feat:main')", "unanalysable"),
]
PASSED = ["git status", "git log --format=%h -3 | Select-Object -First 2", "cd sub; git status --short",
          "git log 2>&1 | sls main", "Get-ChildItem | ForEach-Object { $_.Name }", "Remove-Item ran.txt",
          "git commit -m 'it''s done'"]


def test_a_powershell_command_is_refused_in_claudes_terms_and_an_ordinary_one_passes(guarded):
    """On a branch (so a commit is not refused for being on main), each of REFUSED gets Claude Code's
    JSON deny with exit 0 and its rule, each of PASSED no answer at all."""
    repo, _ = guarded
    repo.agentguard("install", "--harness", "claude")
    repo.run("checkout", "-q", "feat")
    os.makedirs(os.path.join(repo.path, "sub"))
    for command, rule in REFUSED:
        proc = powershell(repo, command)
        assert proc.returncode == 0, (command, proc.stderr)
        answer = json.loads(proc.stdout)["hookSpecificOutput"]
        assert answer["permissionDecision"] == "deny" and answer["hookEventName"] == "PreToolUse"
        assert "[rule: %s]" % rule in answer["permissionDecisionReason"], (command, answer)
    for command in PASSED:
        proc = powershell(repo, command)
        assert (proc.returncode, proc.stdout) == (0, ""), (command, proc.stdout, proc.stderr)


def test_the_matchers_name_the_powershell_tool(guarded):
    repo, _ = guarded
    repo.agentguard("install", "--harness", "claude")
    with open(os.path.join(repo.path, LOCAL)) as fh:
        hooks = json.load(fh)["hooks"]
    for event in ("PreToolUse", "PostToolUse", "PostToolUseFailure"):
        assert "PowerShell" in hooks[event][-1]["matcher"].split("|"), hooks[event]


@pytest.mark.parametrize("version, written", [("2.1.197", False), ("2.1.294", False), ("2.1.295", True),
                                              ("2.1.332", True), (None, True)])
def test_on_failure_is_written_where_the_installed_version_takes_it(guarded, tmp_path, version, written):
    """``claude --version`` decides; with none on PATH it is written (2.1.197 ignores it: see the
    module docstring of installer/harness/claude.py). The doctor warns of a version that fails open."""
    repo, _ = guarded
    env = with_path(repo, fake_claude(tmp_path, version)) if version else repo.env
    repo.agentguard("install", "--harness", "claude", env=env)
    entry = pre_entry(repo)
    assert (entry.get("onFailure") == "block") is written, entry
    checks, _ = doctor_report(repo, env=env)
    assert checks["adapters.claude"]["status"] == "pass", checks["adapters.claude"]
    enabled = checks["adapters.claude.enabled"]
    assert (enabled["status"] == "warn") is (not written), enabled
    if not written:
        assert "2.1.295" in enabled["summary"], enabled
    repo.agentguard("uninstall", env=env)
    assert not os.path.exists(os.path.join(repo.path, LOCAL))


# -- the real binary ---------------------------------------------------------------------------------
def run_claude(repo, calls, **extra):
    import agent_claude
    need("the claude CLI (tests/node)", agent_claude.BINARY)
    env = {k: v for k, v in repo.env.items() if k.startswith("GIT_") or k in ("PATH", "LC_ALL")}
    env.update(extra)
    result = Outcome(agent_claude.run(repo.path, repo.env["HOME"], calls, timeout=90, extra_env=env))
    assert result.code is not None, result.stderr[-2000:]
    return result


@pytest.mark.slow
def test_a_failing_hook_blocks_the_call_and_without_on_failure_lets_it_through(guarded):
    """The hook script broken (it exits 1: a crash): with onFailure (install found claude 2.1.332 on
    PATH) Claude Code blocks every call, the push and the ordinary command alike; the control, the
    same entry without onFailure, lets the push land (no push guard in git's transport here, as in
    test_harness_e2e's control)."""
    repo, bare = guarded
    repo.agentguard("install", "--no-push-guard", "--harness", "claude", env=with_path(repo, NODE_BIN))
    assert pre_entry(repo)["onFailure"] == "block"
    with open(os.path.join(repo.path, ".git", "agentguard", "harness-hook"), "w") as fh:
        fh.write("exit 1\n")
    remote = bare.rev("main")
    result = run_claude(repo, [("shell", "git push --no-verify origin feat:main"), ("shell", "echo ok > ran.txt")])
    assert bare.rev("main") == remote and not os.path.exists(os.path.join(repo.path, "ran.txt")), result.feedback
    assert all('onFailure is "block"' in said for said in result.tool_results), result.tool_results
    path = os.path.join(repo.path, LOCAL)
    with open(path) as fh:
        data = json.load(fh)
    del data["hooks"]["PreToolUse"][-1]["hooks"][0]["onFailure"]
    with open(path, "w") as fh:
        json.dump(data, fh)
    result = run_claude(repo, [("shell", "git push --no-verify origin feat:main")])
    assert bare.rev("main") == repo.rev("feat"), result.tool_results


@pytest.mark.slow
def test_the_powershell_tool_is_checked_before_and_after(guarded):
    """CLAUDE_CODE_USE_POWERSHELL_TOOL=1 offers the PowerShell tool (no pwsh here: what it runs
    fails, but the hook sees each call first): a push past the hooks is refused, and so is git's name
    made when the command runs."""
    repo, bare = guarded
    repo.agentguard("install", "--harness", "claude")
    remote = bare.rev("main")
    calls = [("tool", "PowerShell", {"command": "git push --no-verify origin feat:main", "description": "push"}),
             ("tool", "PowerShell", {"command": "& ('gi'+'t') push origin feat:main", "description": "push"})]
    result = run_claude(repo, calls, CLAUDE_CODE_USE_POWERSHELL_TOOL="1")
    assert len(result.tool_results) == 2, (result.tool_results, result.stderr[-2000:])
    assert "[rule: no-verify]" in result.tool_results[0], result.tool_results
    assert "[rule: unanalysable]" in result.tool_results[1], result.tool_results
    assert bare.rev("main") == remote
