"""Hooks given garbage, truncated, huge or non-UTF-8 input, unknown states or extra arguments:
never a traceback; protected updates fail closed with a message, unrelated input passes."""
import os
import subprocess
import time

import pytest


def hook(repo, name, args, data, env=None):
    path = os.path.join(repo.path, ".git", "hooks", name)
    proc = subprocess.run([path, *args], cwd=repo.path, input=data, capture_output=True, timeout=60,
                          env=env or repo.env)
    assert b"Traceback" not in proc.stderr + proc.stdout
    return proc


@pytest.mark.parametrize("data", [
    b"garbage refs/heads/main\n",
    b"0000 1111 refs/heads/main\n",
    b"\xff\xfe refs/heads/main \x00\x01\n",
    b"%s %s refs/heads/main" % (b"a" * 40, b"b" * 40),  # truncated: no final newline
    b"%s ref:refs/heads/feat refs/heads/main\n" % (b"0" * 40),
])
def test_protected_garbage_fails_closed(guarded, data):
    repo, _ = guarded
    proc = hook(repo, "reference-transaction", ["prepared"], data)
    assert proc.returncode == 1 and b"agentguard: refused" in proc.stderr
    assert all(b >= 0x20 or b in b"\n" for b in proc.stderr), "no control characters in what we print"


@pytest.mark.parametrize("data", [b"", b"\n\n", b"hello world\n", b"\xff\xfe\xfd\n", b"a b c d e f\n",
                                  b"%s %s refs/heads/feature\n" % (b"1" * 40, b"2" * 40)])
def test_unrelated_garbage_passes(guarded, data):
    repo, _ = guarded
    assert hook(repo, "reference-transaction", ["prepared"], data).returncode == 0
    assert hook(repo, "reference-transaction", ["committed"], data).returncode == 0


def test_huge_input_is_fast_and_still_checked(guarded):
    repo, _ = guarded
    oid = repo.rev("main").encode()
    lines = b"".join(b"%s %s refs/tags/t%06d\n" % (b"0" * 40, oid, i) for i in range(100000))
    start = time.monotonic()
    assert hook(repo, "reference-transaction", ["prepared"], lines).returncode == 0
    assert time.monotonic() - start < 10
    bad = lines + b"%s %s refs/heads/main\n" % (oid, repo.rev("feat").encode())
    proc = hook(repo, "reference-transaction", ["prepared"], bad)
    assert proc.returncode == 1 and b"protected-move" in proc.stderr


def test_unknown_states_and_extra_arguments(guarded):
    repo, _ = guarded
    move = b"%s %s refs/heads/main\n" % (repo.rev("main").encode(), repo.rev("feat").encode())
    assert hook(repo, "reference-transaction", ["some-future-state"], move).returncode == 1
    assert hook(repo, "reference-transaction", ["some-future-state"], b"x y refs/tags/v\n").returncode == 0
    assert hook(repo, "reference-transaction", ["preparing"], move).returncode == 0  # "prepared" decides
    assert hook(repo, "reference-transaction", ["prepared", "extra", "args"], move).returncode == 1
    push = b"refs/heads/feat %s refs/heads/main %s\n" % (repo.rev("feat").encode(), repo.rev("main").encode())
    assert hook(repo, "pre-push", ["origin", "url", "extra"], push).returncode == 1
    assert hook(repo, "pre-push", ["origin", "url"], b"\xff\xfe garbage\n").returncode == 0
    assert hook(repo, "pre-push", ["origin", "url"], b"junk refs/heads/main junk\n").returncode == 1


def test_hostile_environment_for_hooks(guarded, tmp_path):
    repo, _ = guarded
    other = tmp_path / "other"
    subprocess.run(["git", "init", "-q", "-b", "feature", str(other)], env=repo.env, check=True)
    move = b"%s %s refs/heads/main\n" % (repo.rev("main").encode(), repo.rev("feat").encode())
    env = dict(repo.env, PYTHONPATH=str(tmp_path), PYTHONHOME=str(tmp_path), PYTHONSTARTUP=str(tmp_path / "x.py"),
               GIT_INDEX_FILE=str(tmp_path / "index"))
    proc = hook(repo, "reference-transaction", ["prepared"], move, env=env)
    assert proc.returncode == 1 and b"protected-move" in proc.stderr
