"""The plugin harnesses that run the hook command, without their binaries: Kilo Code's plugin (the
template it shares with OpenCode's) and Amp's (published protocol: its handlers called by node with
events in the @ampcode/plugin shape), what install writes and uninstall takes back byte for byte, when
a plain install picks them up, what the doctor says. (tests/test_harness_e2e.py drives the real kilo
binary; the files that switch them off are in test_harness_settings' guarded-files table.)"""
import json
import os
import shutil
import subprocess
import sys

import pytest

from agentguard.installer.harness import adapters
from helpers import PI_PACKAGE, doctor_checks, need, need_path, snapshot

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "harness"))
from tamper import DELETED, deleting  # noqa: E402


KILO_PLUGIN = ".kilo/plugins/agentguard.js"
PLUGINS = {"kilo": KILO_PLUGIN, "amp": ".amp/plugins/agentguard.ts"}


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


@pytest.mark.parametrize("harness", sorted(PLUGINS))
def test_install_and_uninstall_give_back_every_byte(make_repo, harness):
    repo, _ = make_repo(install=False)
    folder = os.path.dirname(os.path.dirname(PLUGINS[harness]))
    for rel, text in ((folder + "/plugins/mine.js", "export default function () {}\n"),
                      (folder + "/command/x.md", "hi\n")):
        os.makedirs(os.path.dirname(os.path.join(repo.path, rel)), exist_ok=True)
        with open(os.path.join(repo.path, rel), "w") as fh:
            fh.write(text)
    before = snapshot(repo.path)
    repo.agentguard("install", "--harness", harness)
    assert os.path.exists(os.path.join(repo.path, PLUGINS[harness]))
    repo.agentguard("uninstall")
    after = snapshot(repo.path)
    assert set(after) - set(before) <= {".git/agentguard", ".git/agentguard/lock"}
    assert {k: v for k, v in after.items() if k in before} == before


@pytest.mark.parametrize("harness", sorted(PLUGINS))
def test_a_plain_install_sets_up_the_plugin_where_it_is_in_use(make_repo, tmp_path, harness):
    repo, _ = make_repo(install=False)
    repo.agentguard("install")
    assert not os.path.exists(os.path.join(repo.path, PLUGINS[harness]))
    (tmp_path / "home" / ".config" / harness).mkdir(parents=True)  # a user of the harness
    repo.agentguard("install")
    assert os.path.exists(os.path.join(repo.path, PLUGINS[harness]))


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


# -- Amp (published protocol) ------------------------------------------------------------------------
def amp(repo, events):
    """Amp's plugin, as install wrote it, loaded by node (jiti) and given ``events``; its answers."""
    need("node", shutil.which("node"))
    need_path(PI_PACKAGE)  # tests/node, where jiti comes from
    proc = subprocess.run(["node", os.path.join(HERE, "harness", "amp_probe.mjs"),
                           os.path.join(repo.path, PLUGINS["amp"]), repo.path],
                          cwd=repo.path, env=repo.env, input=json.dumps(events), capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return [json.loads(line)["answer"] for line in proc.stdout.splitlines()]


def call(tool, **arguments):
    return {"on": "tool.call", "event": {"toolUseID": "toolu_1", "tool": tool, "input": arguments}}


def test_amp_plugin_rejects_in_amps_terms_and_allows_the_rest(guarded):
    repo, bare = guarded
    repo.agentguard("install", "--harness", "amp")
    before = (repo.rev("main"), bare.rev("main"))
    answers = amp(repo, [call("Bash", cmd="git push --no-verify origin feat:main"),
                         call("Bash", cmd="git -c core.hooksPath=/dev/null commit -m sneaky"),
                         call("create_file", path=".git/hooks/pre-push", content="#!/bin/sh\nexit 0\n"),
                         call("edit_file", path=os.path.join(repo.path, ".amp", "plugins", "agentguard.ts"),
                              old_str="x", new_str="y"),
                         call("Bash", cmd="cd .. && git commit --no-verify -m x", cwd="sub"),
                         dict(call("Bash", cmd="git push origin feat:main"), helpers="throw"),
                         call("Bash", cmd="echo ok > ran.txt && git status --short"),
                         call("edit_file", path="src/app.py", old_str="a", new_str="b"),
                         call("Read", path=".git/hooks/pre-push")])
    rejected = [a for a in answers if a["action"] == "reject-and-continue"]
    assert [a["action"] for a in answers] == ["reject-and-continue"] * 6 + ["allow"] * 3, answers
    assert all(set(a) == {"action", "message"} for a in rejected)
    assert "[rule: no-verify]" in answers[0]["message"] and "core.hooksPath" in answers[1]["message"]
    assert "[rule: guard-files]" in answers[2]["message"] and "[rule: guard-files]" in answers[3]["message"]
    assert "[rule: no-verify]" in answers[4]["message"]
    assert "[rule: push-protected]" in answers[5]["message"], answers[5]
    assert (repo.rev("main"), bare.rev("main")) == before


def test_amp_after_a_call_that_deleted_a_hook_it_is_back_and_the_model_is_told(guarded):
    """tool.call takes the snapshot; Amp runs the command (here: the test, as Amp would); tool.result
    runs the after-check: the hook is back and the result the model reads says why; an ordinary call
    gets no answer (its result stays as it is)."""
    repo, _ = guarded
    repo.agentguard("install", "--harness", "amp")
    path = os.path.join(repo.path, ".git", "hooks", "pre-commit")
    with open(path, "rb") as fh:
        before = fh.read()
    command = deleting("pre-commit")
    assert amp(repo, [call("Bash", cmd=command)]) == [{"action": "allow"}]
    ran = subprocess.run(["sh", "-c", command], cwd=repo.path, env=repo.env, capture_output=True, text=True)
    assert DELETED in ran.stdout and not os.path.exists(path)
    result = {"on": "tool.result", "event": dict(call("Bash", cmd=command)["event"], status="done",
                                                   output=ran.stdout)}
    ordinary = {"on": "tool.result", "event": dict(call("Bash", cmd="ls")["event"], status="done", output="a\n")}
    answers = amp(repo, [result, ordinary])
    assert answers[0]["status"] == "done" and answers[0]["output"].startswith(ran.stdout), answers
    assert "[rule: tool-outcome]" in answers[0]["output"] and ".git/hooks/pre-commit" in answers[0]["output"]
    with open(path, "rb") as fh:
        assert fh.read() == before
    assert answers[1] is None


def test_amp_with_the_runtime_gone_git_is_rejected_and_the_model_told_after(guarded):
    repo, _ = guarded
    repo.agentguard("install", "--harness", "amp")
    os.unlink(os.path.join(repo.path, ".git", "agentguard", "check"))
    answers = amp(repo, [call("Bash", cmd="git push origin feat:main"), call("Bash", cmd="ls"),
                         {"on": "tool.result", "event": dict(call("Bash", cmd="ls")["event"], status="done",
                                                              output=[{"type": "text", "text": "a"}])}])
    assert answers[0]["action"] == "reject-and-continue" and "[rule: guard-error]" in answers[0]["message"]
    assert answers[1] == {"action": "allow"}
    told = answers[2]["output"]
    assert told[0] == {"type": "text", "text": "a"} and "its runtime copy is missing" in told[1]["text"], told


def test_doctor_audits_the_amp_plugin(make_repo, tmp_path):
    repo, _ = make_repo(install=False)
    repo.agentguard("install", "--harness", "amp")
    with open(os.path.join(repo.path, PLUGINS["amp"])) as fh:
        assert fh.readline() == "// @i-know-the-amp-plugin-api-is-wip-and-very-experimental-right-now\n"
    checks = doctor_checks(repo)
    assert checks["adapters.amp"]["status"] == "pass"
    enabled = checks["adapters.amp.enabled"]  # the plugin it wrote is no sign that Amp is used here
    assert enabled["status"] == "pass" and "not in use here" in enabled["summary"], enabled
    (tmp_path / "home" / ".config" / "amp").mkdir(parents=True)  # a user of Amp
    enabled = doctor_checks(repo)["adapters.amp.enabled"]
    assert enabled["status"] == "warn" and "PLUGINS=all" in enabled["fix"], enabled
    assert doctor_checks(repo, env=dict(repo.env, PLUGINS="all"))["adapters.amp.enabled"]["status"] == "pass"
    os.unlink(os.path.join(repo.path, PLUGINS["amp"]))
    assert doctor_checks(repo)["adapters.amp"]["status"] == "fail"
