"""A decision command that did not answer is no allow. `.git/agentguard/check` is a short sh launcher;
empty or cut short, sh runs what is left of it and exits 0 (or 2 on a broken line), and exit 0 is
what the harnesses take as allow. So the runtime tells its own answer apart: with
AGENTGUARD_ANSWERED=1 (the harness hook sets it) it exits 40 + its status, which neither sh nor
Python ever exits with by themselves, and the harness hook must take anything else as "could not
check" (its fallback: refuse what involves git, tell the model after the call).
The JSON adapters (pi, Hermes, gptme) need no status: no JSON on stdout already fails closed there."""
import json
import os
import subprocess

import pytest

from agentguard.installer.harness import settingsfile
from harnesscalls import CALLS, after_hook, hook
from test_harness_settings import blocked

ANSWERED = 40


def launcher(repo):
    return os.path.join(repo.path, ".git", "agentguard", "check")


def ask(repo, argv, payload, answered):
    env = dict(repo.env, AGENTGUARD_ANSWERED="1") if answered else repo.env
    # as the harness hook runs it: sh runs a file the kernel cannot execute (an empty one) as a script
    return subprocess.run(["sh", "-c", '"$0" "$@"', launcher(repo)] + argv, cwd=repo.path, env=env,
                          input=json.dumps(payload), capture_output=True, text=True, timeout=60)


def test_the_runtime_marks_its_own_answer_only_when_asked(guarded):
    """Through the real launcher: 40 allow / 42 block with AGENTGUARD_ANSWERED=1, the harness's own
    0 / 2 without it (every other caller, and the harness protocol itself, are unchanged)."""
    repo, _ = guarded
    push = dict(CALLS["codex"]("git push origin HEAD:main"), cwd=repo.path)
    ls = dict(CALLS["codex"]("ls -la"), cwd=repo.path)
    for answered, base in ((False, 0), (True, ANSWERED)):
        refused = ask(repo, ["--hook", "codex"], push, answered)
        assert refused.returncode == base + 2 and "[rule: push-protected]" in refused.stderr, refused.stderr
        assert ask(repo, ["--hook", "codex"], ls, answered).returncode == base
        assert ask(repo, ["--after", "--hook", "codex"], ls, answered).returncode == base
    # a usage error is an answer too (a block): the launcher cut before "$@" says so, and refuses
    assert ask(repo, ["--hook"], ls, True).returncode == ANSWERED + 2


def test_an_empty_or_cut_launcher_does_not_answer(guarded):
    """What the harness hook must tell apart: sh on what is left of the launcher never exits 40 or 42,
    at any length it is cut to (Python reading the payload as its program included: a JSON object is a
    valid Python expression, exit 0)."""
    repo, _ = guarded
    with open(launcher(repo), "rb") as fh:
        whole = fh.read()
    push = dict(CALLS["codex"]("git push origin HEAD:main"), cwd=repo.path)
    full = whole.index(b'"$@"')  # from here on the runtime gets its arguments: its own answer
    for cut in range(0, full):
        with open(launcher(repo), "wb") as fh:
            fh.write(whole[:cut])
        proc = ask(repo, ["--hook", "codex"], push, True)
        assert proc.returncode not in (ANSWERED, ANSWERED + 2) or b"check" in whole[:cut].rsplit(b"\n", 1)[-1], \
            (cut, whole[:cut], proc.returncode)


@pytest.mark.parametrize("cut", ["empty", "cut"])
def test_the_harness_hook_refuses_git_when_the_launcher_did_not_answer(guarded, cut):
    """Every settings-file harness: a launcher emptied (or cut before its exec line) blocks what involves
    git, as a missing one does, lets the rest run, and the model is told after the call."""
    repo, bare = guarded
    with open(launcher(repo), "rb") as fh:
        whole = fh.read()
    with open(launcher(repo), "wb") as fh:
        fh.write(b"" if cut == "empty" else whole[:whole.index(b"exec ")])
    before = (repo.rev("main"), bare.rev("main"))
    for harness in settingsfile.NAMES:
        refused, said = blocked(harness, hook(repo, harness, CALLS[harness]("git push origin HEAD:main")))
        assert refused and "[rule: guard-error]" in said, (harness, said)
        assert not blocked(harness, hook(repo, harness, CALLS[harness]("ls -la")))[0], harness
        from agentguard.hooks.harness.hook import PROTOCOLS
        if not PROTOCOLS[harness].later:
            proc, told = after_hook(repo, harness, CALLS[harness]("ls -la"))
            assert "could not check" in told and "[rule: guard-error]" in told, (harness, proc.stdout, proc.stderr)
    assert (repo.rev("main"), bare.rev("main")) == before
