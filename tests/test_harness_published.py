"""The harnesses with no binary this machine can run (proven by their published protocol): the hook
commands exactly as install wrote them into each harness's own file, run through sh with payloads in
the published shape (tests/harness/payloads/<harness>-<tool>.json, with @COMMAND@, @PATH@ and @CWD@
filled in), against real repositories and a real bare remote. What the harness would do with the
answer (run the command, or not) is done here as its docs say it does; each descriptor cites them."""
import json
import os
import subprocess

import pytest

from agentguard.hooks.harness.hook import PROTOCOLS
from helpers import doctor_checks, snapshot

PAYLOADS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "harness", "payloads")


def _goose_commands(top):
    data = _json(top, ".agents/plugins/agentguard/hooks/hooks.json")
    pre = data["hooks"]["PreToolUse"][0]["hooks"][0]
    assert pre["on_failure"] == "block"  # fail closed: a hook that returns no decision blocks
    return {event: groups[0]["hooks"][0]["command"] for event, groups in data["hooks"].items()}


def _crush_commands(top):
    entries = _json(top, ".crush/crush.json")["hooks"]["PreToolUse"]
    assert [e["name"] for e in entries] == ["agentguard"] and entries[0]["timeout"] == 30
    return {"PreToolUse": entries[0]["command"]}


def _kiro_commands(top):
    data = _json(top, ".kiro/agents/agentguard.json")
    assert data["name"] == "agentguard" and data["tools"] == ["*"]
    assert data["hooks"]["preToolUse"][0]["cache_ttl_seconds"] == 0  # never a cached allow
    return {event: entries[0]["command"] for event, entries in data["hooks"].items()}


# harness -> (its shell tool, its file-writing tool, the commands install wrote: {event: command},
# {variable: value} the harness puts in the hook's environment)
HARNESSES = {
    "goose": ("developer__shell", "developer__write", _goose_commands,
              lambda top: {"PLUGIN_ROOT": os.path.join(top, ".agents", "plugins", "agentguard")}),
    "crush": ("bash", "write", _crush_commands,
              lambda top: {"CRUSH": "1", "AGENT": "crush", "CRUSH_EVENT": "PreToolUse", "CRUSH_CWD": top,
                           "CRUSH_PROJECT_DIR": top}),
    "kiro": ("execute_bash", "fs_write", _kiro_commands, lambda top: {}),
}
NAMES = list(HARNESSES)


def _json(top, rel):
    with open(os.path.join(top, rel), encoding="utf-8") as fh:
        return json.load(fh)


def payload(harness, tool, top, command="", path=""):
    """The published payload of ``tool`` with the call filled in."""
    with open(os.path.join(PAYLOADS, "%s-%s.json" % (harness, tool)), encoding="utf-8") as fh:
        text = fh.read()
    return text.replace("@COMMAND@", json.dumps(command)[1:-1]).replace("@PATH@", json.dumps(path)[1:-1]) \
        .replace("@CWD@", json.dumps(top)[1:-1])


class Session:
    """One agent session in ``repo``: each call goes through the hooks install wrote, as the harness runs them."""

    def __init__(self, repo, harness):
        self.repo, self.harness = repo, harness
        self.shell, self.write, commands, extra = HARNESSES[harness]
        self.commands = commands(repo.path)
        self.env = dict(repo.env, **extra(repo.path))
        self.pre_event = next(e for e in self.commands if e not in PROTOCOLS[harness].post)

    def hook(self, event, data):
        return subprocess.run(["sh", "-c", self.commands[event]], cwd=self.repo.path, env=self.env, input=data,
                              capture_output=True, text=True, timeout=60)

    def before(self, tool, **call):
        return self.hook(self.pre_event, payload(self.harness, tool, self.repo.path, **call))

    def after(self, tool, **call):
        """Every post-call event's hook (the harness runs one of them); what each answered."""
        out = []
        for event in PROTOCOLS[self.harness].post:
            data = json.loads(payload(self.harness, tool, self.repo.path, **call))
            data[_event_key(data)] = event
            out.append(self.hook(event, json.dumps(data)))
        return out

    def run(self, command):
        """The shell tool's call: the pre-call hook, the command where it allows it, the post-call hooks.
        Returns the pre-call hook's process."""
        proc = self.before(self.shell, command=command)
        if proc.returncode == 0 and not _denies(proc):
            subprocess.run(["sh", "-c", command], cwd=self.repo.path, env=self.repo.env, capture_output=True,
                           timeout=60)
        self.after(self.shell, command=command)
        return proc


def _event_key(data):
    return "event" if "event" in data else "hook_event_name"


def _denies(proc):
    """A JSON deny on stdout (exit 0) in the harness's terms."""
    try:
        return json.loads(proc.stdout).get("decision") in ("deny", "block")
    except ValueError:
        return False


def refusal(proc):
    """The reason of a refusal in the harness's terms (exit 2, the reason on stderr), else None."""
    if proc.returncode == 2:
        assert proc.stderr.strip()
        return proc.stderr
    assert proc.returncode == 0, (proc.returncode, proc.stdout, proc.stderr)
    return None


@pytest.fixture
def session(request, make_repo):
    harness = request.param
    repo, bare = make_repo(install=False)
    repo.run("checkout", "-q", "-b", "feat")
    repo.commit("feature work")
    repo.run("checkout", "-q", "main")
    repo.agentguard("install", "--harness", harness)
    return Session(repo, harness), bare


@pytest.mark.parametrize("session", NAMES, indirect=True)
def test_refusals_in_the_harness_terms_and_an_ordinary_command_runs(session):
    s, bare = session
    repo = s.repo
    before = (repo.rev("main"), bare.rev("main"))
    said = refusal(s.run("git push --no-verify origin feat:main"))
    assert said and "[rule: no-verify]" in said
    with open(os.path.join(repo.path, "work.txt"), "w") as fh:
        fh.write("staged work\n")
    repo.run("add", "work.txt")
    said = refusal(s.run("git -c core.hooksPath=/dev/null commit -m x"))
    assert said and "core.hooksPath" in said
    assert (repo.rev("main"), bare.rev("main")) == before  # the remote unchanged, nothing committed
    assert "A  work.txt" in repo.run("status", "--porcelain").stdout  # the staged work still staged
    for path in (".git/hooks/pre-push", ".git/agentguard/check"):
        said = refusal(s.before(s.write, path=path))
        assert said and "[rule: guard-files]" in said
    assert refusal(s.run("echo ran > ran.txt && git status --short")) is None
    with open(os.path.join(repo.path, "ran.txt")) as fh:
        assert fh.read() == "ran\n"  # the allowed command's effect
    assert refusal(s.before(s.write, path="src/app.py")) is None


@pytest.mark.parametrize("session", NAMES, indirect=True)
def test_a_deleted_hook_is_put_back_and_the_model_is_told(session):
    s, _ = session
    path = os.path.join(s.repo.path, ".git", "hooks", "pre-commit")
    with open(path, "rb") as fh:
        before = fh.read()
    s.before(s.shell, command="true")  # a call before: the snapshot
    os.unlink(path)  # what a call did (a hook file deleted by a tool agentguard cannot read)
    s.after(s.shell, command="python3 tidy.py")
    told = refusal(nxt := s.before(s.shell, command="git status")) or _told(nxt)
    assert "[rule: tool-outcome]" in told and ".git/hooks/pre-commit" in told
    with open(path, "rb") as fh:
        assert fh.read() == before
    assert os.access(path, os.X_OK)
    assert refusal(s.before(s.shell, command="git status")) is None and not _told(s.before(s.shell, command="ls"))


def _told(proc):
    """A note the harness adds to an allowed call ("" for none)."""
    return json.loads(proc.stdout).get("context", "") if proc.returncode == 0 and proc.stdout.strip() else ""


@pytest.mark.parametrize("session", NAMES, indirect=True)
def test_the_adapter_is_guarded(session):
    s, _ = session
    rels = [rel for rel, _, _ in _adapter_files(s.harness)]
    for rel in rels:
        said = refusal(s.before(s.write, path=rel))
        assert said and "[rule: guard-files]" in said, rel
        assert refusal(s.run("rm -f %s" % rel)), rel
        assert os.path.exists(os.path.join(s.repo.path, rel))


def _adapter_files(harness):
    """The files install wrote for ``harness``: its own, and the settings file it merged into."""
    from agentguard.installer.harness import registry, settingsfile
    files = registry.files(harness)
    if harness in settingsfile.SETTINGS:
        files = files + [(settingsfile.settings_rel(harness), None, None)]
    return files


# the files that hold each harness's hook or can switch it off (~/: the user's)
GUARDED = [".agents/plugins/agentguard/hooks/hooks.json", ".agents/plugins/mine/plugin.json",
           ".config/goose/settings.json", "~/.config/goose/settings.json",
           "crush.json", ".crush.json", ".crushrc", "crushrc", ".crush/crush.json", "~/.config/crush/crush.json",
           "~/.config/crush/crushrc", ".kiro/agents/agentguard.json", ".kiro/agents/mine.json",
           ".kiro/settings/cli.json", "~/.kiro/settings/cli.json", "~/.kiro/agents/agentguard.json"]


@pytest.mark.parametrize("path", GUARDED)
def test_the_files_that_switch_the_hooks_off_are_guarded(guarded, tmp_path, path):
    repo, _ = guarded
    target = str(tmp_path / "home" / path[2:]) if path.startswith("~/") else path
    proc = repo.agentguard("check", "--write", target, check=False)
    assert proc.returncode == 1 and "[rule: guard-files]" in proc.stdout, proc.stdout


def test_goose_doctor_install_detection_and_uninstall(make_repo, tmp_path):
    repo, _ = make_repo(install=False)
    repo.agentguard("install")
    assert not os.path.exists(os.path.join(repo.path, ".agents"))  # goose not in use here
    repo.agentguard("uninstall")
    with open(os.path.join(repo.path, ".goosehints"), "w") as fh:
        fh.write("use pytest\n")
    before = snapshot(repo.path)
    repo.agentguard("install")  # goose's sign: a plain install sets it up
    plugin = os.path.join(repo.path, ".agents", "plugins", "agentguard")
    assert _json(repo.path, ".agents/plugins/agentguard/plugin.json")["name"] == "agentguard"
    checks = doctor_checks(repo)
    assert checks["adapters.goose"]["status"] == "pass" and checks["adapters.goose.enabled"]["status"] == "pass"
    settings = os.path.join(repo.path, ".config", "goose", "settings.json")
    os.makedirs(os.path.dirname(settings))
    with open(settings, "w") as fh:
        json.dump({"disabledPlugins": ["agentguard"]}, fh)
    checks = doctor_checks(repo)
    assert checks["adapters.goose.enabled"]["status"] == "fail"
    assert "disabledPlugins" in checks["adapters.goose.enabled"]["fix"]
    os.unlink(settings)
    os.removedirs(os.path.dirname(settings))
    with open(os.path.join(plugin, "hooks", "hooks.json"), "w") as fh:
        fh.write('{"hooks": {}}')
    assert doctor_checks(repo)["adapters.goose"]["status"] == "fail"
    repo.agentguard("doctor", "--fix", check=False)
    assert doctor_checks(repo)["adapters.goose"]["status"] == "pass"
    repo.agentguard("uninstall")
    after = snapshot(repo.path)
    assert set(after) - set(before) <= {".git/agentguard", ".git/agentguard/lock"}
    assert {k: v for k, v in after.items() if k in before} == before


# -- Crush -------------------------------------------------------------------------------------------
MINE = b"""{
    "$schema": "https://charm.land/crush.json",
    "options": {"debug": false},
    "hooks": {
        "PreToolUse": [
            {"matcher": "^bash$", "command": "./no-haskell.sh"}
        ]
    }
}
"""


def test_crush_json_of_the_user_is_merged_and_restored_byte_for_byte(make_repo):
    repo, _ = make_repo(install=False)
    path = os.path.join(repo.path, "crush.json")
    with open(path, "wb") as fh:
        fh.write(MINE)
    repo.run("add", "crush.json")
    repo.run("commit", "-q", "-m", "crush settings")
    before = snapshot(repo.path)
    repo.agentguard("install")  # crush.json is a sign Crush is used here: the local workspace file
    assert open(path, "rb").read() == MINE
    entries = _json(repo.path, ".crush/crush.json")["hooks"]["PreToolUse"]
    assert [e["name"] for e in entries] == ["agentguard"]
    assert entries[0]["matcher"] == "bash|edit|multiedit|write|download"
    checks = doctor_checks(repo)
    assert checks["adapters.crush"]["status"] == "pass" and checks["adapters.crush.enabled"]["status"] == "pass"
    assert "next call" in checks["adapters.crush.enabled"]["summary"]
    repo.agentguard("uninstall")
    after = snapshot(repo.path)
    assert set(after) - set(before) <= {".git/agentguard", ".git/agentguard/lock"}
    assert {k: v for k, v in after.items() if k in before} == before
    # shared: into the team's crush.json, their entry first, taken out again to the byte
    repo.agentguard("install", "--shared", "--harness", "crush")
    data = _json(repo.path, "crush.json")
    assert data["options"] == {"debug": False} and data["hooks"]["PreToolUse"][0]["command"] == "./no-haskell.sh"
    assert data["hooks"]["PreToolUse"][1]["name"] == "agentguard"
    assert open(path, "rb").read().startswith(b'{\n    "$schema"')  # indented as theirs was
    with open(path, "w") as fh:  # the user edits it since
        json.dump(dict(data, model="x"), fh, indent=4)
    repo.agentguard("uninstall")
    assert _json(repo.path, "crush.json") == dict(json.loads(MINE), model="x")


def test_hole_a_crush_sub_agent_call_is_seen_at_the_next_hooked_call(make_repo):
    """Crush hooks no sub-agent's call and has no post event: what a sub-agent did to the guard stands
    until the top-level agent's next hooked call, which hears it (here with its own refusal)."""
    repo, _ = make_repo(install=False)
    repo.agentguard("install", "--harness", "crush")
    s = Session(repo, "crush")
    assert refusal(s.before("bash", command="ls")) is None
    os.unlink(os.path.join(repo.path, ".git", "hooks", "pre-push"))  # a sub-agent's call: no hook runs for it
    assert not os.path.exists(os.path.join(repo.path, ".git", "hooks", "pre-push"))  # the hole: it stands
    said = refusal(s.before("bash", command="git push --no-verify origin HEAD:main"))
    assert "[rule: tool-outcome]" in said and ".git/hooks/pre-push" in said and "[rule: no-verify]" in said
    assert os.path.exists(os.path.join(repo.path, ".git", "hooks", "pre-push"))


# -- Kiro CLI ----------------------------------------------------------------------------------------
def test_kiro_agent_doctor_install_detection_and_uninstall(make_repo, tmp_path):
    repo, _ = make_repo(install=False)
    os.makedirs(os.path.join(repo.path, ".kiro", "steering"))  # a repository that uses Kiro
    with open(os.path.join(repo.path, ".kiro", "steering", "product.md"), "w") as fh:
        fh.write("# product\n")
    before = snapshot(repo.path)
    repo.agentguard("install")  # Kiro's sign: a plain install writes the agent
    assert _json(repo.path, ".kiro/agents/agentguard.json")["name"] == "agentguard"
    checks = doctor_checks(repo)
    assert checks["adapters.kiro"]["status"] == "pass"
    enabled = checks["adapters.kiro.enabled"]  # only the selected agent's hooks run
    assert enabled["status"] == "warn" and "chat.defaultAgent agentguard" in enabled["fix"]
    settings = tmp_path / "home" / ".kiro" / "settings"
    settings.mkdir(parents=True)
    (settings / "cli.json").write_text(json.dumps({"chat.defaultAgent": "agentguard"}))
    assert doctor_checks(repo)["adapters.kiro.enabled"]["status"] == "pass"
    os.unlink(settings / "cli.json")
    repo.agentguard("uninstall")
    after = snapshot(repo.path)
    assert set(after) - set(before) <= {".git/agentguard", ".git/agentguard/lock"}
    assert {k: v for k, v in after.items() if k in before} == before
