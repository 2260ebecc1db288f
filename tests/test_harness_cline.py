"""Cline's hook files without its binary (tests/test_harness_e2e.py drives cline 3.0.65 for real): the
hook file install writes, run by a real sh against the real runtime copy, with payloads in the shape
Cline hands over (tests/harness/payloads/cline-*.json, captured from 3.0.65): every shape of
``run_commands``'s input judged command by command, the refusal that names an untrusted command
printed back as text and never run, the guarded hook folders, the doctor, install and uninstall."""
import json
import os
import subprocess

import pytest

from harnesscalls import cline_refusal
from helpers import doctor_checks, snapshot

PAYLOADS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "harness", "payloads")


def run_hook(repo, event, payload):
    """The hook file install wrote for ``event``, run the way Cline runs it (its ``#!`` interpreter)."""
    path = os.path.join(repo.path, ".clinerules", "hooks", event)
    return subprocess.run(["/bin/sh", path], cwd=repo.path, env=repo.env, input=json.dumps(payload),
                          capture_output=True, text=True, timeout=60)


def captured(name, repo, **input_):
    with open(os.path.join(PAYLOADS, "cline-%s.json" % name)) as fh:
        payload = json.load(fh)
    payload["workspaceRoots"] = [repo.path]
    payload["tool_call"]["input"] = input_ or payload["tool_call"]["input"]
    return payload


@pytest.fixture
def cline_repo(guarded):
    repo, bare = guarded
    repo.agentguard("install", "--harness", "cline")
    return repo, bare


@pytest.mark.parametrize("input_", [
    {"commands": ["ls", "git push --no-verify origin HEAD:main"]},
    {"commands": "git push --no-verify origin HEAD:main"},
    {"command": "git push --no-verify origin HEAD:main"},
    {"cmd": "git push --no-verify origin HEAD:main"},
    {"command": "git", "args": ["push", "--no-verify", "origin", "HEAD:main"]},
    {"commands": [{"command": "git", "args": ["push", "--no-verify", "origin", "HEAD:main"]}]},
])
def test_every_shape_of_run_commands_is_judged(cline_repo, input_):
    repo, _ = cline_repo
    refused, said = cline_refusal(run_hook(repo, "PreToolUse", captured("run_commands", repo, **input_)))
    assert refused and "[rule: no-verify]" in said, said


def test_the_swapped_command_prints_an_untrusted_reason_and_runs_none_of_it(cline_repo, tmp_path):
    repo, _ = cline_repo
    hostile = "git push --no-verify origin HEAD:main '; touch %s/a; ' \"$(touch %s/b)\" `touch %s/c` \\'" \
        % ((tmp_path,) * 3)
    proc = run_hook(repo, "PreToolUse", captured("run_commands", repo, commands=[hostile]))
    refused, said = cline_refusal(proc)  # runs the swapped command through sh
    assert refused and said.strip() == proc.stderr.strip()
    # whatever text a reason holds, the swapped command prints it and nothing else
    from agentguard.hooks.harness.cline import refuse
    for reason in (hostile, "it's\nnew\\c\\n $HOME %s", "-n"):
        answer, status = refuse(reason, {"toolName": "run_commands"})
        command = answer["overrideInput"]["commands"][0]
        for shell in ("sh", "bash"):
            ran = subprocess.run([shell, "-c", command], capture_output=True, text=True)
            assert (ran.returncode, ran.stdout) == (1, reason + "\n") and status == 0, (shell, command, ran.stdout)
    assert not any(os.path.exists(tmp_path / n) for n in "abc")


def test_a_refused_edit_or_patch_cannot_be_written_and_says_why(cline_repo):
    repo, _ = cline_repo
    hook = os.path.join(repo.path, ".git", "hooks", "pre-push")
    for payload in (captured("editor", repo, path=hook, new_text="exit 0\n"),
                    captured("apply_patch", repo, input="*** Begin Patch\n*** Add File: %s\n+x\n*** End Patch" % hook)):
        answer = json.loads(run_hook(repo, "PreToolUse", payload).stdout)
        assert "[rule: guard-files]" in answer["contextModification"]
        assert answer["overrideInput"] in ({"path": "/dev/null/agentguard refused this edit, see the hook context",
                                            "new_text": ""},
                                           {"input": "agentguard refused this patch, see the hook context"})
    ordinary = run_hook(repo, "PreToolUse", captured("editor", repo, path=os.path.join(repo.path, "a.py"),
                                                     new_text="x"))
    assert ordinary.stdout == "" and ordinary.returncode == 0


def test_a_tool_it_cannot_swap_cancels_the_task(cline_repo):
    repo, _ = cline_repo
    payload = captured("run_commands", repo)
    payload["tool_call"] = {"id": "c", "name": "mcp__fs__write", "input": {"command": "git push --no-verify"}}
    answer = json.loads(run_hook(repo, "PreToolUse", payload).stdout)
    assert answer["cancel"] is True and "[rule: no-verify]" in answer["errorMessage"]


def test_read_tools_pass_and_the_after_check_tells_the_model(cline_repo):
    repo, _ = cline_repo
    read = captured("run_commands", repo)
    read["tool_call"] = {"id": "c", "name": "read_files", "input": {"files": [{"path": ".git/config"}]}}
    assert run_hook(repo, "PreToolUse", read).stdout == ""
    run_hook(repo, "PreToolUse", captured("run_commands", repo, commands=["rm .git/hooks/pre-commit"]))
    os.unlink(os.path.join(repo.path, ".git", "hooks", "pre-commit"))
    after = captured("run_commands", repo, commands=["rm .git/hooks/pre-commit"])
    after["hookName"] = "tool_result"
    after["tool_result"] = after.pop("tool_call")
    told = json.loads(run_hook(repo, "PostToolUse", after).stdout)
    assert "[rule: tool-outcome]" in told["contextModification"]
    assert os.path.exists(os.path.join(repo.path, ".git", "hooks", "pre-commit"))


@pytest.mark.parametrize("path, blocked", [
    (".clinerules/hooks/PreToolUse", True), (".clinerules/hooks/PostToolUse.sh", True),
    (".cline/hooks/PreToolUse.py", True), (".clinerules/style.md", False),
    ("~/.cline/hooks/PreToolUse", True), ("~/Documents/Cline/Hooks/PreToolUse", True),
])
def test_the_hook_folders_are_guarded(guarded, tmp_path, path, blocked):
    repo, _ = guarded
    target = str(tmp_path / "home" / path[2:]) if path.startswith("~/") else path
    proc = repo.agentguard("check", "--write", target, check=False)
    assert (proc.returncode == 1) == blocked, proc.stdout


def test_install_doctor_and_uninstall(make_repo, tmp_path):
    """A plain install picks Cline up from .clinerules; the doctor checks the files and warns about
    another PreToolUse hook (whose overrideInput would win); uninstall leaves the user's files byte for byte."""
    repo, _ = make_repo(install=False)
    os.makedirs(os.path.join(repo.path, ".clinerules", "hooks"))
    with open(os.path.join(repo.path, ".clinerules", "hooks", "TaskStart"), "w") as fh:
        fh.write("#!/bin/sh\necho '{}'\n")
    before = snapshot(repo.path)
    repo.agentguard("install")
    assert os.path.exists(os.path.join(repo.path, ".clinerules", "hooks", "PreToolUse"))
    checks = doctor_checks(repo)
    assert checks["adapters.cline"]["status"] == "pass" and checks["adapters.cline.enabled"]["status"] == "pass"
    other = tmp_path / "home" / ".cline" / "hooks" / "PreToolUse.sh"
    other.parent.mkdir(parents=True)
    other.write_text("echo '{}'\n")
    assert doctor_checks(repo)["adapters.cline.enabled"]["status"] == "warn"
    os.unlink(os.path.join(repo.path, ".clinerules", "hooks", "PostToolUse"))
    assert doctor_checks(repo)["adapters.cline"]["status"] == "fail"
    repo.agentguard("uninstall")
    after = snapshot(repo.path)
    assert {k: v for k, v in after.items() if k in before} == before
    assert not [k for k in after if k.startswith(".clinerules/hooks/") and k not in before]


def test_install_leaves_a_hook_file_of_the_users_alone(make_repo):
    repo, _ = make_repo(install=False)
    os.makedirs(os.path.join(repo.path, ".clinerules", "hooks"))
    mine = os.path.join(repo.path, ".clinerules", "hooks", "PreToolUse")
    with open(mine, "w") as fh:
        fh.write("#!/bin/sh\necho '{}'\n")
    proc = repo.agentguard("install", "--harness", "cline", check=False)
    assert proc.returncode != 0 and ".clinerules/hooks/PreToolUse already exists" in proc.stderr, proc.stderr
    assert open(mine).read() == "#!/bin/sh\necho '{}'\n"
