"""#30: what the after-check of a tool call that changed nothing costs, pinned: the git processes the
runtime starts and the modules it loads to say "nothing to undo", and the programs the harness hook's
post-call run starts around it (no ``cat``: after the call the payload goes straight to the runtime)."""
import ast
import json
import os
import shutil
import subprocess
import sys

from harnesscalls import CALLS, hook
from test_outcome import after

from agentguard.installer.harness import settingsfile

COUNTING = """import sys
sys.path.insert(0, %r)
from hooks import gitio
started = []
start = gitio._start
def counting(argv, *a, **kw):
    started.append(argv)
    return start(argv, *a, **kw)
gitio._start = counting
from hooks.analyser.check import main
status = main(["--after", "--hook", "claude"])
sys.stdout.flush()
sys.stderr.write("STARTED " + repr([status, started, sorted(sys.modules)]) + "\\n")
"""


def quiet_after_check(repo):
    """(exit status, the git command lines started, the modules loaded) of the runtime copy's
    ``check --after --hook claude`` after a pre-check, in ``repo`` as it is."""
    payload = CALLS["claude"]("ls -la")
    assert hook(repo, "claude", payload).returncode == 0
    runtime = os.path.join(repo.path, ".git", "agentguard", "runtime")
    data = json.dumps(dict(payload, cwd=repo.path, hook_event_name="PostToolUse"))
    proc = subprocess.run([sys.executable, "-I", "-S", "-B", "-c", COUNTING % runtime], cwd=repo.path, input=data,
                          env=dict(repo.env, AGENTGUARD_GIT=shutil.which("git")), capture_output=True, text=True,
                          timeout=60)
    line = [x for x in proc.stderr.splitlines() if x.startswith("STARTED ")]
    assert proc.returncode == 0 and line, proc.stderr
    status, started, modules = ast.literal_eval(line[-1][len("STARTED "):])
    assert proc.stdout == "", proc.stdout
    return status, started, set(modules)


def test_a_call_that_changed_nothing_is_told_apart_with_four_git_processes_and_few_modules(guarded):
    """The layout, the watched config, the protected refs, and the refs of the local-path remote: one git
    each, nothing more; none of the after-check's own modules, the analyser's decision, or a shared library
    the shortcut does without (``select``: gitio waits in sleeps; ``binascii``: the snapshot's name is a crc32
    computed in Python)."""
    repo, _ = guarded
    status, started, modules = quiet_after_check(repo)
    assert status == 0
    assert len(started) <= 4, started
    assert [a for a in started if "for-each-ref" in a and any(x.startswith("--git-dir=") for x in a)], started
    loaded = {m for m in modules if m.startswith("hooks.")}
    assert not loaded & {"hooks.outcome.after", "hooks.outcome.calls", "hooks.analyser.decision",
                         "hooks.analyser.analyse", "hooks.textsafe"}, loaded
    assert not modules & {"select", "binascii", "json", "re", "subprocess", "hashlib"}, modules
    assert len(loaded) <= 22, sorted(loaded)


def test_the_shortcut_still_sends_a_changed_hook_to_the_after_check(guarded):
    """The same measurement can fail: a hook the call rewrote is no call that changed nothing."""
    repo, _ = guarded
    payload = CALLS["claude"]("ls -la")
    assert hook(repo, "claude", payload).returncode == 0
    path = os.path.join(repo.path, ".git", "hooks", "pre-commit")
    with open(path, "rb") as fh:
        original = fh.read()
    with open(path, "ab") as fh:
        fh.write(b"\nexit 0\n")
    runtime = os.path.join(repo.path, ".git", "agentguard", "runtime")
    data = json.dumps(dict(payload, cwd=repo.path, hook_event_name="PostToolUse"))
    proc = subprocess.run([sys.executable, "-I", "-S", "-B", "-c", COUNTING % runtime], cwd=repo.path, input=data,
                          env=dict(repo.env, AGENTGUARD_GIT=shutil.which("git")), capture_output=True, text=True,
                          timeout=60)
    assert "hooks.outcome.after" in proc.stderr and "restored .git/hooks/pre-commit" in proc.stdout, proc.stdout
    with open(path, "rb") as fh:
        assert fh.read() == original
    assert after(repo)[1]["decision"] == "unchanged"


def shims(tmp_path, names):
    """A folder of programs named ``names``, each noting its start in a log and running the real one."""
    folder, log = tmp_path / "shims", tmp_path / "started.log"
    folder.mkdir()
    for name in names:
        shim = folder / name
        shim.write_text('#!/bin/sh\necho %s >> "%s"\nexec "%s" "$@"\n' % (name, log, shutil.which(name)))
        shim.chmod(0o755)
    return str(folder), log


def started(log):
    return log.read_text().split() if log.exists() else []


def test_the_post_call_hook_starts_no_cat_and_no_git_of_its_own(guarded, tmp_path):
    """After the call the harness hook hands its stdin to the runtime: no ``cat`` (the pre-call hook keeps
    the payload for its fallback, so it still reads it), and no ``git`` of the shell's for a plain ./.git."""
    repo, _ = guarded
    folder, log = shims(tmp_path, ["cat", "git", "sed", "grep"])
    env = dict(repo.env, PATH=folder + os.pathsep + repo.env["PATH"])
    payload = json.dumps(dict(CALLS["claude"]("ls -la"), cwd=repo.path))
    pre = subprocess.run(["sh", "-c", settingsfile.hook_command("claude")], cwd=repo.path, env=env, input=payload,
                         capture_output=True, text=True, timeout=60)
    assert pre.returncode == 0 and "deny" not in pre.stdout, pre.stdout + pre.stderr
    assert started(log) == ["cat"]
    log.unlink()
    post = subprocess.run(["sh", "-c", settingsfile.hook_command("claude", "PostToolUse")], cwd=repo.path, env=env,
                          input=payload.replace("PreToolUse", "PostToolUse"), capture_output=True, text=True,
                          timeout=60)
    assert post.returncode == 0 and post.stdout == "", post.stdout + post.stderr
    assert started(log) == []


def test_the_post_call_hook_still_tells_a_repair(guarded, tmp_path):
    """With stdin handed over, the post-call hook still runs the after-check on the call's payload: a hook
    the call deleted is put back and the model is told."""
    repo, _ = guarded
    payload = json.dumps(dict(CALLS["claude"]("rm .git/hooks/pre-push"), cwd=repo.path))
    pre = subprocess.run(["sh", "-c", settingsfile.hook_command("claude")], cwd=repo.path, env=repo.env,
                         input=payload, capture_output=True, text=True, timeout=60)
    assert pre.returncode == 0
    os.unlink(os.path.join(repo.path, ".git", "hooks", "pre-push"))
    post = subprocess.run(["sh", "-c", settingsfile.hook_command("claude", "PostToolUse")], cwd=repo.path,
                          env=repo.env, input=payload.replace("PreToolUse", "PostToolUse"), capture_output=True,
                          text=True, timeout=60)
    assert post.returncode == 0 and "pre-push" in post.stdout, post.stdout + post.stderr
    assert os.path.exists(os.path.join(repo.path, ".git", "hooks", "pre-push"))


def test_the_launcher_runs_the_after_check_without_the_analyser(guarded):
    """The runtime's launcher (run.py) sends ``check --after --hook HARNESS`` straight to the after-check:
    no module of the analyser's package is loaded (the pre-check's ``check --hook`` still loads it)."""
    repo, _ = guarded
    payload = CALLS["claude"]("ls -la")
    assert hook(repo, "claude", payload).returncode == 0
    run_py = os.path.join(repo.path, ".git", "agentguard", "runtime", "run.py")
    env = dict(repo.env, AGENTGUARD_GIT=shutil.which("git"))

    def loaded(argv, event):
        data = json.dumps(dict(payload, cwd=repo.path, hook_event_name=event))
        proc = subprocess.run([sys.executable, "-I", "-S", "-B", "-X", "importtime", run_py, "check"] + argv,
                              cwd=repo.path, input=data, env=env, capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0 and proc.stdout == "", proc.stdout + proc.stderr
        return {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if "|" in line}

    after_modules = loaded(["--after", "--hook", "claude"], "PostToolUse")
    assert "hooks.outcome.unchanged" in after_modules, sorted(after_modules)
    assert not {m for m in after_modules if m.startswith("hooks.analyser")}, sorted(after_modules)
    assert "hooks.analyser.check" in loaded(["--hook", "claude"], "PreToolUse")
