"""Every process agentguard starts has a timeout, and on timeout the whole process group is killed:
the runtime's git calls, the installer's, the doctor's probes, and the adapters' decision calls (the
Python client Hermes and gptme load, and pi's extension). Each hang leaves a marked grandchild behind
(`sleep <unique number> &`); the test asserts it is gone, not only that the call returned."""
import json
import os
import subprocess
import time
import uuid

import pytest

from agentguard.hooks import gitio
from agentguard.installer.gitaccess import gitenv
from agentguard.installer.doctor import probes
from agentguard.installer.errors import AgentguardError
from helpers import PI_PACKAGE, need_path

HERE = os.path.dirname(os.path.abspath(__file__))


def marker():
    """A sleep duration no other process uses, to find our grandchildren by their command line."""
    return "%d.%04d" % (300 + uuid.uuid4().int % 600, uuid.uuid4().int % 10000)


def alive(mark):
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open("/proc/%s/cmdline" % pid, "rb") as fh:
                    if mark.encode() in fh.read():
                        found.append(pid)
            except OSError:
                pass
    return found


def hang_script(mark):
    # a background grandchild holding the output pipe, and a foreground one: both must die
    return "#!/bin/sh\nsleep %s &\nsleep %s\n" % (mark, mark)


def assert_gone(mark):
    deadline = time.monotonic() + 5
    while alive(mark) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(mark), "a grandchild survived the timeout"


def test_runtime_git_calls_are_bounded(guarded, monkeypatch):
    repo, _ = guarded
    mark = marker()
    monkeypatch.setattr(os, "environ", dict(repo.env))
    began = time.monotonic()
    with pytest.raises(gitio.GitError, match="did not answer"):
        gitio.run(["-c", "alias.hang=!sleep %s & sleep %s" % (mark, mark), "hang"], cwd=repo.path, timeout=1)
    assert time.monotonic() - began < 5
    assert_gone(mark)


def test_installer_git_calls_are_bounded(guarded):
    repo, _ = guarded
    mark = marker()
    began = time.monotonic()
    with pytest.raises(AgentguardError, match="did not answer"):
        gitenv.git(["-c", "alias.hang=!sleep %s & sleep %s" % (mark, mark), "hang"], cwd=repo.path, timeout=1)
    assert time.monotonic() - began < 5
    assert_gone(mark)


@pytest.mark.slow  # waits out a timeout
def test_doctor_probe_of_a_hanging_hook(make_repo, monkeypatch):
    """The doctor never runs a chained user hook (its accept probes use a copy of ours without the
    chain), so what can hang is the hook itself: one replaced by something that stalls."""
    repo, _ = make_repo()
    mark = marker()
    with open(os.path.join(repo.path, ".git", "hooks", "pre-commit"), "w") as fh:
        fh.write(hang_script(mark))
    monkeypatch.setattr(probes, "TIMEOUT", 2)
    monkeypatch.setattr(os, "environ", dict(repo.env))
    from agentguard.installer.doctor.runner import Doctor
    began = time.monotonic()
    checks = {c.id: c for c in Doctor(repo.path).run()}
    assert time.monotonic() - began < 30
    assert checks["hooks.pre-commit"].status == "fail"
    probe = checks["probe.pre-commit"]
    assert probe.status == "fail" and "did not answer within 2s" in probe.summary, probe.summary
    assert_gone(mark)


def hanging_check(repo, mark):
    """Fault injection: the decision command the adapters call stalls (a hung disk, a stuck git)."""
    check = os.path.join(repo.path, ".git", "agentguard", "check")
    with open(check, "w") as fh:
        fh.write(hang_script(mark))
    os.chmod(check, 0o755)


def test_python_adapter_client_times_out_and_blocks(guarded, monkeypatch):
    """The client.py Hermes and gptme load (the file install wrote, imported as they import it)."""
    repo, _ = guarded
    import importlib.util
    path = os.path.join(repo.path, ".hermes", "plugins", "agentguard", "client.py")
    spec = importlib.util.spec_from_file_location("agentguard_hermes_client", path)
    client = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(client)
    monkeypatch.setattr(client, "TIMEOUT", 1)
    monkeypatch.setattr(os, "environ", dict(repo.env))
    assert client.decide(repo.path, command="git commit -m x")[0] is True  # the real check blocks
    mark = marker()
    hanging_check(repo, mark)
    began = time.monotonic()
    block, reason = client.decide(repo.path, command="git commit -m x")
    assert block and "timed out" in reason
    assert client.decide(repo.path, command="ls -la") == (False, "")  # nothing about git: not asked
    assert time.monotonic() - began < 5
    assert_gone(mark)


@pytest.mark.slow  # waits out a timeout
def test_pi_extension_times_out_and_blocks(guarded):
    """pi's ExtensionRunner loads the extension install wrote; its decision call hangs (10 s budget)."""
    need_path(PI_PACKAGE)
    repo, _ = guarded
    mark = marker()
    hanging_check(repo, mark)
    began = time.monotonic()
    proc = subprocess.run(["node", os.path.join(HERE, "node", "pi_probe.mjs"), repo.path], cwd=repo.path,
                          env=repo.env, input=json.dumps([{"kind": "bash", "command": "git commit -m x"}]),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.splitlines()[-1])
    assert result["block"] and "timed out" in result["reason"], result
    assert 9 < time.monotonic() - began < 60
    assert_gone(mark)
