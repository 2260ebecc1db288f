"""The harnesses whose hooks take Claude Code's shape in a settings file of their own (Qwen Code,
Auggie, Factory Droid), on what is theirs alone: the doctor's reading of their switches and trust,
the file install writes and uninstall takes back, and, for the two with no run here (their binaries
need their makers' servers), their hook fed the payloads they publish. (The hook's answers to the
shared calls are in tests/test_harness_settings.py; Qwen Code's binary runs in
tests/test_harness_e2e.py.)"""
import json
import os

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
