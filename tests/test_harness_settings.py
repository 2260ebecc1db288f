"""The settings-file harnesses (Claude Code, Codex, Gemini CLI, Copilot CLI, OpenCode) without
their binaries: the hook command install writes, run by a real sh against the real runtime copy;
merging into settings files users already have and taking exactly that out again; Codex's trust
entry; the guard's new files; which harnesses a plain install sets up; what the doctor says.
(tests/test_harness_e2e.py drives the real binaries.)"""
import json
import os
import re
import subprocess

import pytest

from agentguard.installer import harnesses as H
from helpers import snapshot

CALLS = {
    "claude": lambda cmd: {"tool_name": "Bash", "tool_input": {"command": cmd}},
    "codex": lambda cmd: {"tool_name": "Bash", "tool_input": {"command": cmd}},
    "gemini": lambda cmd: {"tool_name": "run_shell_command", "tool_input": {"command": cmd}},
    "copilot": lambda cmd: {"toolName": "bash", "toolArgs": json.dumps({"command": cmd})},
    "opencode": lambda cmd: {"tool": "bash", "args": {"command": cmd}},
}
WRITES = {
    "claude": lambda p: {"tool_name": "Write", "tool_input": {"file_path": p, "content": "x"}},
    "codex": lambda p: {"tool_name": "apply_patch",
                        "tool_input": {"command": "*** Begin Patch\n*** Add File: %s\n+x\n*** End Patch\n" % p}},
    "gemini": lambda p: {"tool_name": "write_file", "tool_input": {"file_path": p, "content": "x"}},
    "copilot": lambda p: {"toolName": "create", "toolArgs": {"path": p, "file_text": "x"}},
    "opencode": lambda p: {"tool": "write", "args": {"filePath": p, "content": "x"}},
}


def hook(repo, harness, payload, cwd=None):
    """Run the hook command exactly as install wrote it, through sh, with ``payload`` on stdin."""
    data = json.dumps(dict(payload, cwd=cwd or repo.path))
    return subprocess.run(["sh", "-c", H.hook_command(harness)], cwd=cwd or repo.path, env=repo.env, input=data,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("harness", H.NAMES)
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
        assert proc.returncode == (0 if harness == "claude" else code), (payload, proc.stdout, proc.stderr)
        assert said in proc.stderr
        if said and harness == "claude":  # its JSON deny (exit 0), so the model is not shown the hook command
            assert proc.returncode == 0
            assert said in json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecisionReason"]
        elif said and harness == "copilot":
            assert json.loads(proc.stdout)["permissionDecision"] == "deny"
        elif said and harness == "gemini":
            assert json.loads(proc.stdout)["decision"] == "deny"
    assert (repo.rev("main"), bare.rev("main")) == before


def test_hook_from_a_subdirectory_and_a_nested_cd(guarded):
    repo, _ = guarded
    os.makedirs(os.path.join(repo.path, "sub"))
    proc = hook(repo, "codex", CALLS["codex"]("cd .. && git commit --no-verify -m x"),
                cwd=os.path.join(repo.path, "sub"))
    assert proc.returncode == 2 and "[rule: no-verify]" in proc.stderr


@pytest.mark.parametrize("broken", ["missing", "crashing", "silent"])
def test_a_broken_runtime_blocks_git_and_lets_the_rest_run(guarded, broken):
    """Exit 1 means allow to three of these harnesses: a runtime that is gone or fails must not
    end in 1. Calls that involve git or the guard's files are blocked; others run."""
    repo, bare = guarded
    check = os.path.join(repo.path, ".git", "agentguard", "check")
    os.unlink(check)
    if broken != "missing":
        with open(check, "w") as fh:
            fh.write("#!/bin/sh\ncat >/dev/null\n%s\n"
                     % ("echo boom >&2; exit 1" if broken == "crashing" else "exit 127"))
        os.chmod(check, 0o755)
    before = (repo.rev("main"), bare.rev("main"))
    for harness in H.NAMES:
        proc = hook(repo, harness, CALLS[harness]("git push origin HEAD:main"))
        assert proc.returncode == 2 and "[rule: guard-error]" in proc.stderr, (harness, proc.stderr)
        proc = hook(repo, harness, WRITES[harness](".git/hooks/pre-push"))
        assert proc.returncode == 2, harness
        proc = hook(repo, harness, CALLS[harness]("ls -la"))
        assert proc.returncode == 0, (harness, proc.stderr)
    assert (repo.rev("main"), bare.rev("main")) == before


def test_the_involves_pattern_as_grep_reads_it_covers_the_analysers():
    """The shell fallback's ERE is the analyser's INVOLVES without word boundaries: it must match
    every text INVOLVES matches (it may match more)."""
    from agentguard.hooks.analyser.analyse import INVOLVES
    script = H.hook_script()
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
    script.write_text("#!/bin/sh\n" + H.hook_script())
    if subprocess.run(["sh", "-c", "command -v shellcheck"], capture_output=True).returncode == 0:
        proc = subprocess.run(["shellcheck", "-s", "sh", str(script)], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout
    elif os.environ.get("CI"):
        pytest.fail("shellcheck is missing")
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
        proc = subprocess.run(["sh", "-c", H.hook_command("codex")], cwd=repo.path, env=repo.env, input=data,
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == code, (data, proc.stderr)


def test_the_runtime_gives_up_before_the_harness_does(guarded, monkeypatch):
    """A decision that hangs ends at harnesshook.TIMEOUT in a block (the harness's own timeout,
    longer, would allow)."""
    import io
    import time
    from agentguard.hooks.analyser import check, harnesshook
    monkeypatch.setattr(harnesshook, "TIMEOUT", 1)
    monkeypatch.setattr(check, "analyse", lambda **kw: time.sleep(30))
    err = io.StringIO()
    started = time.monotonic()
    payload = json.dumps(CALLS["codex"]("git push origin HEAD:main")).encode()
    assert harnesshook.main("codex", stdin=io.BytesIO(payload), out=io.StringIO(), err=err) == 2
    assert time.monotonic() - started < 5 and "timed out" in err.getvalue()
    payload = json.dumps(CALLS["codex"]("ls")).encode()
    assert harnesshook.main("codex", stdin=io.BytesIO(payload), out=io.StringIO(), err=io.StringIO()) == 0


# -- merging into the user's settings ---------------------------------------------------------------
EXISTING = {
    "claude": {"permissions": {"allow": ["Bash(npm test)"], "deny": ["Read(.env)"]}, "model": "x",
               "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./mine.sh"}]}],
                         "Stop": [{"hooks": [{"type": "command", "command": "echo done"}]}]}},
    "codex": {"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}},
    "gemini": {"ui": {"theme": "GitHub"}, "hooks": {}},
}


@pytest.mark.parametrize("harness", H.SETTINGS_HARNESSES)
@pytest.mark.parametrize("indent", [None, 2, 4])
def test_merge_then_unmerge_gives_back_every_byte(harness, indent):
    original = (json.dumps(EXISTING[harness], indent=indent) + ("\n" if indent else "")).encode()
    merged = H.merge_settings(original, harness)
    data = json.loads(merged)
    if indent:  # indented as the user's file was: the diff a team sees is agentguard's entry alone
        assert merged.startswith(b'{\n' + b" " * indent + b'"')
    for key, value in EXISTING[harness].items():
        if key != "hooks":
            assert data[key] == value
    event = H.SETTINGS[harness][1]
    assert data["hooks"][event][-1] == H.settings_group(harness)
    for other, groups in EXISTING[harness].get("hooks", {}).items():
        for group in groups:
            assert group in data["hooks"][other]
    assert H.merge_settings(merged, harness) == merged  # a second install changes nothing
    # what uninstall does when the file changed since: our group out, theirs kept
    created = H.created_containers(original, harness)
    assert json.loads(H.unmerge_settings(merged, harness, created)) == EXISTING[harness]
    assert H.unmerge_settings(H.merge_settings(None, harness), harness, H.created_containers(None, harness)) is None


def test_merge_refuses_what_it_cannot_merge_safely():
    from agentguard.installer.errors import AgentguardError
    for bad in (b"{not json", b"[1, 2]", b'{"hooks": []}', b'{"hooks": {"PreToolUse": {}}}', b"\xff\xfe"):
        with pytest.raises(AgentguardError):
            H.merge_settings(bad, "claude")


def test_an_older_agentguard_group_is_replaced_in_place():
    group = H.settings_group("claude")
    old = json.loads(json.dumps(group))
    old["hooks"][0]["command"] = old["hooks"][0]["command"].replace("agentguard doctor", "agentguard doctor!")
    mine = {"matcher": "Bash", "hooks": [{"type": "command", "command": "./mine.sh"}]}
    data = {"hooks": {"PreToolUse": [old, mine]}}
    merged = json.loads(H.merge_settings(json.dumps(data).encode(), "claude"))
    assert merged["hooks"]["PreToolUse"] == [group, mine]


def test_codex_trust_entry_is_added_and_taken_out_byte_for_byte():
    config = b'model = "o3"\n# my comment\n[projects."/x"]\ntrust_level = "trusted"\n'
    key, value = H.codex_trust("/r/.codex/hooks.json", (0, 0))
    new, block = H.add_trust(config, key, value)
    assert new.startswith(config) and H.trusted_hash(new, key) == value
    assert H.add_trust(new, key, value, block) == (new, None)
    assert H.remove_trust(new, block) == config
    alone, block2 = H.add_trust(None, key, value)
    assert H.remove_trust(alone, block2) == b""
    from agentguard.installer.errors import AgentguardError
    with pytest.raises(AgentguardError):
        H.add_trust(config + b'[hooks.state."%s"]\ntrusted_hash = "sha256:00"\n' % key.encode(), key, value)
    odd, _ = H.add_trust(None, '/a "quoted" \\ path:pre_tool_use:0:0', value)
    assert H.trusted_hash(odd, '/a "quoted" \\ path:pre_tool_use:0:0') == value


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
    files = {".claude/settings.json": json.dumps(EXISTING["claude"], indent=4).encode(),
             ".gemini/settings.json": b'{"ui": {"theme": "GitHub"}}',
             ".github/hooks/mine.json": b'{"version": 1, "hooks": {}}\n'}
    os.makedirs(os.path.join(repo.path, ".github", "hooks"))
    for rel, data in files.items():
        with open(os.path.join(repo.path, rel), "wb") as fh:
            fh.write(data)
    (home / ".codex" / "config.toml").write_bytes(b'model = "o3"\n')
    before_repo, before_home = snapshot(repo.path), snapshot(str(home))
    proc = repo.agentguard("install", "--harness", "all")
    assert ".codex/hooks.json" in proc.stdout and str(home / ".codex" / "config.toml") in proc.stdout
    settings = json.loads(open(os.path.join(repo.path, ".claude", "settings.json")).read())
    assert settings["permissions"] == EXISTING["claude"]["permissions"]
    assert settings["hooks"]["Stop"] == EXISTING["claude"]["hooks"]["Stop"]
    assert len(settings["hooks"]["PreToolUse"]) == 2
    key, value = H.codex_trust(os.path.realpath(os.path.join(repo.path, ".codex", "hooks.json")), (0, 0))
    assert H.trusted_hash((home / ".codex" / "config.toml").read_bytes(), key) == value
    assert "nothing changed" in repo.agentguard("install", "--harness", "all").stdout
    repo.agentguard("uninstall")
    after = snapshot(repo.path)
    assert set(after) - set(before_repo) <= {".git/agentguard", ".git/agentguard/lock"}
    assert {k: v for k, v in after.items() if k in before_repo} == before_repo
    assert snapshot(str(home)) == before_home


def test_uninstall_after_the_user_added_a_hook_keeps_theirs(make_repo, tmp_path):
    repo, _ = make_repo(install=False)
    repo.agentguard("install", "--harness", "claude,codex")
    path = os.path.join(repo.path, ".claude", "settings.json")
    data = json.load(open(path))
    mine = {"matcher": "Write", "hooks": [{"type": "command", "command": "./lint.sh"}]}
    data["hooks"]["PreToolUse"].append(mine)
    data["env"] = {"A": "1"}
    json.dump(data, open(path, "w"))
    proc = repo.agentguard("uninstall")
    assert "took agentguard's hook out of .claude/settings.json" in proc.stdout
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
    assert H.hooked(open(os.path.join(repo.path, ".claude", "settings.json"), "rb").read(), "claude")
    assert os.path.exists(os.path.join(repo.path, ".github", "hooks", "agentguard.json"))
    assert not os.path.exists(os.path.join(repo.path, ".gemini"))
    repo.agentguard("install", "--harness", "all")
    assert os.path.exists(os.path.join(repo.path, ".gemini", "settings.json"))
    bad = repo.agentguard("install", "--harness", "claude,cursor", check=False)
    assert bad.returncode != 0 and "unknown harness 'cursor'" in bad.stderr


# -- the guard's files -------------------------------------------------------------------------------
@pytest.mark.parametrize("path, blocked", [
    (".claude/settings.json", True), (".claude/settings.local.json", True), (".claude/commands/x.md", False),
    (".codex/hooks.json", True), (".codex/config.toml", True), (".gemini/settings.json", True),
    (".gemini/GEMINI.md", False), (".opencode/plugins/other.js", True), ("opencode.json", True),
    (".github/hooks/x.json", True), (".github/copilot/settings.local.json", True),
    (".github/workflows/ci.yml", False), ("~/.claude/settings.json", True), ("~/.codex/config.toml", True),
    ("~/.gemini/settings.json", True), ("~/.copilot/config.json", True), ("~/.claude/CLAUDE.md", False),
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
def _doctor(repo):
    proc = repo.agentguard("doctor", "--json", check=False)
    return {c["id"]: c for c in json.loads(proc.stdout)["checks"]}


def test_doctor_reports_trust_per_harness(make_repo, tmp_path):
    repo, _ = make_repo(install=False)
    home = tmp_path / "home"
    repo.agentguard("install", "--harness", "claude,codex,gemini,copilot,opencode")
    checks = _doctor(repo)
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
    checks = _doctor(repo)
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
    checks = _doctor(repo)
    assert checks["adapters.codex"]["status"] == "fail" and "does not record its trust" in checks["adapters.codex"][
        "summary"]
    assert checks["adapters.codex"]["fix"] == "agentguard doctor --fix"
    assert checks["adapters.claude.enabled"]["status"] == "fail"
    # our group taken out of a settings file: the adapter fails, and --fix puts it back
    path = os.path.join(repo.path, ".gemini", "settings.json")
    with open(path, "w") as fh:
        fh.write('{"hooks": {"BeforeTool": []}}')
    assert _doctor(repo)["adapters.gemini"]["status"] == "fail"
    repo.agentguard("doctor", "--fix", check=False)
    assert H.hooked(open(path, "rb").read(), "gemini")
    assert _doctor(repo)["adapters.codex"]["status"] == "pass"


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
        proc = subprocess.run(["sh", "-c", H.hook_command("codex")], cwd=repo.path, env=repo.env, input=data,
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == code, (command, proc.stderr)
