"""The plugin harnesses that run the hook command without their binaries: Kilo Code's plugin (the
template it shares with OpenCode's), what install writes and uninstall takes back byte for byte, when
a plain install picks it up, the files that would switch it off, what the doctor says.
(tests/test_harness_e2e.py drives the real kilo binary.)"""
import os
import shutil
import subprocess
import sys

import pytest

from agentguard.installer.harness import adapters
from helpers import doctor_checks, need, snapshot

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "harness"))

KILO_PLUGIN = ".kilo/plugins/agentguard.js"


def test_kilo_plugin_is_the_opencode_template_named_for_kilo(tmp_path):
    """One template serves both: Kilo's plugin differs from OpenCode's only in the harness it names."""
    rendered = {rel: data for rel, data, _ in adapters.files_for(["opencode", "kilo"], "agentguard")}
    kilo, opencode = rendered[KILO_PLUGIN].decode(), rendered[".opencode/plugins/agentguard.js"].decode()
    assert kilo == opencode.replace("OpenCode", "Kilo Code").replace('"agentguard", "opencode"',
                                                                        '"agentguard", "kilo"')
    assert "@" + "HARNESS" not in kilo
    need("node", shutil.which("node"))
    path = tmp_path / "agentguard.mjs"
    path.write_text(kilo)
    proc = subprocess.run(["node", "--check", str(path)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_kilo_install_and_uninstall_give_back_every_byte(make_repo, tmp_path):
    repo, _ = make_repo(install=False)
    for rel, text in ((".kilo/plugins/mine.js", "export const Mine = async () => ({})\n"),
                      (".kilo/command/x.md", "hi\n"), ("kilo.json", '{"share": "disabled"}\n')):
        os.makedirs(os.path.dirname(os.path.join(repo.path, rel)) or repo.path, exist_ok=True)
        with open(os.path.join(repo.path, rel), "w") as fh:
            fh.write(text)
    before = snapshot(repo.path)
    repo.agentguard("install", "--harness", "kilo")
    assert os.path.exists(os.path.join(repo.path, KILO_PLUGIN))
    repo.agentguard("uninstall")
    after = snapshot(repo.path)
    assert set(after) - set(before) <= {".git/agentguard", ".git/agentguard/lock"}
    assert {k: v for k, v in after.items() if k in before} == before


def test_a_plain_install_sets_up_kilo_where_it_is_in_use(make_repo, tmp_path):
    repo, _ = make_repo(install=False)
    repo.agentguard("install")
    assert not os.path.exists(os.path.join(repo.path, ".kilo"))
    (tmp_path / "home" / ".config" / "kilo").mkdir(parents=True)  # a user of Kilo Code
    repo.agentguard("install")
    assert os.path.exists(os.path.join(repo.path, KILO_PLUGIN))


def test_deleting_the_kilo_plugin_is_refused(guarded):
    repo, _ = guarded
    repo.agentguard("install", "--harness", "kilo")
    proc = repo.agentguard("check", "rm " + KILO_PLUGIN, check=False)
    assert proc.returncode == 1 and "[rule: guard-files]" in proc.stdout, proc.stdout


def test_doctor_audits_the_kilo_plugin(make_repo):
    repo, _ = make_repo(install=False)
    repo.agentguard("install", "--harness", "kilo")
    checks = doctor_checks(repo)
    assert checks["adapters.kilo"]["status"] == "pass"
    enabled = checks["adapters.kilo.enabled"]
    assert enabled["status"] == "pass" and "without a word" in enabled["summary"]
    for switch in ("KILO_PURE", "KILO_DISABLE_PROJECT_CONFIG"):
        checks = doctor_checks(repo, env=dict(repo.env, **{switch: "1"}))
        assert checks["adapters.kilo.enabled"]["status"] == "warn", checks["adapters.kilo.enabled"]
        assert switch in checks["adapters.kilo.enabled"]["fix"]
    path = os.path.join(repo.path, KILO_PLUGIN)
    with open(path, "a") as fh:
        fh.write("// edited\n")
    checks = doctor_checks(repo)
    assert checks["adapters.kilo"]["status"] == "fail" and "modified" in checks["adapters.kilo"]["summary"]
    os.unlink(path)
    assert doctor_checks(repo)["adapters.kilo"]["status"] == "fail"
    repo.agentguard("doctor", "--fix", check=False)
    assert doctor_checks(repo)["adapters.kilo"]["status"] == "pass"


@pytest.mark.slow
@pytest.mark.parametrize("off", ["KILO_DISABLE_PROJECT_CONFIG", "a plugin that fails to load"])
def test_hole_kilo_without_our_plugin_loaded_the_push_lands_without_a_word(guarded, off):
    """Known hole: Kilo Code runs no project plugin with KILO_DISABLE_PROJECT_CONFIG set (nor with
    --pure / KILO_PURE), and skips a plugin that fails to load with only a line in its log: the run
    goes on, the push lands, and nothing on its output says the guard was not there. The doctor warns
    about the switches (test_doctor_audits_the_kilo_plugin) and checks the plugin byte for byte."""
    import agent_kilo
    need("the kilo CLI (tests/node)", agent_kilo.BINARY)
    repo, bare = guarded
    repo.agentguard("install", "--harness", "kilo", "--no-push-guard")
    extra = {k: v for k, v in repo.env.items() if k.startswith("GIT_") or k in ("PATH", "LC_ALL")}
    if off.startswith("KILO_"):
        extra[off] = "1"
    else:
        with open(os.path.join(repo.path, KILO_PLUGIN), "a") as fh:
            fh.write("\nthis is not javascript(\n")
    result = agent_kilo.run(repo.path, repo.env["HOME"], [("shell", "git push --no-verify origin feat:main")],
                            extra_env=extra)
    assert result["code"] == 0, result["stderr"][-2000:]
    assert bare.rev("main") == repo.rev("feat"), result["tool_results"]
    assert "agentguard" not in result["stdout"] + result["stderr"]
