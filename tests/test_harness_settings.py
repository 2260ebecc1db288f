"""The settings-file harnesses (Claude Code, Codex, Gemini CLI, Copilot CLI, OpenCode) without
their binaries: the hook command install writes, run by a real sh against the real runtime copy;
merging into settings files users already have and taking exactly that out again; Codex's trust
entry; the guard's new files; which harnesses a plain install sets up; what the doctor says.
(tests/test_harness_e2e.py drives the real binaries.)"""
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from agentguard.installer.harness import settingsfile, hookcommand
from agentguard.installer.harness import codex, copilot
from agentguard.hooks.harness.hook import PROTOCOLS
from harnesscalls import CALLS, WRITES, after_hook, cline_refusal, hook
from helpers import need, snapshot, doctor_checks

@pytest.mark.parametrize("harness", settingsfile.NAMES)
def test_hook_blocks_with_exit_2_and_allows_with_0(guarded, harness):
    repo, bare = guarded
    before = (repo.rev("main"), bare.rev("main"))
    cases = [(CALLS[harness]("git push --no-verify origin HEAD:main"), 2, "[rule: no-verify]"),
             (CALLS[harness]("git -c core.hooksPath=/dev/null commit --allow-empty -m x"), 2, "core.hooksPath"),
             (CALLS[harness]("git status && ls"), 0, ""),
             (WRITES[harness](".git/hooks/pre-push"), 2, "[rule: guard-files]"),
             (WRITES[harness](".claude/settings.local.json"), 2, "[rule: guard-files]"),
             (WRITES[harness]("src/app.py"), 0, "")]
    for payload, code, said in cases:
        proc = hook(repo, harness, payload)
        if harness == "cline":  # never by exit status: by what it swaps the call for, or a cancel
            refused, text = cline_refusal(proc)
            assert refused == (code == 2) and said in text and text.strip() == proc.stderr.strip(), proc.stdout
            continue
        assert proc.returncode == (0 if harness == "claude" else code), (payload, proc.stdout, proc.stderr)
        assert said in proc.stderr
        if said and harness == "claude":  # its JSON deny (exit 0), so the model is not shown the hook command
            assert proc.returncode == 0
            assert said in json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecisionReason"]
        elif said and harness == "copilot":
            assert json.loads(proc.stdout)["permissionDecision"] == "deny"
        elif said and harness == "gemini":
            assert json.loads(proc.stdout)["decision"] == "deny"
        elif said and harness == "cursor":
            assert said in json.loads(proc.stdout)["agent_message"]
    assert (repo.rev("main"), bare.rev("main")) == before


def test_hook_from_a_subdirectory_and_a_nested_cd(guarded):
    repo, _ = guarded
    os.makedirs(os.path.join(repo.path, "sub"))
    proc = hook(repo, "codex", CALLS["codex"]("cd .. && git commit --no-verify -m x"),
                cwd=os.path.join(repo.path, "sub"))
    assert proc.returncode == 2 and "[rule: no-verify]" in proc.stderr


def break_runtime(repo, broken):
    """The decision command gone ("missing"), failing with status 1 ("crashing") or 127 ("silent")."""
    check = os.path.join(repo.path, ".git", "agentguard", "check")
    os.unlink(check)
    if broken != "missing":
        with open(check, "w") as fh:
            fh.write("#!/bin/sh\ncat >/dev/null\n%s\n"
                     % ("echo boom >&2; exit 1" if broken == "crashing" else "exit 127"))
        os.chmod(check, 0o755)


def blocked(harness, proc):
    """(refused, the reason given) of a pre-call hook's answer: exit 2 and stderr, or Cline's answer."""
    if harness == "cline":
        return cline_refusal(proc)
    assert proc.returncode in (0, 2), (harness, proc.returncode, proc.stderr)
    return proc.returncode == 2, proc.stderr


@pytest.mark.parametrize("broken", ["missing", "crashing", "silent"])
def test_a_broken_runtime_blocks_git_and_lets_the_rest_run(guarded, broken):
    """Exit 1 means allow to three of these harnesses: a runtime that is gone or fails must not
    end in 1. Calls that involve git or the guard's files are blocked; others run."""
    repo, bare = guarded
    break_runtime(repo, broken)
    before = (repo.rev("main"), bare.rev("main"))
    for harness in settingsfile.NAMES:
        refused, said = blocked(harness, hook(repo, harness, CALLS[harness]("git push origin HEAD:main")))
        assert refused and "[rule: guard-error]" in said, (harness, said)
        assert blocked(harness, hook(repo, harness, WRITES[harness](".git/hooks/pre-push")))[0], harness
        # quotes and backslashes hide git from a pattern, not from the shell (#26)
        for disguised in ("g''it push origin HEAD:main", "g\\it push origin HEAD:main",
                          "$'\\x67it' push origin HEAD:main"):
            refused, said = blocked(harness, hook(repo, harness, CALLS[harness](disguised)))
            assert refused and "[rule: guard-error]" in said, (harness, disguised, said)
        assert not blocked(harness, hook(repo, harness, CALLS[harness]("ls -la")))[0], harness
        assert not blocked(harness, hook(repo, harness, CALLS[harness]("echo \"it's done\"")))[0], harness
    assert (repo.rev("main"), bare.rev("main")) == before


def test_the_involves_pattern_as_grep_reads_it_covers_the_analysers():
    """The shell fallback's ERE is the analyser's INVOLVES without word boundaries: it must match
    every text INVOLVES matches (it may match more)."""
    from agentguard.hooks.analyser.constructs import INVOLVES
    script = hookcommand.hook_script()
    ere = script.split('grep -Eiq "', 1)[1].split('" <<', 1)[0]
    texts = ["git push", "/usr/bin/git-receive-pack", "cat .git/config", "x .pi/extensions y", "a .pi\\b",
             "core.hooksPath", "AGENTGUARD", ".claude/settings.json", ".github/hooks/x.json", ".github\\copilot",
             "opencode.json", "disableAllHooks", "ls -la", "echo digital"]
    for text in texts:
        grep = subprocess.run(["sh", "-c", 'printf "%%s\\n" "$1" | grep -Eiq "%s"' % ere, "sh", text])
        if INVOLVES.search(text):
            assert grep.returncode == 0, text
    assert subprocess.run(["sh", "-c", 'echo "ls -la" | grep -Eiq "%s"' % ere]).returncode == 1


def test_hook_script_passes_shellcheck_and_opencode_plugin_parses(guarded, tmp_path):
    repo, _ = guarded
    script = tmp_path / "hook.sh"
    script.write_text("#!/bin/sh\n" + hookcommand.hook_script())
    need("shellcheck", shutil.which("shellcheck"))
    need("node", shutil.which("node"))
    # SC1090: it reads the decision command (install's launcher, linted in test_lint) into a subshell
    proc = subprocess.run(["shellcheck", "-s", "sh", "-e", "SC1090", str(script)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout
    for harness in settingsfile.NAMES:  # the short launcher each settings entry runs
        launcher = tmp_path / ("launcher-" + harness)
        launcher.write_text("#!/bin/sh\n" + settingsfile.hook_command(harness).split("'")[1] + "\n")
        # SC1090: it sources the script at a path git names, whose own text is checked just above
        proc = subprocess.run(["shellcheck", "-s", "sh", "-e", "SC1090", str(launcher)], capture_output=True,
                              text=True)
        assert proc.returncode == 0, proc.stdout
    repo.agentguard("install", "--harness", "opencode")
    proc = subprocess.run(["node", "--check", os.path.join(repo.path, ".opencode", "plugins", "agentguard.js")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_payloads_that_are_not_tool_calls(guarded):
    repo, _ = guarded
    for data, code in [("not json at all git", 2), ("not json", 0), ('{"tool_name": 3, "x": "git"}', 2),
                       ('{"tool_name": "Bash", "tool_input": {"command": ["git", "push", "origin", "HEAD:main"]}}', 2),
                       ('{"tool_name": "Bash", "tool_input": {"command": 7}} git', 2),
                       ('{"tool_name": "Read", "tool_input": {"file_path": ".git/hooks/pre-push"}}', 0),
                       ('{"tool_name": "SomethingNew", "tool_input": {"command": "git commit --no-verify"}}', 2)]:
        proc = subprocess.run(["sh", "-c", settingsfile.hook_command("codex")], cwd=repo.path, env=repo.env, input=data,
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == code, (data, proc.stderr)


def test_the_runtime_gives_up_before_the_harness_does(guarded, monkeypatch):
    """A decision that hangs ends at hook.TIMEOUT in a block (the harness's own timeout,
    longer, would allow)."""
    import io
    import time
    from agentguard.hooks.analyser import decision
    from agentguard.hooks.harness import hook
    monkeypatch.setattr(hook, "TIMEOUT", 1)
    monkeypatch.setattr(decision, "analyse", lambda **kw: time.sleep(30))
    err = io.StringIO()
    started = time.monotonic()
    payload = json.dumps(CALLS["codex"]("git push origin HEAD:main")).encode()
    assert hook.main("codex", stdin=io.BytesIO(payload), out=io.StringIO(), err=err) == 2
    assert time.monotonic() - started < 5 and "timed out" in err.getvalue()
    payload = json.dumps(CALLS["codex"]("ls")).encode()
    assert hook.main("codex", stdin=io.BytesIO(payload), out=io.StringIO(), err=io.StringIO()) == 0


# -- after the call: the after-check, told in each harness's post-hook terms -------------------------
READS = {
    "claude": {"tool_name": "Read", "tool_input": {"file_path": ".git/hooks/pre-commit"}},
    "codex": None,  # Codex's hooks see shell calls and apply_patch only
    "gemini": {"tool_name": "read_file", "tool_input": {"file_path": ".git/hooks/pre-commit"}},
    "copilot": {"toolName": "view", "toolArgs": {"path": ".git/hooks/pre-commit"}},
    "opencode": {"tool": "read", "args": {"filePath": ".git/hooks/pre-commit"}},
    "kilo": {"tool": "read", "args": {"filePath": ".git/hooks/pre-commit"}},
    "amp": {"tool": "Read", "args": {"path": ".git/hooks/pre-commit"}},
    "goose": {"tool_name": "developer__tree", "tool_input": {"path": ".git/hooks"}},
    "crush": {"tool_name": "view", "tool_input": {"file_path": ".git/hooks/pre-commit"}},
    "kiro": {"hook_event_name": "postToolUse", "tool_name": "fs_read", "tool_input": {"path": ".git/hooks/pre-commit"}},
    "cline": {"hookName": "tool_result", "tool_call": {"name": "read_files", "input": {"files": [{"path": "x"}]}}},
    "windsurf": {"agent_action_name": "post_read_code", "tool_info": {"file_path": ".git/hooks/pre-commit"}},
    "cursor": {"hook_event_name": "postToolUse", "tool_name": "Read", "tool_input": {"file_path": ".git/config"}},
    "qwen": {"tool_name": "read_file", "tool_input": {"file_path": ".git/hooks/pre-commit"}},
    "auggie": {"tool_name": "view", "tool_input": {"path": ".git/hooks/pre-commit"}},
    "droid": {"tool_name": "Read", "tool_input": {"file_path": ".git/hooks/pre-commit"}},
}


def post_events(harness):
    from agentguard.hooks.harness.hook import PROTOCOLS
    return PROTOCOLS[harness].post


@pytest.mark.parametrize("harness", settingsfile.NAMES)
def test_after_an_ordinary_call_the_model_is_told_nothing(guarded, harness):
    repo, _ = guarded
    for event in post_events(harness):
        with open(os.path.join(repo.path, "ran.txt"), "w") as fh:
            fh.write("ok\n")  # what `echo ok > ran.txt` did
        assert after_hook(repo, harness, CALLS[harness]("echo ok > ran.txt"), event)[1] == ""
        assert after_hook(repo, harness, WRITES[harness]("src/app.py"), event)[1] == ""
        if READS[harness]:
            assert after_hook(repo, harness, READS[harness], event)[1] == ""


@pytest.mark.parametrize("harness", settingsfile.NAMES)
def test_after_a_call_that_deleted_a_hook_it_is_back_and_the_model_is_told(guarded, harness):
    """The hook before the call records the snapshot; the call deletes a git hook; the hook after it
    puts it back byte for byte and tells the model in the harness's own terms, for every post-call
    event the harness has (Claude Code and Copilot CLI call a failed tool call another event)."""
    repo, _ = guarded
    path = os.path.join(repo.path, ".git", "hooks", "pre-commit")
    with open(path, "rb") as fh:
        before = fh.read()
    for event in post_events(harness):
        call = CALLS[harness]("rm .git/hooks/pre-commit")
        hook(repo, harness, call)  # the pre-call check: whatever it decides, it takes the snapshot
        os.unlink(path)  # the call ran anyway (say, the check was not installed yet)
        assert not os.path.exists(path)
        proc, said = after_hook(repo, harness, call, event)
        assert "[rule: tool-outcome]" in said and ".git/hooks/pre-commit" in said, (event, proc.stdout, proc.stderr)
        with open(path, "rb") as fh:
            assert fh.read() == before
        assert os.access(path, os.X_OK)
        assert after_hook(repo, harness, call, event)[1] == ""  # and once undone, nothing more to say


@pytest.mark.parametrize("broken", ["missing", "crashing", "silent"])
def test_after_the_call_a_broken_runtime_is_told_to_the_model_and_blocks_nothing(guarded, broken):
    """The after-check cannot run: the call ran already, so nothing is blocked, but the model reads
    that the guard went unchecked, after every call (an `ls` too), in the harness's terms."""
    repo, _ = guarded
    break_runtime(repo, broken)
    why = "its runtime copy is missing" if broken == "missing" else "status %s" % (1 if broken == "crashing" else 127)
    for harness in settingsfile.NAMES:
        if PROTOCOLS[harness].later:
            continue  # its post hooks cannot speak: the fallback blocks its next call that involves git
        for event in post_events(harness):
            for payload in (CALLS[harness]("ls -la"), WRITES[harness](".git/hooks/pre-push")):
                proc, said = after_hook(repo, harness, payload, event)
                assert "could not check" in said and "[rule: guard-error]" in said and why in said, \
                    (harness, event, proc.stdout, proc.stderr)


def test_after_main_never_fails_silently(guarded, monkeypatch):
    """In the runtime: an after-check that hangs ends at hook.TIMEOUT with the model told; one
    that raises is told too; a payload that is not JSON still gets the check (in the hook's own
    directory); read-only tools are skipped without a look; the engine is not asked twice."""
    import io
    import time
    from agentguard.hooks.harness import hook
    from agentguard.hooks.outcome import after

    repo, _ = guarded
    monkeypatch.chdir(repo.path)
    calls = []

    def answer(harness, data):
        out, err = io.StringIO(), io.StringIO()
        status = hook.after_main(harness, stdin=io.BytesIO(data), out=out, err=err)
        return status, out.getvalue(), err.getvalue()

    monkeypatch.setattr(hook, "TIMEOUT", 1)
    # these drive the after-check itself: its shortcut for nothing to undo (outcome.unchanged) stays out
    monkeypatch.setattr(hook, "quiet", lambda cwd: False)
    monkeypatch.setattr(after, "run", lambda cwd: calls.append(cwd) or time.sleep(30))
    started = time.monotonic()
    status, out, _ = answer("codex", json.dumps(dict(CALLS["codex"]("ls"), cwd=repo.path)).encode())
    assert status == 0 and time.monotonic() - started < 5
    context = json.loads(out)["hookSpecificOutput"]
    assert context["hookEventName"] == "PostToolUse" and "timed out after 1 s" in context["additionalContext"]
    assert calls == [repo.path]

    def boom(cwd):
        calls.append(cwd)
        raise OSError("disk full")

    monkeypatch.setattr(after, "run", boom)
    status, out, err = answer("opencode", b"\xff not json")
    assert (status, out) == (2, "") and "could not check" in err and "(OSError)" in err
    assert calls[-1] == os.getcwd()  # no payload: the hook's own directory
    status, out, _ = answer("claude", json.dumps(dict(CALLS["claude"]("ls"), hook_event_name="PostToolUseFailure",
                                                      cwd=repo.path)).encode())
    assert json.loads(out)["hookSpecificOutput"]["hookEventName"] == "PostToolUseFailure"
    before = len(calls)
    for harness in ("claude", "gemini", "copilot", "opencode"):
        assert answer(harness, json.dumps(READS[harness]).encode()) == (0, "", "")
    assert len(calls) == before


def test_the_after_path_does_not_load_the_analyser():
    """The after-check runs after every call: the harness hook (harness/hook.py) imports no analyser (check.py, the
    entry point, is the runtime's own business)."""
    code = ("import sys; import agentguard.hooks.harness.hook; "
            "print(sorted(m for m in sys.modules if m.startswith('agentguard.hooks') and 'analyse' in m "
            "and not m.endswith('analyser')))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.strip() == "[]", proc.stdout + proc.stderr


# -- merging into the user's settings ---------------------------------------------------------------
EXISTING = {
    "claude": {"permissions": {"allow": ["Bash(npm test)"], "deny": ["Read(.env)"]}, "model": "x",
               "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./mine.sh"}]}],
                         "Stop": [{"hooks": [{"type": "command", "command": "echo done"}]}]}},
    "codex": {"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}},
    "gemini": {"ui": {"theme": "GitHub"}, "hooks": {}},
    "crush": {"$schema": "https://charm.land/crush.json", "options": {"debug": False},
              "hooks": {"PreToolUse": [{"matcher": "^bash$", "command": "./no-haskell.sh"}]}},
    "windsurf": {"hooks": {"post_write_code": [{"command": "./format.sh", "show_output": True}]}},
    "cursor": {"version": 1, "hooks": {"afterFileEdit": [{"command": "./format.sh"}], "stop": [{"command": "x"}]}},
    "qwen": {"$version": 4, "model": {"name": "qwen3-coder"},
             "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo done"}]}]}},
    "auggie": {"hooks": {"PreToolUse": [{"matcher": "launch-process", "hooks": [{"type": "command",
                                                                               "command": "/opt/audit.sh"}]}]}},
    "droid": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo hi"}]}]},  # hooks.json: events alone
}


def events_of(data, harness):
    """The object holding the hook events: the "hooks" key, or (a hooks file) the file itself."""
    return data if settingsfile.SPECS[harness].events_key is None else data.setdefault("hooks", {})


@pytest.mark.parametrize("harness", settingsfile.SETTINGS_HARNESSES)
@pytest.mark.parametrize("indent", [None, 2, 4])
def test_merge_then_unmerge_gives_back_every_byte(harness, indent):
    original = (json.dumps(EXISTING[harness], indent=indent) + ("\n" if indent else "")).encode()
    merged = settingsfile.merge_settings(original, harness)
    data = json.loads(merged)
    if indent:  # indented as the user's file was: the diff a team sees is agentguard's entry alone
        assert merged.startswith(b'{\n' + b" " * indent + b'"')
    for key, value in EXISTING[harness].items():
        if key != "hooks" and key not in settingsfile.events(harness):
            assert data[key] == value
    for event in settingsfile.events(harness):  # the check before the call, the after-check after it
        assert events_of(data, harness)[event][-1] == settingsfile.settings_group(harness, event)
    assert settingsfile.hooked(merged, harness) and settingsfile.missing_events(merged, harness) == []
    for other, groups in events_of(json.loads(json.dumps(EXISTING[harness])), harness).items():
        for group in groups:
            assert group in events_of(data, harness)[other]
    assert settingsfile.merge_settings(merged, harness) == merged  # a second install changes nothing
    # what uninstall does when the file changed since: our group out, theirs kept
    created = settingsfile.created_containers(original, harness)
    assert json.loads(settingsfile.unmerge_settings(merged, harness, created)) == EXISTING[harness]
    created = settingsfile.created_containers(None, harness)
    assert settingsfile.unmerge_settings(settingsfile.merge_settings(None, harness), harness, created) is None


@pytest.mark.parametrize("harness", [h for h in settingsfile.SETTINGS_HARNESSES if PROTOCOLS[h].post])
@pytest.mark.parametrize("existing", [True, False])
def test_an_install_from_before_the_after_check_is_upgraded_and_undone_byte_for_byte(harness, existing):
    """An earlier agentguard hooked the pre-call event only and recorded the containers it created
    as "hooks"/"event". Installing now adds the post-call groups; uninstall (the union of both
    records, as plan_settings keeps it) gives back the user's bytes, or no file at all."""
    original = (json.dumps(EXISTING[harness], indent=2) + "\n").encode() if existing else None
    data = json.loads(original) if existing else {}
    pre = settingsfile.events(harness)[0]
    legacy = [] if existing else ["file"]
    root = settingsfile.SPECS[harness].events_key is None
    legacy += ([] if root or "hooks" in data else ["hooks"]) + ([] if pre in (data if root else data.get("hooks", {}))
                                                                else ["event"])
    events_of(data, harness).setdefault(pre, []).append(settingsfile.settings_group(harness))
    before = hookcommand.dump_json(data, original)
    assert not settingsfile.hooked(before, harness)
    assert settingsfile.missing_events(before, harness) == settingsfile.events(harness)[1:]
    upgraded = settingsfile.merge_settings(before, harness)
    assert settingsfile.hooked(upgraded, harness)
    assert events_of(json.loads(upgraded), harness)[pre] == events_of(data, harness)[pre]  # it stays where it was
    created = list(dict.fromkeys(legacy + settingsfile.created_containers(original, harness)))
    assert settingsfile.unmerge_settings(upgraded, harness, created) == original
    assert settingsfile.unmerge_settings(before, harness, legacy) == original  # the old record alone still works


def test_copilot_hook_file_runs_the_after_check_after_every_call():
    data = json.loads(copilot.hooks_file())
    assert sorted(data["hooks"]) == ["permissionRequest", "postToolUse", "postToolUseFailure", "preToolUse"]
    assert data["hooks"]["preToolUse"][0]["bash"] == settingsfile.hook_command("copilot")
    for event in ("postToolUse", "postToolUseFailure"):
        assert data["hooks"][event] == [{"type": "command", "bash": settingsfile.hook_command("copilot", event),
                                         "timeoutSec": settingsfile.HOOK_TIMEOUT}]


def test_merge_refuses_what_it_cannot_merge_safely():
    from agentguard.installer.errors import AgentguardError
    for bad in (b"{not json", b"[1, 2]", b'{"hooks": []}', b'{"hooks": {"PreToolUse": {}}}', b"\xff\xfe"):
        with pytest.raises(AgentguardError):
            settingsfile.merge_settings(bad, "claude")


def test_an_older_agentguard_group_is_replaced_in_place():
    group = settingsfile.settings_group("claude")
    old = json.loads(json.dumps(group))
    old["hooks"][0]["command"] = old["hooks"][0]["command"].replace("agentguard doctor", "agentguard doctor!")
    mine = {"matcher": "Bash", "hooks": [{"type": "command", "command": "./mine.sh"}]}
    data = {"hooks": {"PreToolUse": [old, mine]}}
    merged = json.loads(settingsfile.merge_settings(json.dumps(data).encode(), "claude"))
    assert merged["hooks"]["PreToolUse"] == [group, mine]


def test_codex_trust_entry_is_added_and_taken_out_byte_for_byte():
    config = b'model = "o3"\n# my comment\n[projects."/x"]\ntrust_level = "trusted"\n'
    key, value = codex.codex_trust("/r/.codex/hooks.json", (0, 0), settingsfile.settings_group("codex"))
    group = settingsfile.settings_group("codex", "PostToolUse")
    post = codex.codex_trust("/r/.codex/hooks.json", (1, 0), group, "PostToolUse")
    assert post[0] == "/r/.codex/hooks.json:post_tool_use:1:0" and post[1] != value
    new, block = codex.add_trust(config, [(key, value), post])
    assert new.startswith(config) and codex.trusted_hash(new, key) == value
    assert codex.trusted_hash(new, post[0]) == post[1]
    assert codex.add_trust(new, [(key, value), post], block) == (new, None)
    assert codex.remove_trust(new, block) == config
    alone, block2 = codex.add_trust(None, [(key, value)])
    assert codex.remove_trust(alone, block2) == b""
    # an install from before the after-check trusted the pre-call hook only: its block is replaced
    both, block3 = codex.add_trust(alone, [(key, value), post], block2)
    assert codex.trusted_hash(both, post[0]) == post[1] and codex.remove_trust(both, block3) == b""
    # the user trusted our pre-call hook already: only the post-call entry is added (TOML allows no
    # table twice), and only it is taken out again
    mine = config + trust_table(key, value)
    added, block4 = codex.add_trust(mine, [(key, value), post])
    assert key not in block4 and post[0] in block4 and codex.remove_trust(added, block4) == mine
    from agentguard.installer.errors import AgentguardError
    with pytest.raises(AgentguardError):
        codex.add_trust(config + b'[hooks.state."%s"]\ntrusted_hash = "sha256:00"\n' % key.encode(), [(key, value)])
    odd, _ = codex.add_trust(None, [('/a "quoted" \\ path:pre_tool_use:0:0', value)])
    assert codex.trusted_hash(odd, '/a "quoted" \\ path:pre_tool_use:0:0') == value


def trust_table(key, value):
    return ('[hooks.state.%s]\ntrusted_hash = %s\n' % (json.dumps(key), json.dumps(value))).encode()


# -- install and uninstall with the real CLI -------------------------------------------------------
def _files(repo, home):
    return {"repo": snapshot(repo.path + "/.claude") if os.path.isdir(repo.path + "/.claude") else None,
            "codex": snapshot(str(home / ".codex")) if (home / ".codex").exists() else None}


def test_install_merges_and_uninstall_restores_every_byte(make_repo, tmp_path):
    repo, _ = make_repo(install=False)
    home = tmp_path / "home"
    os.makedirs(os.path.join(repo.path, ".claude"))
    os.makedirs(os.path.join(repo.path, ".gemini"))
    (home / ".codex").mkdir()
    files = {".claude/settings.local.json": json.dumps(EXISTING["claude"], indent=4).encode(),
             ".gemini/settings.json": b'{"ui": {"theme": "GitHub"}}',
             ".github/hooks/mine.json": b'{"version": 1, "hooks": {}}\n'}
    os.makedirs(os.path.join(repo.path, ".github", "hooks"))
    for rel, data in files.items():
        with open(os.path.join(repo.path, rel), "wb") as fh:
            fh.write(data)
    (home / ".codex" / "config.toml").write_bytes(b'model = "o3"\n')
    before_repo, before_home = snapshot(repo.path), snapshot(str(home))
    proc = repo.agentguard("install", "--harness", "all", "--verbose")
    assert ".codex/hooks.json" in proc.stdout and str(home / ".codex" / "config.toml") in proc.stdout
    settings = json.loads(open(os.path.join(repo.path, ".claude", "settings.local.json")).read())
    assert settings["permissions"] == EXISTING["claude"]["permissions"]
    assert settings["hooks"]["Stop"] == EXISTING["claude"]["hooks"]["Stop"]
    assert len(settings["hooks"]["PreToolUse"]) == 2
    hooks_json = os.path.realpath(os.path.join(repo.path, ".codex", "hooks.json"))
    for event in ("PreToolUse", "PostToolUse"):  # each of the two hooks has its trust entry
        key, value = codex.codex_trust(hooks_json, (0, 0), settingsfile.settings_group("codex", event), event)
        assert codex.trusted_hash((home / ".codex" / "config.toml").read_bytes(), key) == value
    assert "nothing changed" in repo.agentguard("install", "--harness", "all").stdout
    repo.agentguard("uninstall")
    after = snapshot(repo.path)
    assert set(after) - set(before_repo) <= {".git/agentguard", ".git/agentguard/lock"}
    assert {k: v for k, v in after.items() if k in before_repo} == before_repo
    assert snapshot(str(home)) == before_home


def test_uninstall_after_the_user_added_a_hook_keeps_theirs(make_repo, tmp_path):
    repo, _ = make_repo(install=False)
    repo.agentguard("install", "--harness", "claude,codex")
    path = os.path.join(repo.path, ".claude", "settings.local.json")
    data = json.load(open(path))
    mine = {"matcher": "Write", "hooks": [{"type": "command", "command": "./lint.sh"}]}
    data["hooks"]["PreToolUse"].append(mine)
    data["env"] = {"A": "1"}
    json.dump(data, open(path, "w"))
    proc = repo.agentguard("uninstall")
    assert "took agentguard's hook out of .claude/settings.local.json" in proc.stdout
    assert json.load(open(path)) == {"hooks": {"PreToolUse": [mine]}, "env": {"A": "1"}}
    assert not os.path.exists(os.path.join(repo.path, ".codex"))
    assert not (tmp_path / "home" / ".codex").exists()


def test_a_plain_install_sets_up_the_harnesses_in_use(make_repo, tmp_path):
    repo, _ = make_repo(install=False)
    home = tmp_path / "home"
    repo.agentguard("install")
    for rel in (".claude", ".codex", ".gemini", ".opencode", ".github"):
        assert not os.path.exists(os.path.join(repo.path, rel)), rel
    assert os.path.exists(os.path.join(repo.path, ".pi", "extensions", "agentguard.ts"))
    os.makedirs(os.path.join(repo.path, ".claude"))  # a repository that uses Claude Code
    (home / ".copilot").mkdir()  # a user of Copilot CLI
    repo.agentguard("install")
    assert settingsfile.hooked(open(os.path.join(repo.path, ".claude", "settings.local.json"), "rb").read(), "claude")
    assert os.path.exists(os.path.join(repo.path, ".github", "hooks", "agentguard.json"))
    assert not os.path.exists(os.path.join(repo.path, ".gemini"))
    repo.agentguard("install", "--harness", "all")
    assert os.path.exists(os.path.join(repo.path, ".gemini", "settings.json"))
    bad = repo.agentguard("install", "--harness", "claude,nonesuch", check=False)
    assert bad.returncode != 0 and "unknown harness 'nonesuch'" in bad.stderr


# -- the guard's files -------------------------------------------------------------------------------
@pytest.mark.parametrize("path, blocked", [
    (".claude/settings.json", True), (".claude/settings.local.json", True), (".claude/commands/x.md", False),
    (".codex/hooks.json", True), (".codex/config.toml", True), (".gemini/settings.json", True),
    (".gemini/GEMINI.md", False), (".opencode/plugins/other.js", True), ("opencode.json", True),
    (".github/hooks/x.json", True), (".github/copilot/settings.local.json", True),
    (".github/workflows/ci.yml", False), ("~/.claude/settings.json", True), ("~/.codex/config.toml", True),
    ("~/.gemini/settings.json", True), ("~/.copilot/config.json", True), ("~/.claude/CLAUDE.md", False),
    (".kilo/plugins/other.js", True), (".kilocode/plugin/x.ts", True), ("kilo.json", True), (".kilo/kilo.jsonc", True),
    (".kilo/command/x.md", False), ("~/.config/kilo/kilo.json", True), ("~/.kilo/plugins/x.js", True),
    ("~/.kilocode/plugin/x.ts", True), ("~/.config/kilo/command/x.md", False),
    (".amp/plugins/x.ts", True), (".amp/settings.json", True), ("~/.config/amp/plugins/x.ts", True),
    ("~/.amp/plugins/x.ts", True), ("~/.config/amp/settings.json", True),
    (".qwen/settings.json", True), ("~/.qwen/settings.json", True), ("~/.qwen/trustedFolders.json", True),
    (".augment/settings.json", True), (".augment/settings.local.json", True), ("~/.augment/settings.json", True),
    (".factory/hooks.json", True), (".factory/hooks/hooks.json", True), (".factory/settings.json", True),
    ("~/.factory/hooks.json", True), ("~/.factory/settings.json", True), (".factory/droids/x.md", False),
])
def test_the_files_that_switch_hooks_off_are_guarded(guarded, tmp_path, path, blocked):
    repo, _ = guarded
    target = str(tmp_path / "home" / path[2:]) if path.startswith("~/") else path
    proc = repo.agentguard("check", "--write", target, check=False)
    assert (proc.returncode == 1) == blocked, proc.stdout
    if blocked:
        assert "[rule: guard-files]" in proc.stdout
    if not path.startswith("~/") and blocked:
        rm = repo.agentguard("check", "rm -rf %s" % path.split("/")[0], check=False)
        assert rm.returncode == 1, rm.stdout


# -- the doctor: would each harness load the hook? ----------------------------------------------------
def test_doctor_reports_trust_per_harness(make_repo, tmp_path):
    repo, _ = make_repo(install=False)
    home = tmp_path / "home"
    repo.agentguard("install", "--harness", "claude,codex,gemini,copilot,opencode")
    checks = doctor_checks(repo)
    assert checks["adapters.codex.enabled"]["status"] == "warn"  # project not trusted
    assert checks["adapters.copilot.enabled"]["status"] == "warn"
    assert checks["adapters.claude.enabled"]["status"] == "pass"
    with open(home / ".codex" / "config.toml", "a") as fh:
        fh.write('\n[projects.%s]\ntrust_level = "trusted"\n' % json.dumps(repo.path))
    (home / ".copilot").mkdir()
    (home / ".copilot" / "config.json").write_text("// written by copilot\n// do not edit\n"
                                                    + json.dumps({"trustedFolders": [os.path.dirname(repo.path)]}))
    (home / ".gemini").mkdir()
    assert checks["adapters.gemini.enabled"]["status"] == "warn"  # folder trust is on by default
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps({repo.path: "TRUST_FOLDER"}))
    checks = doctor_checks(repo)
    assert checks["adapters.codex.enabled"]["status"] == "pass"
    assert checks["adapters.copilot.enabled"]["status"] == "pass"
    assert checks["adapters.gemini.enabled"]["status"] == "pass"
    # the hook trust entry gone: Codex would skip the hook without a word
    text = (home / ".codex" / "config.toml").read_text()
    untrusted = re.sub(r"\[hooks\.state\.[^\n]*\]\ntrusted_hash = [^\n]*\n", "", text)
    assert untrusted != text
    (home / ".codex" / "config.toml").write_text(untrusted)
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text('{"disableAllHooks": true}')
    checks = doctor_checks(repo)
    assert checks["adapters.codex"]["status"] == "fail" and "does not record its trust" in checks["adapters.codex"][
        "summary"]
    assert checks["adapters.codex"]["fix"] == "agentguard doctor --fix"
    assert checks["adapters.claude.enabled"]["status"] == "fail"
    # our group taken out of a settings file: the adapter fails, and --fix puts it back
    path = os.path.join(repo.path, ".gemini", "settings.json")
    with open(path, "w") as fh:
        fh.write('{"hooks": {"BeforeTool": []}}')
    assert doctor_checks(repo)["adapters.gemini"]["status"] == "fail"
    repo.agentguard("doctor", "--fix", check=False)
    assert settingsfile.hooked(open(path, "rb").read(), "gemini")
    assert doctor_checks(repo)["adapters.codex"]["status"] == "pass"


def test_doctor_fails_without_the_after_check_entries_and_fix_puts_them_back(make_repo, tmp_path):
    repo, _ = make_repo(install=False)
    home = tmp_path / "home"
    repo.agentguard("install", "--harness", "claude,codex,gemini,copilot")
    checks = doctor_checks(repo)
    for harness in ("claude", "codex", "gemini", "copilot"):
        assert checks["adapters." + harness]["status"] == "pass", checks["adapters." + harness]
    claude = os.path.join(repo.path, ".claude", "settings.local.json")
    data = json.load(open(claude))
    del data["hooks"]["PostToolUseFailure"]  # a failed call would go unchecked
    json.dump(data, open(claude, "w"))
    gemini = os.path.join(repo.path, ".gemini", "settings.json")
    data = json.load(open(gemini))
    data["hooks"]["AfterTool"][0]["hooks"][0]["command"] += " # off"
    json.dump(data, open(gemini, "w"))
    config = home / ".codex" / "config.toml"
    text = config.read_text()
    untrusted = re.sub(r"\[hooks\.state\.[^\n]*:post_tool_use:[^\n]*\]\ntrusted_hash = [^\n]*\n", "", text)
    assert untrusted != text and ":pre_tool_use:" in untrusted
    config.write_text(untrusted)  # Codex would skip the after-check without a word
    copilot = os.path.join(repo.path, ".github", "hooks", "agentguard.json")
    data = json.load(open(copilot))
    del data["hooks"]["postToolUse"]
    json.dump(data, open(copilot, "w"))
    checks = doctor_checks(repo)
    assert checks["adapters.claude"]["status"] == "fail" and "PostToolUseFailure" in checks["adapters.claude"][
        "summary"] and "PreToolUse" not in checks["adapters.claude"]["summary"]
    assert checks["adapters.gemini"]["status"] == "fail" and "AfterTool" in checks["adapters.gemini"]["summary"]
    assert checks["adapters.codex"]["status"] == "fail" and ":post_tool_use:0:0" in checks["adapters.codex"]["summary"]
    assert checks["adapters.copilot"]["status"] == "fail" and "modified" in checks["adapters.copilot"]["summary"]
    repo.agentguard("doctor", "--fix", check=False)
    checks = doctor_checks(repo)
    for harness in ("claude", "codex", "gemini", "copilot"):
        assert checks["adapters." + harness]["status"] == "pass", checks["adapters." + harness]
    assert settingsfile.hooked(open(claude, "rb").read(), "claude")
    assert settingsfile.hooked(open(gemini, "rb").read(), "gemini")


def test_the_fallback_judges_the_call_not_the_sessions_paths(guarded):
    """Every payload names the session's transcript and directory (`~/.claude/projects/...`,
    `~/.codex/sessions/...`): with a broken runtime those must not block every call, and a
    command that mentions them inside its own text is still judged on that text."""
    repo, _ = guarded
    os.unlink(os.path.join(repo.path, ".git", "agentguard", "check"))
    session = {"transcript_path": "/root/.claude/projects/x/git.jsonl", "cwd": repo.path + "/.codex/x"}
    for command, code in [("ls -la", 0), ('echo "cwd": "x" && git push', 2),
                          ('echo \\"transcript_path\\": \\"git\\"', 2)]:
        data = json.dumps(dict(CALLS["codex"](command), **session))
        proc = subprocess.run(["sh", "-c", settingsfile.hook_command("codex")], cwd=repo.path, env=repo.env, input=data,
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == code, (command, proc.stderr)
