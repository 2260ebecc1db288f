"""Windsurf and Cursor, by their published protocol (neither runs here: IDEs with hosted models): the
hook entries install merges into .windsurf/hooks.json and .cursor/hooks.json, each run by a real sh
against the real runtime copy with payloads in the published shape (tests/harness/payloads/windsurf-*,
cursor-*): answers (bytes and exit status) and their effect, the after-check after each call, the
guarded hook files, the doctor, a plain install by their folders, uninstall byte for byte."""
import json
import os
import subprocess

import pytest

from helpers import doctor_checks, snapshot

PAYLOADS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "harness", "payloads")
FILES = {"windsurf": ".windsurf/hooks.json", "cursor": ".cursor/hooks.json"}


def payload(name, repo, **fields):
    with open(os.path.join(PAYLOADS, name + ".json")) as fh:
        text = fh.read().replace("/work/repo", repo.path)
    data = json.loads(text)
    for key, value in fields.items():
        if isinstance(value, dict) and isinstance(data.get(key), dict):
            data[key] = dict(data[key], **value)
        else:
            data[key] = value
    return data


def run(repo, harness, event, data):
    """The command install wrote for ``event``, run through sh in the repository (as the harness runs it)."""
    with open(os.path.join(repo.path, FILES[harness])) as fh:
        entries = json.load(fh)["hooks"][event]
    commands = [e["command"] for e in entries if "agentguard" in e.get("command", "")]
    assert len(commands) == 1, entries
    return subprocess.run(["sh", "-c", commands[0]], cwd=repo.path, env=repo.env, input=json.dumps(data),
                          capture_output=True, text=True, timeout=60)


@pytest.fixture
def both(guarded):
    repo, bare = guarded
    repo.agentguard("install", "--harness", "windsurf,cursor")
    return repo, bare


def test_windsurf_blocks_with_exit_2_only(both):
    repo, bare = both
    before = (repo.rev("main"), bare.rev("main"))
    push = payload("windsurf-pre_run_command", repo,
                   tool_info={"command_line": "git push --no-verify origin HEAD:main"})
    proc = run(repo, "windsurf", "pre_run_command", push)
    assert (proc.returncode, proc.stdout) == (2, "") and "[rule: no-verify]" in proc.stderr
    hook = payload("windsurf-pre_write_code", repo,
                   tool_info={"file_path": os.path.join(repo.path, ".git/hooks/pre-push")})
    proc = run(repo, "windsurf", "pre_write_code", hook)
    assert proc.returncode == 2 and "[rule: guard-files]" in proc.stderr
    for event, name in (("pre_run_command", "windsurf-pre_run_command"), ("pre_write_code", "windsurf-pre_write_code")):
        proc = run(repo, "windsurf", event, payload(name, repo))
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    assert (repo.rev("main"), bare.rev("main")) == before


def test_cursor_denies_in_json_and_with_exit_2(both):
    repo, bare = both
    before = (repo.rev("main"), bare.rev("main"))
    push = "git push --no-verify origin HEAD:main"
    for event, data in (("beforeShellExecution", payload("cursor-beforeShellExecution", repo, command=push)),
                        ("preToolUse", payload("cursor-preToolUse-Shell", repo, tool_input={"command": push}))):
        proc = run(repo, "cursor", event, data)
        answer = json.loads(proc.stdout)
        assert proc.returncode == 2 and answer["permission"] == "deny", (event, proc.stdout, proc.stderr)
        assert "[rule: no-verify]" in answer["agent_message"] and answer["agent_message"] == answer["user_message"]
    write = payload("cursor-preToolUse-Write", repo,
                    tool_input={"file_path": os.path.join(repo.path, ".cursor/hooks.json")})
    proc = run(repo, "cursor", "preToolUse", write)
    assert proc.returncode == 2 and "[rule: guard-files]" in json.loads(proc.stdout)["agent_message"]
    for event, name in (("beforeShellExecution", "cursor-beforeShellExecution"),
                        ("preToolUse", "cursor-preToolUse-Shell"), ("preToolUse", "cursor-preToolUse-Write")):
        proc = run(repo, "cursor", event, payload(name, repo))
        assert (proc.returncode, proc.stdout) == (0, ""), (event, proc.stderr)
    assert (repo.rev("main"), bare.rev("main")) == before


@pytest.mark.parametrize("harness, event, name", [
    ("windsurf", "post_run_command", "windsurf-post_run_command"),
    ("cursor", "postToolUse", "cursor-postToolUse"),
    ("cursor", "afterShellExecution", "cursor-afterShellExecution"),
    ("cursor", "afterFileEdit", "cursor-afterFileEdit"),
])
def test_after_each_call_a_deleted_hook_is_back_and_said(both, harness, event, name):
    repo, _ = both
    path = os.path.join(repo.path, ".git", "hooks", "pre-commit")
    before = open(path, "rb").read()
    pre = ("windsurf-pre_run_command", "pre_run_command") if harness == "windsurf" else \
        ("cursor-beforeShellExecution", "beforeShellExecution")
    assert run(repo, harness, pre[1], payload(pre[0], repo)).returncode == 0  # the snapshot before the call
    os.unlink(path)
    proc = run(repo, harness, event, payload(name, repo))
    said = proc.stderr if harness == "windsurf" else json.loads(proc.stdout)["additional_context"]
    assert proc.returncode == (2 if harness == "windsurf" else 0), proc.stderr
    assert "[rule: tool-outcome]" in said and ".git/hooks/pre-commit" in said
    assert open(path, "rb").read() == before
    proc = run(repo, harness, event, payload(name, repo))  # an ordinary call: nothing said
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")


@pytest.mark.parametrize("path, blocked", [
    (".windsurf/hooks.json", True), ("~/.codeium/windsurf/hooks.json", True), (".windsurf/rules/x.md", False),
    (".cursor/hooks.json", True), (".cursor/hooks/check.sh", True), ("~/.cursor/hooks.json", True),
    (".cursor/rules/x.mdc", False),
])
def test_their_hook_files_are_guarded(guarded, tmp_path, path, blocked):
    repo, _ = guarded
    target = str(tmp_path / "home" / path[2:]) if path.startswith("~/") else path
    proc = repo.agentguard("check", "--write", target, check=False)
    assert (proc.returncode == 1) == blocked, proc.stdout


def test_install_by_their_folders_doctor_and_uninstall_byte_for_byte(make_repo):
    repo, _ = make_repo(install=False)
    mine = {".windsurf/hooks.json":
            b'{\n    "hooks": {\n        "post_write_code": [{"command": "./fmt.sh"}]\n    }\n}\n',
            ".cursor/hooks.json": b'{"version": 1, "hooks": {"afterFileEdit": [{"command": "./fmt.sh"}]}}\n'}
    for rel, data in mine.items():
        os.makedirs(os.path.dirname(os.path.join(repo.path, rel)))
        with open(os.path.join(repo.path, rel), "wb") as fh:
            fh.write(data)
    before = snapshot(repo.path)
    repo.agentguard("install")  # picked up by their folders
    for harness, rel in FILES.items():
        data = json.load(open(os.path.join(repo.path, rel)))
        assert data["hooks"][next(iter(json.loads(mine[rel])["hooks"]))][0]["command"] == "./fmt.sh"
        assert any("agentguard" in e["command"] for e in data["hooks"]["pre_run_command" if harness == "windsurf"
                                                                        else "beforeShellExecution"])
    cursor = json.load(open(os.path.join(repo.path, FILES["cursor"])))
    ours = [e for event in ("preToolUse", "beforeShellExecution") for e in cursor["hooks"][event]
            if "agentguard" in e["command"]]
    assert cursor["version"] == 1 and len(ours) == 2 and all(e.get("failClosed") is True for e in ours)
    checks = doctor_checks(repo)
    for harness in FILES:
        assert checks["adapters." + harness]["status"] == "pass", checks["adapters." + harness]
        assert checks["adapters.%s.enabled" % harness]["status"] == "pass"
    cursor["hooks"]["onSomething"] = []
    json.dump(cursor, open(os.path.join(repo.path, FILES["cursor"]), "w"))
    assert doctor_checks(repo)["adapters.cursor.enabled"]["status"] == "warn"
    del cursor["version"]
    json.dump(cursor, open(os.path.join(repo.path, FILES["cursor"]), "w"))
    assert doctor_checks(repo)["adapters.cursor.enabled"]["status"] == "fail"
    cursor["version"] = 1
    del cursor["hooks"]["onSomething"]
    with open(os.path.join(repo.path, FILES["cursor"]), "w") as fh:
        json.dump(cursor, fh)
    repo.agentguard("uninstall")
    after = snapshot(repo.path)
    assert after[".windsurf/hooks.json"] == before[".windsurf/hooks.json"]
    assert json.loads(open(os.path.join(repo.path, FILES["cursor"])).read()) == json.loads(mine[".cursor/hooks.json"])


def test_a_new_file_goes_away_on_uninstall(make_repo):
    repo, _ = make_repo(install=False)
    before = snapshot(repo.path)
    repo.agentguard("install", "--harness", "windsurf,cursor")
    assert json.load(open(os.path.join(repo.path, FILES["cursor"])))["version"] == 1
    repo.agentguard("uninstall")
    after = snapshot(repo.path)
    assert {k: v for k, v in after.items() if not k.startswith(".git/")} == \
        {k: v for k, v in before.items() if not k.startswith(".git/")}
