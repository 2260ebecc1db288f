"""The harnesses whose hooks take Claude Code's shape in a settings file of their own (Qwen Code,
Auggie, Factory Droid), on what is theirs alone: the doctor's reading of their switches and trust,
the file install writes and uninstall takes back, and, for the two with no run here (their binaries
need their makers' servers), their hook fed the payloads they publish. (The hook's answers to the
shared calls are in tests/test_harness_settings.py; Qwen Code's binary runs in
tests/test_harness_e2e.py.)"""
import json
import os
import re
import subprocess

import pytest

from agentguard.installer.harness import settingsfile
from helpers import doctor_checks, snapshot


def _write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        fh.write(data if isinstance(data, str) else json.dumps(data))


# -- Qwen Code -----------------------------------------------------------------------------------------
def test_qwen_settings_file_is_written_as_qwen_keeps_it_and_taken_back(make_repo, tmp_path):
    """Qwen Code stamps "$version": 4 into a settings file without it at every start (and keeps a
    copy as settings.json.orig): the file install creates has it, so Qwen Code leaves it as written,
    and uninstall removes it whole. The matcher is anchored (Qwen Code reads it as a regex)."""
    repo, _ = make_repo(install=False)
    before = snapshot(repo.path)
    repo.agentguard("install", "--harness", "qwen")
    path = os.path.join(repo.path, ".qwen", "settings.json")
    data = json.load(open(path))
    assert data["$version"] == 4
    assert data["hooks"]["PreToolUse"][0]["matcher"] == "^(run_shell_command|monitor|write_file|edit|notebook_edit)$"
    assert data["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"] >= 1000  # milliseconds in 0.15.10
    assert sorted(data["hooks"]) == ["PostToolUse", "PostToolUseFailure", "PreToolUse"]
    repo.agentguard("uninstall")
    after = snapshot(repo.path)
    assert {k: v for k, v in after.items() if k in before} == before
    assert not os.path.exists(os.path.join(repo.path, ".qwen"))
    # the user's own file (Qwen Code stamped it already): back byte for byte
    mine = '{\n  "model": {\n    "name": "qwen3-coder"\n  },\n  "$version": 4\n}'
    _write(path, mine)
    repo.agentguard("install", "--harness", "qwen")
    assert settingsfile.hooked(open(path, "rb").read(), "qwen")
    repo.agentguard("uninstall")
    assert open(path).read() == mine


def test_qwen_doctor_reads_disable_all_hooks_and_folder_trust(make_repo, tmp_path):
    repo, _ = make_repo(install=False)
    home = tmp_path / "home"
    repo.agentguard("install", "--harness", "qwen")
    assert doctor_checks(repo)["adapters.qwen.enabled"]["status"] == "pass"
    assert doctor_checks(repo)["adapters.qwen"]["status"] == "pass"
    # a project file switches every hook off, the user's too
    project = os.path.join(repo.path, ".qwen", "settings.json")
    data = json.load(open(project))
    _write(project, dict(data, disableAllHooks=True))
    check = doctor_checks(repo)["adapters.qwen.enabled"]
    assert check["status"] == "fail" and "disableAllHooks" in check["summary"] and project in check["fix"]
    _write(project, data)
    _write(str(home / ".qwen" / "settings.json"), {"disableAllHooks": True})
    assert doctor_checks(repo)["adapters.qwen.enabled"]["status"] == "fail"
    # the project's false outranks the user's true
    _write(project, dict(data, disableAllHooks=False))
    assert doctor_checks(repo)["adapters.qwen.enabled"]["status"] == "pass"
    _write(project, data)
    # folder trust on: an untrusted folder loads no project hook
    _write(str(home / ".qwen" / "settings.json"), {"security": {"folderTrust": {"enabled": True}}})
    check = doctor_checks(repo)["adapters.qwen.enabled"]
    assert check["status"] == "warn" and "trustedFolders.json" in check["fix"]
    _write(str(home / ".qwen" / "trustedFolders.json"), {os.path.join(repo.path, "x"): "TRUST_PARENT"})
    assert doctor_checks(repo)["adapters.qwen.enabled"]["status"] == "pass"
    # our group taken out: the adapter fails, and --fix puts it back
    _write(project, {"hooks": {"PreToolUse": []}})
    assert doctor_checks(repo)["adapters.qwen"]["status"] == "fail"
    repo.agentguard("doctor", "--fix", check=False)
    assert settingsfile.hooked(open(project, "rb").read(), "qwen")


def test_a_plain_install_picks_up_qwen_by_its_folder(make_repo, tmp_path):
    repo, _ = make_repo(install=False)
    repo.agentguard("install")
    assert not os.path.exists(os.path.join(repo.path, ".qwen"))
    (tmp_path / "home" / ".qwen").mkdir()  # a user of Qwen Code
    repo.agentguard("install")
    assert settingsfile.hooked(open(os.path.join(repo.path, ".qwen", "settings.json"), "rb").read(), "qwen")


# -- Auggie and Factory Droid: published protocol ----------------------------------------------------
PAYLOADS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "harness", "payloads")
SETTINGS = {"auggie": ".augment/settings.local.json", "droid": ".factory/hooks.json"}


def installed_command(repo, harness, event):
    """The hook command of ``event`` as install wrote it into the harness's file."""
    with open(os.path.join(repo.path, SETTINGS[harness])) as fh:
        data = json.load(fh)
    events = data if harness == "droid" else data["hooks"]
    ours = [g for g in events[event] if "agentguard" in json.dumps(g)]
    assert len(ours) == 1 and re.search(ours[0]["matcher"], "x") is None
    return ours[0]["hooks"][0]["command"], ours[0]["matcher"]


def run_payload(repo, harness, name, event="PreToolUse"):
    """Feed ``payloads/<name>.json`` (its /work/repo made this repository) to the installed hook, run
    as both harnesses run a command with shell characters: ``bash -c COMMAND`` in the workspace."""
    with open(os.path.join(PAYLOADS, name + ".json")) as fh:
        text = fh.read().replace("/work/repo", repo.path)
    payload = json.loads(text)
    command, matcher = installed_command(repo, harness, event)
    assert re.search(matcher, payload["tool_name"]), (matcher, payload["tool_name"])
    return subprocess.run(["bash", "-c", command], cwd=repo.path, env=repo.env, input=text, capture_output=True,
                          text=True, timeout=60)


@pytest.mark.parametrize("harness, name, status, said", [
    ("auggie", "auggie-launch-process", 2, "[rule: no-verify]"),
    ("auggie", "auggie-remove-files", 2, "[rule: guard-files]"),
    ("auggie", "auggie-apply_patch", 2, "[rule: guard-files]"),
    ("auggie", "auggie-save-file", 0, ""),
    ("droid", "droid-Execute", 2, "core.hooksPath"),
    ("droid", "droid-Create", 2, "[rule: guard-files]"),
    ("droid", "droid-ApplyPatch", 2, "[rule: guard-files]"),
    ("droid", "droid-Edit", 0, ""),
])
def test_published_payloads_are_answered_in_the_harness_terms(guarded, harness, name, status, said):
    """Exit 2 with the reason on stderr: the block both read from a PreToolUse hook (Auggie gives the
    stderr text to the model, Droid too); nothing on stdout (Droid reads a JSON decision from stdout
    first, and another hook's allow there would mask a deny of ours)."""
    repo, bare = guarded
    repo.agentguard("install", "--harness", harness)
    before = (repo.rev("main"), bare.rev("main"), repo.staged())
    proc = run_payload(repo, harness, name)
    assert proc.returncode == status and said in proc.stderr and proc.stdout == "", (proc.stdout, proc.stderr)
    assert (repo.rev("main"), bare.rev("main"), repo.staged()) == before


@pytest.mark.parametrize("harness", ["auggie", "droid"])
def test_after_a_call_the_deleted_hook_is_back_and_the_model_told_in_the_harness_terms(guarded, harness):
    """Auggie: additionalContext under hookSpecificOutput with hookEventName PostToolUse (without it
    Auggie ignores the JSON), exit 0. Droid: exit 2 with the text on stderr, which its PostToolUse
    gives to the model."""
    repo, _ = guarded
    repo.agentguard("install", "--harness", harness)
    hook = os.path.join(repo.path, ".git", "hooks", "pre-push")
    before = open(hook, "rb").read()
    name = {"auggie": "auggie-launch-process", "droid": "droid-Execute"}[harness]
    run_payload(repo, harness, name)  # the snapshot before the call
    os.unlink(hook)
    proc = run_payload(repo, harness, name, "PostToolUse")
    if harness == "auggie":
        out = json.loads(proc.stdout)["hookSpecificOutput"]
        assert proc.returncode == 0 and out["hookEventName"] == "PostToolUse"
        said = out["additionalContext"]
    else:
        assert proc.returncode == 2 and proc.stdout == ""
        said = proc.stderr
    assert "[rule: tool-outcome]" in said and ".git/hooks/pre-push" in said
    assert open(hook, "rb").read() == before


@pytest.mark.parametrize("harness, rel, existing", [
    ("auggie", ".augment/settings.local.json",
     {"hooks": {"PreToolUse": [{"matcher": "launch-process", "hooks": [{"type": "command", "command": "/a.sh"}]}]},
      "model": "x"}),
    ("droid", ".factory/hooks.json", {"SessionStart": [{"hooks": [{"type": "command", "command": "echo hi"}]}]}),
])
def test_install_merges_and_uninstall_restores_every_byte(make_repo, harness, rel, existing):
    repo, _ = make_repo(install=False)
    for mine in (None, json.dumps(existing, indent=4) + "\n"):
        if mine is not None:
            _write(os.path.join(repo.path, rel), mine)
        before = snapshot(repo.path)
        repo.agentguard("install", "--harness", harness)
        assert settingsfile.hooked(open(os.path.join(repo.path, rel), "rb").read(), harness)
        assert doctor_checks(repo)["adapters." + harness]["status"] == "pass"
        repo.agentguard("uninstall")
        after = snapshot(repo.path)
        assert {k: v for k, v in after.items() if k in before} == before


def test_droid_doctor_reads_hooks_disabled_and_the_hooks_ours_hide(make_repo, tmp_path):
    repo, _ = make_repo(install=False)
    repo.agentguard("install", "--harness", "droid,auggie")
    checks = doctor_checks(repo)
    assert checks["adapters.droid.enabled"]["status"] == "pass"
    assert checks["adapters.auggie.enabled"]["status"] == "pass" and checks["adapters.auggie"]["status"] == "pass"
    settings = os.path.join(repo.path, ".factory", "settings.json")
    _write(settings, {"hooks": {"hooksDisabled": True}})
    check = doctor_checks(repo)["adapters.droid.enabled"]
    assert check["status"] == "fail" and "hooksDisabled" in check["summary"] and settings in check["fix"]
    os.unlink(settings)
    _write(str(tmp_path / "home" / ".factory" / "hooks.json"), {"hooksDisabled": True})
    assert doctor_checks(repo)["adapters.droid.enabled"]["status"] == "fail"
    os.unlink(str(tmp_path / "home" / ".factory" / "hooks.json"))
    # the team's settings.json PreToolUse hooks, hidden by the event in .factory/hooks.json; a legacy file
    _write(settings, {"hooks": {"PreToolUse": [{"matcher": "Execute", "hooks": [{"type": "command",
                                                                                 "command": "/lint.sh"}]}]}})
    _write(os.path.join(repo.path, ".factory", "hooks", "hooks.json"), {"Stop": []})
    check = doctor_checks(repo)["adapters.droid"]
    assert check["status"] == "fail" and ".factory/settings.json" in check["summary"] \
        and "hooks/hooks.json" in check["summary"]


def test_a_plain_install_picks_up_auggie_and_droid_by_their_folders(make_repo, tmp_path):
    repo, _ = make_repo(install=False)
    os.makedirs(os.path.join(repo.path, ".augment"))  # a repository that uses Auggie
    (tmp_path / "home" / ".factory").mkdir()  # a user of Factory Droid
    repo.agentguard("install")
    assert settingsfile.hooked(open(os.path.join(repo.path, ".augment", "settings.local.json"), "rb").read(),
                               "auggie")
    assert settingsfile.hooked(open(os.path.join(repo.path, ".factory", "hooks.json"), "rb").read(), "droid")
