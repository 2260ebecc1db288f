"""The real harnesses load the files `agentguard install` wrote into a real repository and
refuse before git is reached: pi (npm), Hermes Agent and gptme (PyPI), driven without a model.
After each call they run the after-check: what a call did to the guard is undone and the model
reads why in that call's result; an ordinary call shows it nothing."""
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "harness"))
from tamper import DELETED, deleting  # noqa: E402
from helpers import PI_PACKAGE, need_path, replace_in_file  # noqa: E402

ROOT = os.path.dirname(HERE)
NODE = os.path.join(HERE, "node")
HERMES_PY = os.environ.get("AGENTGUARD_TEST_HERMES_PYTHON", os.path.join(ROOT, ".venv-hermes", "bin", "python"))
GPTME_PY = os.environ.get("AGENTGUARD_TEST_GPTME_PYTHON", os.path.join(ROOT, ".venv-gptme", "bin", "python"))


def run(argv, repo, stdin, env=None, timeout=240):
    proc = subprocess.run(argv, cwd=repo.path, env=env or repo.env, input=stdin, capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


def sentinel(repo, name):
    return os.path.join(repo.path, name)


# -- pi ----------------------------------------------------------------------------------------

def test_pi_extension_blocks_through_the_extension_runner(guarded):
    repo, _ = guarded
    need_path(PI_PACKAGE)
    requests = [
        {"kind": "bash", "command": "git push origin feat:main"},
        {"kind": "bash", "command": "git commit --no-verify -m x"},
        {"kind": "bash", "command": "git -c core.hooksPath=/dev/null commit -m x"},
        {"kind": "bash", "command": "git status && ls"},
        {"kind": "write", "path": ".git/hooks/pre-push"},
        {"kind": "edit", "path": ".agentguard.toml"},
        {"kind": "write", "path": "src/app.py"},
        {"kind": "user_bash", "command": "git branch -f main feat"},
        {"kind": "user_bash", "command": "echo hi"},
    ]
    out = run(["node", os.path.join(NODE, "pi_probe.mjs"), repo.path], repo, json.dumps(requests))
    assert any(p.endswith(".pi/extensions/agentguard.ts") for p in out[0]["loaded"])
    assert [o["block"] for o in out] == [True, True, True, False, True, True, False, True, False]
    assert "[rule: push-protected]" in out[0]["reason"] and "[rule: no-verify]" in out[1]["reason"]
    assert "[rule: guard-files]" in out[4]["reason"] and "[rule: protected-move]" in out[7]["reason"]


def test_pi_session_runs_only_what_the_extension_allows(guarded):
    repo, bare = guarded
    need_path(PI_PACKAGE)
    main, remote = repo.rev("main"), bare.rev("main")
    out = run(["node", os.path.join(NODE, "pi_session.mjs"), repo.path,
               "git push origin feat:main --no-verify; touch BLOCKED_RAN", "touch ALLOWED_RAN"], repo, "")
    assert out[0]["isError"] and "agentguard: blocked" in out[0]["text"]
    assert not out[1]["isError"]
    assert not os.path.exists(sentinel(repo, "BLOCKED_RAN")), "a blocked command must never run"
    assert os.path.exists(sentinel(repo, "ALLOWED_RAN"))
    assert repo.rev("main") == main and bare.rev("main") == remote


def pre_commit(repo):
    path = os.path.join(repo.path, ".git", "hooks", "pre-commit")
    if not os.path.exists(path):
        return None
    with open(path, "rb") as fh:
        return fh.read(), os.access(path, os.X_OK)


def test_pi_after_a_call_that_deleted_a_hook_it_is_back_and_the_model_is_told(guarded):
    """A real pi session: the extension's tool_result handler runs the after-check once the bash tool
    ran; the result the model reads gets the reason (and is marked an error)."""
    repo, _ = guarded
    need_path(PI_PACKAGE)
    before = pre_commit(repo)
    out = run(["node", os.path.join(NODE, "pi_session.mjs"), repo.path, deleting("pre-commit"),
               "echo ok > ran.txt"], repo, "")
    assert DELETED in out[0]["text"], out  # the call ran and really deleted it
    assert out[0]["isError"] and "[rule: tool-outcome]" in out[0]["text"], out
    assert ".git/hooks/pre-commit" in out[0]["text"], out
    assert pre_commit(repo) == before
    assert not out[1]["isError"] and "agentguard" not in out[1]["text"], out
    assert os.path.exists(sentinel(repo, "ran.txt"))


def test_pi_without_the_tool_result_handler_the_hook_stays_deleted(guarded):
    """The control: the same session with the extension's tool_result handler switched off."""
    repo, _ = guarded
    need_path(PI_PACKAGE)
    replace_in_file(os.path.join(repo.path, ".pi", "extensions", "agentguard.ts"),
                    'pi.on("tool_result"', 'pi.on("tool_result_unused"')
    out = run(["node", os.path.join(NODE, "pi_session.mjs"), repo.path, deleting("pre-commit")], repo, "")
    assert DELETED in out[0]["text"] and "tool-outcome" not in out[0]["text"], out
    assert pre_commit(repo) is None


# -- Hermes Agent --------------------------------------------------------------------------------

def hermes_env(repo, tmp_path, enabled=True, project_plugins=True):
    home = tmp_path / "hermes-home"
    home.mkdir(exist_ok=True)
    (home / "config.yaml").write_text("plugins:\n  enabled:\n    - agentguard\n" if enabled else "plugins: {}\n")
    env = dict(repo.env, HERMES_HOME=str(home))
    if project_plugins:
        env["HERMES_ENABLE_PROJECT_PLUGINS"] = "1"
    return env


def test_hermes_plugin_blocks_terminal_writes_patches_and_process_input(guarded, tmp_path):
    repo, bare = guarded
    need_path(HERMES_PY)
    calls = [
        ["terminal", {"command": "git push origin feat:main; touch BLOCKED_RAN"}],
        ["terminal", {"command": "touch ALLOWED_RAN"}],
        ["terminal", {"command": "git commit -m x", "workdir": repo.path}],
        ["write_file", {"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\nexit 0\n"}],
        ["patch", {"mode": "replace", "path": ".agentguard.toml", "old_string": "a", "new_string": "b"}],
        ["patch", {"mode": "patch",
                   "patch": "*** Begin Patch\n*** Update File: gptme.toml\n@@\n-a\n+b\n*** End Patch\n"}],
        ["process", {"action": "write", "session_id": "x", "data": "git push --no-verify origin feat\n"}],
        ["write_file", {"path": "notes.txt", "content": "fine\n"}],
    ]
    out = run([HERMES_PY, os.path.join(HERE, "harness", "hermes_driver.py")], repo, json.dumps(calls),
              env=hermes_env(repo, tmp_path))
    blocked = [o["block"] is not None for o in out]
    assert blocked == [True, False, True, True, True, True, True, False], out
    assert json.loads(out[0]["result"])["error"].startswith("agentguard: blocked")
    assert not os.path.exists(sentinel(repo, "BLOCKED_RAN"))
    assert os.path.exists(sentinel(repo, "ALLOWED_RAN"))
    assert open(sentinel(repo, "notes.txt")).read() == "fine\n"
    assert "agentguard install" in open(os.path.join(repo.path, ".git", "hooks", "pre-commit")).read()


def test_hermes_without_the_switches_loads_nothing(guarded, tmp_path):
    """Hermes fails open when the plugin is not switched on: the doctor warns about exactly this."""
    repo, _ = guarded
    need_path(HERMES_PY)
    for env in (hermes_env(repo, tmp_path, enabled=False), hermes_env(repo, tmp_path, project_plugins=False)):
        out = run([HERMES_PY, os.path.join(HERE, "harness", "hermes_driver.py")], repo,
                  json.dumps([["terminal", {"command": "git push origin feat:main --dry-run"}]]), env=env)
        assert out[0]["block"] is None


def test_hermes_after_a_call_that_deleted_a_hook_it_is_back_and_the_model_is_told(guarded, tmp_path):
    """Hermes's real dispatch: transform_tool_result (the hook whose answer reaches the model) runs
    the after-check and adds its reason to the terminal tool's JSON result."""
    repo, _ = guarded
    need_path(HERMES_PY)
    before = pre_commit(repo)
    calls = [["terminal", {"command": deleting("pre-commit")}], ["terminal", {"command": "echo ok > ran.txt"}],
             ["read_file", {"path": "ran.txt"}]]
    out = run([HERMES_PY, os.path.join(HERE, "harness", "hermes_driver.py")], repo, json.dumps(calls),
              env=hermes_env(repo, tmp_path))
    assert out[0]["block"] is None  # the check before the call could not read it
    result = json.loads(out[0]["result"])
    assert DELETED in result["output"], result  # the call ran and really deleted it
    assert "[rule: tool-outcome]" in result["agentguard"] and ".git/hooks/pre-commit" in result["agentguard"]
    assert pre_commit(repo) == before
    assert "agentguard" not in out[1]["result"] and "agentguard" not in out[2]["result"], out
    assert os.path.exists(sentinel(repo, "ran.txt"))


def test_the_python_client_fallback_sees_through_quotes(guarded):
    """client._fallback (Hermes and gptme, the runtime copy gone): a word hidden from the pattern by
    quotes or backslashes, or spelt by ANSI-C quoting, is blocked; an ordinary command is not (#26)."""
    import importlib.util

    repo, _ = guarded
    path = os.path.join(repo.path, ".hermes", "plugins", "agentguard", "client.py")
    spec = importlib.util.spec_from_file_location("agentguard_hermes_client_fallback", path)
    client = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(client)
    for command in ("g''it push origin HEAD:main", 'g\\it push', "$'\\x67it' push", "git push"):
        assert client._fallback(command, "gone")[0], command
    for command in ("ls -la", "echo \"it's done\"", ""):
        assert client._fallback(command, "gone") == (False, ""), command


def test_the_python_client_after_check_is_never_silent(guarded, monkeypatch):
    """client.after (Hermes and gptme): nothing changed, nothing said; the after-check could not run
    (no runtime copy, a crash, no answer in time): the model is told so, never silence."""
    import importlib.util
    import time

    repo, _ = guarded
    path = os.path.join(repo.path, ".hermes", "plugins", "agentguard", "client.py")
    spec = importlib.util.spec_from_file_location("agentguard_hermes_client", path)
    client = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(client)
    monkeypatch.setattr(os, "environ", dict(repo.env))
    assert client.after(repo.path) == (False, "")
    check = os.path.join(repo.path, ".git", "agentguard", "check")
    os.rename(check, check + ".away")
    changed, said = client.after(repo.path)
    assert changed and "could not check" in said and "its runtime copy is missing" in said
    for script, why in (("echo boom; exit 1", "JSONDecodeError"), ("exit 5", "status 5"), ("sleep 30", "timed out")):
        with open(check, "w") as fh:
            fh.write("#!/bin/sh\n%s\n" % script)
        os.chmod(check, 0o755)
        monkeypatch.setattr(client, "TIMEOUT", 1)
        began = time.monotonic()
        changed, said = client.after(repo.path)
        assert changed and "[rule: guard-error]" in said and why in said, (script, said)
        assert time.monotonic() - began < 5


def test_hermes_without_the_plugin_the_deleted_hook_stays_deleted(guarded, tmp_path):
    """The control: the plugin not switched on."""
    repo, _ = guarded
    need_path(HERMES_PY)
    out = run([HERMES_PY, os.path.join(HERE, "harness", "hermes_driver.py")], repo,
              json.dumps([["terminal", {"command": deleting("pre-commit")}]]), env=hermes_env(repo, tmp_path,
                                                                                              enabled=False))
    assert DELETED in out[0]["result"] and "tool-outcome" not in out[0]["result"], out
    assert pre_commit(repo) is None


# -- gptme -----------------------------------------------------------------------------------

def gptme(repo, blocks, env=None):
    need_path(GPTME_PY)
    env = dict(env or repo.env, GPTME_TIKTOKEN_TIMEOUT="0")
    return run([GPTME_PY, os.path.join(HERE, "harness", "gptme_driver.py"), repo.path], repo, json.dumps(blocks),
               env=env)


def test_gptme_plugin_and_completion_verifier(guarded):
    repo, bare = guarded
    main = repo.rev("main")
    out = gptme(repo, ["```shell\ngit push origin feat:main && touch BLOCKED_RAN\n```",
                       "```shell\ntouch ALLOWED_RAN\n```",
                       "```save .git/hooks/pre-push\n#!/bin/sh\nexit 0\n```"])
    assert "agentguard: blocked" in out[0]["outputs"][0]
    assert not os.path.exists(sentinel(repo, "BLOCKED_RAN"))
    assert os.path.exists(sentinel(repo, "ALLOWED_RAN"))
    assert "agentguard: blocked" in " ".join(out[2]["outputs"])
    assert "agentguard install" in open(os.path.join(repo.path, ".git", "hooks", "pre-push")).read()
    assert out[-1]["denylisted"] is False, "gptme would close the session without verifying"
    assert out[-1]["complete"] == "closed"
    assert repo.rev("main") == main


def test_gptme_verifier_refuses_completion_while_main_holds_local_work(guarded):
    """gptme asks its confirm hooks (agentguard's plugin: the pre-check) before it runs the workspace's
    verifier; a verifier agentguard's own analyser refused would close the session unverified."""
    repo, _ = guarded
    script = os.path.join(repo.path, ".gptme", "verify-completion.sh")
    assert repo.agentguard("check", "--", script).returncode == 0
    with open(os.path.join(repo.path, ".git", "refs", "heads", "main"), "w") as fh:
        fh.write(repo.rev("feat") + "\n")  # what `git branch -C feat main` leaves behind
    # with no known-good snapshot (so no pre-check puts main back first: test_outliving), only the doctor tells
    shutil.rmtree(os.path.join(repo.path, ".git", "agentguard", "outcome"))
    out = gptme(repo, [])
    verdict = out[-1]["complete"]
    assert verdict.startswith("retry: ") and "branches.ahead" in verdict and "<verifier-output" in verdict


def test_gptme_after_a_call_that_deleted_a_hook_it_is_back_and_the_model_is_told(guarded):
    """gptme's real execute path: the plugin's tool.execute.post hook runs the after-check and
    yields a system message after the tool's output."""
    repo, _ = guarded
    before = pre_commit(repo)
    out = gptme(repo, ["```shell\n%s\n```" % deleting("pre-commit", via="python"), "```shell\necho ok > ran.txt\n```"])
    said = "\n".join(out[0]["outputs"])
    assert DELETED in said, out  # the call ran and really deleted it
    assert "[rule: tool-outcome]" in out[0]["outputs"][-1] and ".git/hooks/pre-commit" in said, out
    assert pre_commit(repo) == before
    assert "agentguard" not in "\n".join(out[1]["outputs"]), out
    assert os.path.exists(sentinel(repo, "ran.txt"))


def test_gptme_without_the_plugin_the_deleted_hook_stays_deleted(guarded):
    """The control: gptme.toml that does not enable the plugin."""
    repo, _ = guarded
    with open(os.path.join(repo.path, "gptme.toml"), "w") as fh:
        fh.write("[plugins]\npaths = []\nenabled = []\n")
    out = gptme(repo, ["```shell\n%s\n```" % deleting("pre-commit", via="python")])
    said = "\n".join(out[0]["outputs"])
    assert DELETED in said and "tool-outcome" not in said, out
    assert pre_commit(repo) is None


# -- install, uninstall, selection ---------------------------------------------------------

def test_harness_selection_and_no_adapters(make_repo):
    repo, _ = make_repo(install=False)
    repo.agentguard("install", "--harness", "pi")
    assert os.path.exists(os.path.join(repo.path, ".pi", "extensions", "agentguard.ts"))
    assert not os.path.exists(os.path.join(repo.path, ".hermes")) and not os.path.exists(
        os.path.join(repo.path, "gptme.toml"))
    repo.agentguard("uninstall")
    assert not os.path.exists(os.path.join(repo.path, ".pi"))
    repo.agentguard("install", "--no-adapters")
    assert not os.path.exists(os.path.join(repo.path, ".pi"))
    proc = repo.agentguard("install", "--harness", "vscode", check=False)
    assert proc.returncode == 2 and "unknown harness" in proc.stderr


GPTME_TOML = b"""# my gptme settings
[prompt]
about_user = "likes tests"  # keep me

[plugins]
# my plugins
paths = ["~/plugins"]   # trailing comment
enabled = []

[env]
FOO = "bar"
"""


def test_gptme_toml_is_merged_and_restored_exactly(make_repo):
    repo, _ = make_repo(install=False)
    path = os.path.join(repo.path, "gptme.toml")
    with open(path, "wb") as fh:
        fh.write(GPTME_TOML)
    os.chmod(path, 0o640)
    repo.agentguard("install")
    merged = open(path, "rb").read()
    assert b"# my gptme settings" in merged and b"# trailing comment" in merged and b"# my plugins" in merged
    import tomllib
    data = tomllib.loads(merged.decode())
    assert data["plugins"] == {"paths": [".gptme/plugins", "~/plugins"], "enabled": ["agentguard"]}
    assert data["prompt"] == {"about_user": "likes tests"} and data["env"] == {"FOO": "bar"}
    repo.agentguard("install")  # idempotent: the original stays the original
    repo.agentguard("uninstall")
    assert open(path, "rb").read() == GPTME_TOML
    assert oct(os.stat(path).st_mode & 0o777) == oct(0o640)
    for d in (".pi", ".hermes", ".gptme"):
        assert not os.path.exists(os.path.join(repo.path, d)), d


def test_adapters_refuse_when_the_runtime_cannot_answer(guarded, tmp_path):
    """No decision (runtime deleted): git is blocked, the rest flows."""
    repo, _ = guarded
    need_path(HERMES_PY)
    os.unlink(os.path.join(repo.path, ".git", "agentguard", "check"))
    out = run([HERMES_PY, os.path.join(HERE, "harness", "hermes_driver.py")], repo,
              json.dumps([["terminal", {"command": "git status"}], ["terminal", {"command": "echo hi"}]]),
              env=hermes_env(repo, tmp_path))
    assert out[0]["block"] and "guard-error" in out[0]["block"]
    assert out[1]["block"] is None


def test_hermes_fails_open_on_a_malformed_block(guarded, tmp_path):
    """Why the plugin always returns {"action": "block", "message": ...}: Hermes ignores a block
    without a message (it fails open). A second plugin that returns one proves it, next to ours."""
    repo, _ = guarded
    need_path(HERMES_PY)
    bad = os.path.join(repo.path, ".hermes", "plugins", "sloppy")
    os.makedirs(bad)
    with open(os.path.join(bad, "plugin.yaml"), "w") as fh:
        fh.write("name: sloppy\nversion: '1'\ndescription: x\nkind: standalone\nprovides_hooks: [pre_tool_call]\n")
    with open(os.path.join(bad, "__init__.py"), "w") as fh:
        fh.write("def register(ctx):\n    ctx.register_hook('pre_tool_call', lambda **kw: {'action': 'block'})\n")
    env = hermes_env(repo, tmp_path)
    with open(os.path.join(env["HERMES_HOME"], "config.yaml"), "w") as fh:
        fh.write("plugins:\n  enabled:\n    - sloppy\n")
    out = run([HERMES_PY, os.path.join(HERE, "harness", "hermes_driver.py")], repo,
              json.dumps([["terminal", {"command": "touch SLOPPY_RAN"}]]), env=env)
    assert out[0]["block"] is None and os.path.exists(sentinel(repo, "SLOPPY_RAN")), "malformed block fails open"
    with open(os.path.join(env["HERMES_HOME"], "config.yaml"), "w") as fh:
        fh.write("plugins:\n  enabled:\n    - sloppy\n    - agentguard\n")
    out = run([HERMES_PY, os.path.join(HERE, "harness", "hermes_driver.py")], repo,
              json.dumps([["terminal", {"command": "git commit -m x; touch GUARDED_RAN"}]]), env=env)
    assert out[0]["block"] and "commit-on-protected" in out[0]["block"]
    assert not os.path.exists(sentinel(repo, "GUARDED_RAN"))
