"""The five settings-file harnesses, for real: each binary (tests/node, pinned) runs headless in a real
repository where `agentguard install --harness NAME` ran, while a scripted fake model server on
127.0.0.1 asks for the tool calls an agent would make. Shown per harness: `git push --no-verify` to
main is refused before it runs (the remote's main does not move), a `-c core.hooksPath=/dev/null`
commit is refused (nothing committed, the staged work still staged), the harness's own file tool
cannot write `.git/hooks/pre-push`, and an ordinary command runs. The model is told why. After each
call the after-check runs: a hook deleted by a command the analyser could not read is back before
the model's next turn, and the model read why; an ordinary call shows it nothing."""
import importlib
import json
import os
import re
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "harness"))
from fakeserver import Result as Outcome  # noqa: E402
from tamper import DELETED, deleting  # noqa: E402
from helpers import need, replace_in_file  # noqa: E402

HARNESSES = ("claude", "codex", "gemini", "opencode", "copilot", "kilo", "cline", "qwen")
pytestmark = pytest.mark.slow


def driver(name):
    module = importlib.import_module("agent_" + name)
    need("the %s CLI (tests/node)" % name, module.BINARY)
    return module


def git_env(repo):
    """What the agent's shell needs from the test's environment (identity, PATH, no system config)."""
    return {k: v for k, v in repo.env.items() if k.startswith("GIT_") or k in ("PATH", "LC_ALL")}


def run_harness(name, repo, calls, timeout=90):
    module = driver(name)
    home = repo.env["HOME"]
    kwargs = {}
    if name == "codex":
        # the trust entry agentguard install recorded is the one codex gets (the driver writes the
        # rest of config.toml: the fake provider, the project's trust)
        with open(os.path.join(home, ".codex", "config.toml")) as fh:
            blocks = re.findall(r'\[hooks\.state\.[^\n]*\]\ntrusted_hash = [^\n]*\n', fh.read())
        kwargs = {"trust_hooks": False, "config_extra": "\n".join(blocks)}
    result = Outcome(module.run(repo.path, home, calls, timeout=timeout, extra_env=git_env(repo), **kwargs))
    assert result.code is not None, "%s timed out:\n%s\n%s" % (name, result.stdout[-2000:], result.stderr[-2000:])
    return result



def write_calls(name, repo, rel, content):
    """The harness's own file tool overwriting ``rel`` (Claude Code reads a file before it may write it)."""
    if name == "claude":
        path = os.path.join(repo.path, rel)
        return [("tool", "Read", {"file_path": path}), ("write", path, content)]
    return [("write", rel, content)]


@pytest.mark.parametrize("name", HARNESSES)
def test_the_harness_refuses_bypasses_and_runs_the_rest(guarded, name):
    repo, bare = guarded
    repo.agentguard("install", "--harness", name)
    with open(os.path.join(repo.path, "staged.txt"), "w") as fh:
        fh.write("work in progress\n")
    repo.run("add", "staged.txt")
    # Gemini CLI itself keeps its file tools out of .git ("Path not in workspace"); there, the file
    # the tool must not touch is the one that would switch its hooks off
    target = ".gemini/settings.json" if name == "gemini" else ".git/hooks/pre-push"
    hook = os.path.join(repo.path, target)
    hook_before = open(hook, "rb").read()
    before = {"main": repo.rev("main"), "remote": bare.rev("main"), "feat": repo.rev("feat")}
    calls = [("shell", "git push --no-verify origin feat:main"),
             ("shell", "git -c core.hooksPath=/dev/null commit -m sneaky")]
    calls += write_calls(name, repo, target, "#!/bin/sh\nexit 0\n")
    calls += [("shell", "echo ok > ran.txt && git status --short")]
    result = run_harness(name, repo, calls)
    said = "\n".join(result.tool_results)
    assert len(result.tool_results) == len(calls), (result.tool_results, result.stderr[-2000:])
    # nothing moved, nothing lost
    assert bare.rev("main") == before["remote"]
    assert repo.rev("main") == before["main"] and repo.rev("feat") == before["feat"]
    assert repo.staged() == ["staged.txt"]
    assert open(hook, "rb").read() == hook_before
    # the model was told why, each time
    assert "[rule: no-verify]" in result.tool_results[0], said
    assert "core.hooksPath" in result.tool_results[1], said
    assert "[rule: guard-files]" in result.tool_results[-2], said
    # and the ordinary command ran
    assert os.path.exists(os.path.join(repo.path, "ran.txt")), said
    assert "agentguard" not in result.tool_results[-1], said


@pytest.mark.parametrize("name", HARNESSES)
def test_without_the_adapter_the_same_push_lands(guarded, name):
    """The control: the hooks alone cannot see `push --no-verify`, so with only the git hooks
    installed (no push guard in the transport either) the very call the adapter refuses moves the
    remote's main. (Codex gets no hooks.json.)"""
    repo, bare = guarded
    repo.agentguard("install", "--no-push-guard")
    if name == "codex":
        os.makedirs(os.path.join(repo.env["HOME"], ".codex"), exist_ok=True)
        with open(os.path.join(repo.env["HOME"], ".codex", "config.toml"), "a") as fh:
            fh.write("\n[hooks.state.\"none\"]\ntrusted_hash = \"sha256:0\"\n")
    result = run_harness(name, repo, [("shell", "git push --no-verify origin feat:main")])
    assert bare.rev("main") == repo.rev("feat"), result.tool_results


def test_hole_codex_typing_into_an_open_shell_runs_no_hook(guarded):
    """Known hole (reported upstream): Codex runs PreToolUse hooks for exec_command, not for write_stdin.
    The model opens an interactive shell with exec_command (tty, still running when the call yields,
    so Codex keeps it as a session) and types into it with write_stdin: no hook sees the typed text.
    A commit with the hooks switched off lands on main; the push that exec_command alone is refused
    is refused again, by the push guard in git's transport, which no flag skips. The after-check
    narrows the hole: once the shell session ends, Codex's PostToolUse runs it, main is moved back,
    the typed commit is kept on a rescue branch, and the model reads it. Flip this test when Codex
    hooks write_stdin (or agentguard finds another way to see it)."""
    import agent_codex

    repo, bare = guarded
    repo.agentguard("install", "--harness", "codex")
    push = "git push --no-verify origin feat:main"
    commit = "git -c core.hooksPath=/dev/null commit -q --allow-empty -m typed"
    remote_before, main_before, seen = bare.rev("main"), repo.rev("main"), {}

    def open_shell(results):
        seen["after_direct"] = bare.rev("main")  # the direct exec_command push has been answered by now
        return {"cmd": "sh", "tty": True, "yield_time_ms": 1000}

    def typed(chars, wait_ms, note=None):
        def arguments(results):
            if note:
                seen[note] = repo.rev("main")
            return {"session_id": agent_codex.session_id(results), "chars": chars, "yield_time_ms": wait_ms}
        return arguments

    calls = [("shell", push),
             ("tool", "exec_command", open_shell),
             ("tool", "write_stdin", typed("%s; %s\n" % (commit, push), 4000)),
             ("tool", "write_stdin", typed("exit\n", 1000, note="while_open"))]
    result = run_harness("codex", repo, calls, timeout=60)
    said = "\n".join(result.feedback)
    assert len(result.tool_results) == len(calls), (result.tool_results, result.stderr[-2000:])
    # the control, same session: straight through exec_command the push is refused and does not run
    assert "[rule: no-verify]" in result.tool_results[0], said
    assert seen["after_direct"] == remote_before != repo.rev("feat"), said
    # the shell stayed open as a session, and the text typed into it ran with no tool hook in the way:
    assert agent_codex.session_id(result.tool_results[1:2]) is not None, said
    assert seen["while_open"] != main_before, said  # the hole: the commit with hooks off landed on main
    assert bare.rev("main") == remote_before, said  # closed: git's transport refused the push
    # narrowed: when the session ended, the after-check put main back and kept the commit
    assert repo.rev("main") == main_before, said
    rescued = repo.run("for-each-ref", "--format=%(refname)", "refs/heads/agentguard/rescued/").stdout.split()
    assert len(rescued) == 1 and repo.rev(rescued[0]) == seen["while_open"], rescued
    assert "[rule: tool-outcome]" in result.feedback[-1] and "moved protected branch main back" in said, said


def test_hole_an_untrusted_folder_runs_no_copilot_hook(guarded):
    """Copilot CLI loads repository hooks only in a trusted folder and says nothing when it skips
    them: the user's trust decision, which agentguard leaves to the user. The doctor warns
    (adapters.copilot.enabled); until the folder is trusted, a commit with the hooks switched off
    lands (a push to main would still meet the push guard in git's transport)."""
    repo, bare = guarded
    repo.agentguard("install", "--harness", "copilot")
    module = driver("copilot")
    main = repo.rev("main")
    sneaky = "git -c core.hooksPath=/dev/null commit -q --allow-empty -m sneaky"
    result = Outcome(module.run(repo.path, repo.env["HOME"], [("shell", sneaky)],
                                timeout=90, extra_env=git_env(repo), trust=False))
    assert result.code is not None
    assert repo.rev("main") != main, result.tool_results
    doctor = json.loads(repo.agentguard("doctor", "--json", check=False).stdout)
    assert {c["id"]: c["status"] for c in doctor["checks"]}["adapters.copilot.enabled"] == "warn"


@pytest.mark.parametrize("name", HARNESSES)
def test_a_missing_runtime_blocks_git_and_lets_the_rest_run(guarded, name):
    """The runtime copy gone (a half-removed install, a wiped git dir): the hook's own fallback
    blocks what involves git, in the harness's terms, and everything else still runs."""
    repo, bare = guarded
    repo.agentguard("install", "--harness", name)
    os.unlink(os.path.join(repo.path, ".git", "agentguard", "check"))
    result = run_harness(name, repo, [("shell", "git push --no-verify origin feat:main"),
                                      ("shell", "echo ok > ran.txt")])
    assert bare.rev("main") != repo.rev("feat")
    if name == "cline":  # its one answer for any call (the hook cannot read it): the task stops, unexplained
        assert '"type":"run_aborted"' in result.stdout and not result.tool_results, result.stdout[-3000:]
        return
    assert "[rule: guard-error]" in result.tool_results[0], result.tool_results
    assert os.path.exists(os.path.join(repo.path, "ran.txt")), result.tool_results
    # after the call that ran, the model reads that the guard went unchecked
    assert "could not check" in result.feedback[1] and "its runtime copy is missing" in result.feedback[1], \
        result.feedback


# -- after the call ----------------------------------------------------------------------------------
def drop_after_entries(name, repo):
    """The control: the adapter without its after-call entries (the check before calls stays)."""
    plugin = {"opencode": ".opencode", "kilo": ".kilo"}.get(name)
    if plugin:
        replace_in_file(os.path.join(repo.path, plugin, "plugins", "agentguard.js"),
                        '"tool.execute.after"', '"tool.execute.unused"')
        return
    if name == "cline":  # its hook files, one per event
        os.unlink(os.path.join(repo.path, ".clinerules", "hooks", "PostToolUse"))
        return
    rel = {"claude": ".claude/settings.local.json", "codex": ".codex/hooks.json", "gemini": ".gemini/settings.json",
           "copilot": ".github/hooks/agentguard.json", "qwen": ".qwen/settings.json"}[name]
    path = os.path.join(repo.path, rel)
    with open(path) as fh:
        data = json.load(fh)
    for event in list(data["hooks"]):
        if event.lower().startswith(("post", "after")):
            del data["hooks"][event]
    assert data["hooks"] and not any(event.lower().startswith(("post", "after")) for event in data["hooks"])
    with open(path, "w") as fh:
        json.dump(data, fh)


@pytest.mark.parametrize("name", HARNESSES)
def test_what_a_call_did_to_the_guard_is_undone_before_the_next_turn(guarded, name):
    """A command the check before the call could not read deletes a git hook (once succeeding, once
    failing: Claude Code and Copilot CLI hook a failed call under another event); after the call
    the hook is back, byte for byte, and the model read why next to that call's result; an ordinary
    call shows it nothing."""
    repo, _ = guarded
    repo.agentguard("install", "--harness", name)
    hooks = os.path.join(repo.path, ".git", "hooks")
    before = {}
    for hook in ("pre-commit", "pre-push"):
        with open(os.path.join(hooks, hook), "rb") as fh:
            before[hook] = fh.read()
    calls = [("shell", deleting("pre-commit")), ("shell", deleting("pre-push", status=3)),
             ("shell", "echo ok > ran.txt")]
    result = run_harness(name, repo, calls)
    said = result.feedback
    assert len(said) == len(calls), (said, result.stderr[-2000:])
    for i, hook in enumerate(("pre-commit", "pre-push")):
        assert DELETED in said[i], said  # the call ran and really deleted it
        assert "[rule: tool-outcome]" in said[i] and ".git/hooks/" + hook in said[i], said
        with open(os.path.join(hooks, hook), "rb") as fh:
            assert fh.read() == before[hook], hook
        assert os.access(os.path.join(hooks, hook), os.X_OK), hook
    assert os.path.exists(os.path.join(repo.path, "ran.txt")), said
    assert "agentguard" not in said[2], said


@pytest.mark.parametrize("name", HARNESSES)
def test_without_the_after_entries_the_deleted_hook_stays_deleted(guarded, name):
    """The control: the same call with the adapter's after-call entries taken out leaves the hook
    deleted, and the model reads nothing about it."""
    repo, _ = guarded
    repo.agentguard("install", "--harness", name)
    drop_after_entries(name, repo)
    result = run_harness(name, repo, [("shell", deleting("pre-commit"))])
    assert DELETED in result.feedback[0], result.feedback
    assert "tool-outcome" not in result.feedback[0], result.feedback
    assert not os.path.exists(os.path.join(repo.path, ".git", "hooks", "pre-commit"))
