"""Gemini CLI 0.61, Copilot CLI 1.0.102 and Codex 0.171 as they are now: what changed in their hook
APIs since the adapters were written, and that agentguard's answers and checks keep up.

- Gemini CLI: ``hooksConfig.disabled`` is merged over every settings file (system, system defaults,
  user, workspace) by hook name (or command), ``hooksConfig.enabled`` is the highest scope's: the
  doctor reads each, and a tool call that writes one is refused.
- Copilot CLI: ``permissionRequest`` runs the check again at the permission step, on the arguments
  as every preToolUse hook left them (real binary).
- Codex: a PreToolUse answer with any key its schema does not know, ``continue``/``suppressOutput``/
  ``stopReason``, an empty reason, or exit 2 with nothing on stderr is read as a failed hook and the
  call runs: agentguard's answers are checked against that schema, byte for byte."""
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "harness"))
from fakeserver import NODE_BIN, Result as Outcome  # noqa: E402
from helpers import AGENTGUARD, doctor_report, need  # noqa: E402

from agentguard.installer.harness.hookcommand import hook_command  # noqa: E402


# -- Gemini CLI: every scope's hooksConfig ---------------------------------------------------------
def gemini_env(repo, tmp_path):
    """The repository's environment with Gemini CLI's system files in ``tmp_path`` and this folder trusted."""
    system = tmp_path / "etc" / "settings.json"
    system.parent.mkdir(parents=True, exist_ok=True)
    return dict(repo.env, GEMINI_CLI_SYSTEM_SETTINGS_PATH=str(system), GEMINI_CLI_TRUST_WORKSPACE="true")


def scope_paths(repo, env):
    system = env["GEMINI_CLI_SYSTEM_SETTINGS_PATH"]
    return {"system": system, "system defaults": os.path.join(os.path.dirname(system), "system-defaults.json"),
            "user": os.path.join(env["HOME"], ".gemini", "settings.json"),
            "workspace": os.path.join(repo.path, ".gemini", "settings.json")}


def set_hooks_config(path, config):
    data = {}
    if os.path.exists(path):
        with open(path) as fh:
            data = json.load(fh)
    data["hooksConfig"] = config
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        json.dump(data, fh)


def test_the_doctor_reads_every_gemini_scope_that_can_silence_the_hook(guarded, tmp_path):
    repo, _ = guarded
    env = gemini_env(repo, tmp_path)
    repo.agentguard("install", "--harness", "gemini", env=env)
    paths = scope_paths(repo, env)
    with open(paths["workspace"], "rb") as fh:
        workspace = fh.read()

    def enabled():
        checks, _ = doctor_report(repo, env=env)
        return checks["adapters.gemini.enabled"]

    assert enabled()["status"] == "pass", enabled()
    # hooksConfig.disabled, by name or by the hook's command, in any scope: a union
    for scope, path in paths.items():
        for name in ("agentguard", hook_command("gemini"), hook_command("gemini", "AfterTool")):
            set_hooks_config(path, {"disabled": ["other-hook", name]})
            found = enabled()
            assert found["status"] == "fail" and path in found["summary"], (scope, found)
            assert "hooksConfig.disabled" in found["fix"], found
        set_hooks_config(path, {"disabled": ["other-hook"]})
        assert enabled()["status"] == "pass", (scope, enabled())
    # hooksConfig.enabled: the highest scope that sets it decides (system > workspace > user > defaults)
    set_hooks_config(paths["system defaults"], {"enabled": False})
    assert enabled()["status"] == "fail" and paths["system defaults"] in enabled()["summary"]
    set_hooks_config(paths["user"], {"enabled": True})
    assert enabled()["status"] == "pass"
    set_hooks_config(paths["workspace"], {"enabled": False})
    assert enabled()["status"] == "fail" and paths["workspace"] in enabled()["summary"]
    set_hooks_config(paths["system"], {"enabled": True})
    assert enabled()["status"] == "pass"
    with open(paths["workspace"], "wb") as fh:
        fh.write(workspace)


def test_a_tool_call_that_writes_a_gemini_scope_is_refused(guarded, tmp_path):
    """Every scope's file is a guard file: its write refused before the call, in Gemini CLI's terms."""
    repo, _ = guarded
    env = gemini_env(repo, tmp_path)
    repo.agentguard("install", "--harness", "gemini", env=env)
    for scope, path in scope_paths(repo, env).items():
        payload = {"session_id": "s", "cwd": repo.path, "hook_event_name": "BeforeTool", "tool_name": "write_file",
                   "tool_input": {"file_path": path, "content": '{"hooksConfig": {"disabled": ["agentguard"]}}'}}
        proc = subprocess.run([AGENTGUARD, "check", "--hook", "gemini"], input=json.dumps(payload), cwd=repo.path,
                              env=env, capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2, (scope, proc.stdout, proc.stderr)
        answer = json.loads(proc.stdout)
        assert answer["decision"] == "deny" and "[rule: guard-files]" in answer["reason"], (scope, answer)


# -- Copilot CLI: permissionRequest ----------------------------------------------------------------
def copilot_payload(repo, event, command):
    args = {"command": command, "description": "run"} if event == "preToolUse" else {"command": command}
    payload = {"sessionId": "s", "timestamp": 1, "cwd": repo.path, "toolName": "bash"}
    if event == "preToolUse":
        payload["toolArgs"] = args
    else:  # 1.0.102, captured: {hookName, sessionId, timestamp, cwd, toolName, toolInput, permissionSuggestions}
        payload.update(hookName="permissionRequest", toolInput=args, permissionSuggestions=[])
    return json.dumps(payload)


def test_copilot_hooks_permission_requests_with_an_answer_both_events_read(guarded):
    repo, _ = guarded
    repo.agentguard("install", "--harness", "copilot")
    with open(os.path.join(repo.path, ".github", "hooks", "agentguard.json")) as fh:
        hooks = json.load(fh)["hooks"]
    assert hooks["permissionRequest"] == hooks["preToolUse"]
    for event in ("preToolUse", "permissionRequest"):
        proc = subprocess.run([AGENTGUARD, "check", "--hook", "copilot"], cwd=repo.path, env=repo.env,
                              input=copilot_payload(repo, event, "git push --no-verify origin feat:main"),
                              capture_output=True, text=True, timeout=60)
        answer = json.loads(proc.stdout)
        assert proc.returncode == 2 and answer["permissionDecision"] == answer["behavior"] == "deny", proc.stdout
        assert "[rule: no-verify]" in answer["message"] == answer["permissionDecisionReason"], answer
        ok = subprocess.run([AGENTGUARD, "check", "--hook", "copilot"], cwd=repo.path, env=repo.env,
                            input=copilot_payload(repo, event, "git status"), capture_output=True, text=True,
                            timeout=60)
        assert (ok.returncode, ok.stdout) == (0, ""), ok.stdout


@pytest.mark.slow
def test_copilot_checks_again_what_another_hook_rewrote(guarded):
    """Another preToolUse hook (a user's, in a file Copilot CLI runs after agentguard's) rewrites an
    ordinary command into a push past the hooks (``modifiedArgs``): agentguard's preToolUse saw the
    ordinary one, its permissionRequest sees the rewrite and refuses it. The control: without the
    permissionRequest entry the rewritten push lands (no push guard in git's transport here)."""
    import agent_copilot
    need("the copilot CLI (tests/node)", agent_copilot.BINARY)
    repo, bare = guarded
    repo.agentguard("install", "--no-push-guard", "--harness", "copilot")
    rewrite = {"modifiedArgs": {"command": "git push --no-verify origin feat:main", "description": "run"}}
    with open(os.path.join(repo.path, ".github", "hooks", "0-rewrite.json"), "w") as fh:
        json.dump({"version": 1, "hooks": {"preToolUse": [
            {"type": "command", "bash": "echo '%s'" % json.dumps(rewrite), "timeoutSec": 30}]}}, fh)
    env = {k: v for k, v in repo.env.items() if k.startswith("GIT_") or k in ("PATH", "LC_ALL")}

    def run():
        result = Outcome(agent_copilot.run(repo.path, repo.env["HOME"], [("shell", "echo ok > ran.txt")],
                                           timeout=90, extra_env=env))
        assert result.code is not None, result.stderr[-2000:]
        return result

    remote = bare.rev("main")
    result = run()
    assert bare.rev("main") == remote, result.tool_results
    assert "Permission denied by a PermissionRequest hook" in result.tool_results[0], result.tool_results
    assert "[rule: no-verify]" in result.tool_results[0], result.tool_results
    path = os.path.join(repo.path, ".github", "hooks", "agentguard.json")
    with open(path) as fh:
        data = json.load(fh)
    del data["hooks"]["permissionRequest"]
    with open(path, "w") as fh:
        json.dump(data, fh)
    result = run()
    # the push landed; the remote is on this machine, so the after-check put its main back (test_local_remote)
    rescued = bare.run("for-each-ref", "--format=%(objectname)", "refs/agentguard/rescued/").stdout.split()
    assert bare.rev("main") == repo.rev("feat") or repo.rev("feat") in rescued, result.tool_results


# -- Codex: the answer bytes against its schema ----------------------------------------------------
# The output schemas Codex 0.171.0 validates against are in its binary (codex-rs/hooks/schema/generated,
# "additionalProperties": false throughout; PreToolUseCommandOutputWire is deny_unknown_fields). Besides
# an unknown key, Codex reads these as a failed hook, and the call runs (output_parser.rs, run here by
# the research for #28): continue false, stopReason, suppressOutput, an empty reason, ask.
CODEX_SCHEMAS = {  # when no binary is here: the keys of 0.171.0's schemas
    "pre-tool-use": ({"continue", "decision", "hookSpecificOutput", "reason", "stopReason", "suppressOutput",
                      "systemMessage"}, {"additionalContext", "hookEventName", "permissionDecision",
                                         "permissionDecisionReason", "updatedInput"}),
    "post-tool-use": ({"continue", "decision", "hookSpecificOutput", "reason", "stopReason", "suppressOutput",
                       "systemMessage"}, {"additionalContext", "hookEventName", "updatedMCPToolOutput"})}
FAILS_OPEN = {"continue", "stopReason", "suppressOutput"}


def codex_schema(name):
    """(top-level keys, hookSpecificOutput keys) of Codex's ``<name>.command.output`` schema, read from
    the binary in tests/node when it is there."""
    vendor = os.path.join(NODE_BIN, "..", "@openai", "codex-linux-x64", "vendor", "x86_64-unknown-linux-musl",
                          "bin", "codex")
    if not os.path.exists(vendor):
        return CODEX_SCHEMAS[name]
    with open(vendor, "rb") as fh:
        data = fh.read()
    at = data.find(b'"title": "%s.command.output"' % name.encode())
    start, end = data.rfind(b'{\n  "$schema"', 0, at), data.find(b"\n}", at) + 2
    schema = json.loads(data[start:end])
    assert schema["additionalProperties"] is False
    specific = next(d for k, d in schema["definitions"].items() if k.endswith("HookSpecificOutputWire"))
    assert specific["additionalProperties"] is False
    return set(schema["properties"]), set(specific["properties"])


def codex_answer(repo, payload, after=False, env=None):
    argv = [AGENTGUARD, "check"] + (["--after"] if after else []) + ["--hook", "codex"]
    return subprocess.run(argv, cwd=repo.path, env=env or repo.env, input=json.dumps(payload), capture_output=True,
                          text=True, timeout=60)


def assert_in_schema(answer, name):
    top, specific = codex_schema(name)
    assert set(answer) <= top - FAILS_OPEN, answer
    assert set(answer.get("hookSpecificOutput") or {}) <= specific, answer
    assert answer.get("reason", "x").strip() and answer["hookSpecificOutput"].get(
        "permissionDecision") != "ask", answer


def assert_codex_blocks(proc):
    """Codex blocks on exit 2 only with a non-empty stderr; on exit 0 only with a JSON deny it can parse."""
    if proc.returncode == 2:
        assert proc.stderr.strip(), "exit 2 with an empty stderr: Codex runs the call"
    assert proc.returncode in (0, 2), proc.returncode
    if proc.stdout.strip():
        answer = json.loads(proc.stdout)
        assert_in_schema(answer, "pre-tool-use")
        if proc.returncode == 0:
            specific = answer["hookSpecificOutput"]
            assert specific["permissionDecision"] == "deny" and specific["permissionDecisionReason"].strip()


def test_codex_answers_stay_inside_its_schema(guarded):
    repo, _ = guarded
    repo.agentguard("install", "--harness", "codex")
    base = {"session_id": "s", "cwd": repo.path, "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_use_id": "c", "transcript_path": None, "model": "m", "permission_mode": "bypassPermissions"}
    # refused by the analyser, by the fallback (a payload it cannot read), by the not-installed launcher
    proc = codex_answer(repo, dict(base, tool_input={"command": "git push --no-verify origin feat:main"}))
    assert proc.returncode == 2 and "[rule: no-verify]" in proc.stderr
    assert_codex_blocks(proc)
    proc = codex_answer(repo, dict(base, tool_input={"command": 7, "git": "push"}))
    assert proc.returncode == 2 and "[rule: guard-error]" in proc.stderr
    assert_codex_blocks(proc)
    launcher = hook_command("codex")
    out = subprocess.run(["sh", "-c", launcher], cwd=str(repo.path),
                         env=dict(repo.env, GIT_DIR="/nonexistent"), capture_output=True, text=True, timeout=60,
                         input=json.dumps(dict(base, tool_input={"command": "git push"})))
    assert_codex_blocks(out)
    # after the call: nothing to say is no output at all; something undone is additionalContext, exit 0
    post = dict(base, hook_event_name="PostToolUse", tool_input={"command": "rm .git/hooks/pre-push"},
                tool_response="")
    os.unlink(os.path.join(repo.path, ".git", "hooks", "pre-push"))
    proc = codex_answer(repo, post, after=True)
    answer = json.loads(proc.stdout)
    assert proc.returncode == 0 and answer["hookSpecificOutput"]["additionalContext"].strip(), answer
    assert_in_schema(answer, "post-tool-use")
    assert os.path.exists(os.path.join(repo.path, ".git", "hooks", "pre-push"))
    proc = codex_answer(repo, post, after=True)
    assert (proc.returncode, proc.stdout) == (0, ""), proc.stdout


def test_the_doctor_names_what_switches_codex_hooks_off(guarded):
    """Codex 0.171 skips a hook without a word when [hooks.state] sets enabled = false for it, and runs
    none with hooks = false in [features] (tests/harness/agent_codex.py, verified with the binary)."""
    repo, _ = guarded
    repo.agentguard("install", "--harness", "codex")
    config = os.path.join(repo.env["HOME"], ".codex", "config.toml")
    with open(config, "a") as fh:
        fh.write('\n[projects.%s]\ntrust_level = "trusted"\n' % json.dumps(repo.path))
    with open(config) as fh:
        trusted = fh.read()

    def enabled():
        checks, _ = doctor_report(repo)
        return checks["adapters.codex.enabled"]

    assert enabled()["status"] == "pass", enabled()
    with open(config, "w") as fh:
        fh.write(trusted.replace("trusted_hash = ", "enabled = false\ntrusted_hash = ", 1))
    found = enabled()
    assert found["status"] == "fail" and "enabled = false" in found["summary"], found
    with open(config, "w") as fh:
        fh.write("[features]\nhooks = false\n" + trusted)
    found = enabled()
    assert found["status"] == "fail" and "[features]" in found["summary"], found


@pytest.mark.slow
def test_hole_a_gemini_scope_that_names_the_hook_silences_it(guarded, tmp_path):
    """Known hole, the user's (or an administrator's) to close: a settings file of another scope that
    lists "agentguard" in hooksConfig.disabled (here the user's; 0.61 reads the system files only where
    their folders are secure, root's and not writable by others, which a test folder in /tmp is not)
    silences the project's hook, and the push past the hooks lands (no push guard in git's transport
    here). The doctor names the file; a tool call that writes it is refused (test above)."""
    import agent_gemini
    need("the gemini CLI (tests/node)", agent_gemini.BINARY)
    repo, bare = guarded
    env = gemini_env(repo, tmp_path)
    repo.agentguard("install", "--no-push-guard", "--harness", "gemini", env=env)
    user = scope_paths(repo, env)["user"]
    agent_gemini.prepare_home(repo.path, repo.env["HOME"])  # its user settings, which the hole adds to
    set_hooks_config(user, {"disabled": ["agentguard"]})
    extra = {k: v for k, v in env.items() if k.startswith(("GIT_", "GEMINI_CLI_SYSTEM")) or k in ("PATH", "LC_ALL")}
    result = Outcome(agent_gemini.run(repo.path, repo.env["HOME"], [("shell", "git push --no-verify origin feat:main")],
                                      timeout=90, extra_env=extra))
    assert result.code is not None, result.stderr[-2000:]
    assert bare.rev("main") == repo.rev("feat"), result.tool_results
    checks, _ = doctor_report(repo, env=env)
    assert checks["adapters.gemini.enabled"]["status"] == "fail" and user in checks["adapters.gemini.enabled"][
        "summary"]
