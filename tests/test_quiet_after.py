"""#30: the cheap paths of the check every tool call pays, and proof that each one still sends what it
cannot vouch for to the full check. ``check --after`` decides "nothing to undo" without loading the
after-check (``hooks/outcome/unchanged.py``) only when the snapshot taken again holds the same values as
the one the pre-check stored (as the after-check reads it); the pre-check does not rewrite a snapshot
whose bytes did not change (the call it was taken for is kept beside it). Each test below changes one
thing the shortcut relies on, checks that the shortcut says no (so these tests can fail), and that the
after-check still repairs."""
import json
import os
import subprocess
import sys

from test_outcome import after, pre_check

QUIET = ("import sys; sys.path.insert(0, %r); from hooks.outcome.unchanged import nothing_to_undo; "
         "print(nothing_to_undo('.'))")


def not_quiet_and_repaired(repo):
    """The shortcut says no, and the full after-check repairs: its report."""
    assert not quiet(repo)
    status, report = after(repo)
    assert report["decision"] == "repaired", report
    return report


def quiet(repo):
    """What the runtime copy's shortcut says in ``repo`` (True: nothing to undo), run as the hook runs it."""
    runtime = os.path.join(repo.path, ".git", "agentguard", "runtime")
    proc = subprocess.run([sys.executable, "-I", "-S", "-B", "-c", QUIET % runtime], cwd=repo.path, env=repo.env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip() == "True"


def snapshot_file(repo):
    folder = os.path.join(repo.path, ".git", "agentguard", "outcome")
    names = [n for n in os.listdir(folder) if n.endswith(".json") and n != "local-remotes.json"]
    assert len(names) == 1, names
    return os.path.join(folder, names[0])


def test_nothing_changed_takes_the_shortcut_and_says_unchanged(guarded):
    repo, _ = guarded
    pre_check(repo, "ls")
    repo.sh("ls -la >/dev/null; git status >/dev/null")
    assert quiet(repo)
    status, report = after(repo)
    assert (status, report["decision"]) == (0, "unchanged")


def test_a_hook_rewritten_with_its_size_and_mtime_kept_is_restored(guarded):
    repo, _ = guarded
    hook = os.path.join(repo.path, ".git", "hooks", "pre-push")
    with open(hook, "rb") as fh:
        original = fh.read()
    pre_check(repo, "ls")
    st = os.stat(hook)
    forged = b"#!/bin/sh\nexit 0\n".ljust(len(original), b"#")
    with open(hook, "wb") as fh:
        fh.write(forged)
    os.utime(hook, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(hook).st_size == st.st_size and os.stat(hook).st_mtime_ns == st.st_mtime_ns
    not_quiet_and_repaired(repo)
    with open(hook, "rb") as fh:
        assert fh.read() == original


def test_a_moved_main_is_not_unchanged(guarded):
    repo, _ = guarded
    pre_check(repo, "ls")
    main = repo.rev("main")
    feat = repo.rev("feat")
    with open(os.path.join(repo.path, ".git", "refs", "heads", "main"), "w") as fh:
        fh.write(feat + "\n")  # by hand: no hook sees it
    assert repo.rev("main") == feat
    not_quiet_and_repaired(repo)
    assert repo.rev("main") == main


def test_a_config_entry_set_is_not_unchanged(guarded):
    repo, _ = guarded
    pre_check(repo, "ls")
    with open(os.path.join(repo.path, ".git", "config"), "a") as fh:
        fh.write("[core]\n\thooksPath = /dev/null\n")
    not_quiet_and_repaired(repo)
    assert repo.run("config", "--get", "core.hooksPath", check=False).stdout == ""


def test_a_forged_snapshot_that_records_the_damage_does_not_pass(guarded):
    """The agent breaks a hook install wrote and rewrites the stored snapshot as the snapshot code would
    take it now (the damage recorded as the state to keep): the shortcut does not pass it, and the
    after-check still puts install's bytes back."""
    repo, _ = guarded
    hook = os.path.join(repo.path, ".git", "hooks", "pre-push")
    with open(hook, "rb") as fh:
        original = fh.read()
    pre_check(repo, "ls")
    with open(hook, "wb") as fh:
        fh.write(b"#!/bin/sh\nexit 0\n")
    runtime = os.path.join(repo.path, ".git", "agentguard", "runtime")
    forge = ("import sys; sys.path.insert(0, %r)\n"
             "from hooks.outcome import snapshot, store\n"
             "where = snapshot.locate('.')\n"
             "store.save(where.ag_home, snapshot.take(where, store.load(where.ag_home, where.top)))\n" % runtime)
    proc = subprocess.run([sys.executable, "-I", "-S", "-B", "-c", forge], cwd=repo.path, env=repo.env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    not_quiet_and_repaired(repo)
    with open(hook, "rb") as fh:
        assert fh.read() == original


def test_a_forged_snapshot_with_a_changed_byte_goes_to_the_full_check(guarded):
    """Any byte of the stored snapshot other than what the state gives now: the full check decides."""
    repo, _ = guarded
    pre_check(repo, "ls")
    path = snapshot_file(repo)
    with open(path, "rb") as fh:
        data = json.loads(fh.read())
    data["config"] = data["config"] + [["local", None, "x.y", "z"]]
    with open(path, "w") as fh:
        json.dump(data, fh, sort_keys=True)
    assert not quiet(repo)


def test_a_hard_link_to_main_is_not_unchanged(guarded):
    repo, _ = guarded
    pre_check(repo, "ls")
    main = os.path.join(repo.path, ".git", "refs", "heads", "main")
    if not os.path.exists(main):
        repo.run("update-ref", "refs/heads/main", repo.rev("main"))
    os.link(main, os.path.join(repo.path, "main-link"))
    not_quiet_and_repaired(repo)
    assert os.stat(main).st_nlink == 1


def test_repairs_left_to_tell_are_not_unchanged(guarded):
    repo, _ = guarded
    pre_check(repo, "ls")
    assert quiet(repo)
    pending = snapshot_file(repo)[:-len(".json")] + ".pending"
    with open(pending, "w") as fh:
        json.dump([{"call": "x", "at": "", "undone": [{"kind": "file", "what": "restored x"}], "failed": []}], fh)
    assert not quiet(repo)
    status, report = after(repo)
    assert report["decision"] == "repaired" and "restored x" in json.dumps(report), report


def test_an_unchanged_pre_check_keeps_the_snapshot_file_and_names_the_new_call(guarded):
    repo, _ = guarded
    pre_check(repo, "ls")
    path = snapshot_file(repo)
    before = os.stat(path)
    pre_check(repo, "echo second-call")
    now = os.stat(path)
    assert (now.st_ino, now.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)  # not written again
    with open(path[:-len(".json")] + ".call") as fh:
        assert "second-call" in json.load(fh)["what"]
    repo.run("config", "alias.x", "status")  # ordinary config: the snapshot changes, and is written
    pre_check(repo, "echo third-call")
    assert os.stat(path).st_ino != before.st_ino


def test_a_repair_between_calls_names_the_call_it_happened_after(guarded):
    """The call record lives beside the snapshot now: a change made between calls is still told as
    happening after the call whose pre-check came last."""
    repo, _ = guarded
    hook = os.path.join(repo.path, ".git", "hooks", "pre-push")
    pre_check(repo, "echo the-call-before")
    assert after(repo)[1]["decision"] == "unchanged"
    os.unlink(hook)  # a job the call left running
    pre_check(repo, "ls")
    assert os.path.exists(hook)
    status, report = after(repo)
    assert report["decision"] == "repaired", report
    assert "the-call-before" in report["earlier"][0]["call"], report


def test_the_runtime_reads_and_writes_json_as_json_does():
    from agentguard.hooks import jsonlite
    samples = ['{"a": [1, 2.5, -0, 1e400, "\\u00e9\\n", null, true, false]}', ' [] ', '"x"', '{"b": {"a": {}}}']
    for text in samples:
        assert jsonlite.loads(text) == json.loads(text)
        value = json.loads(text)
        assert jsonlite.dumps_sorted(value) == json.dumps(value, sort_keys=True)
    for bad in ["", " ", "{", "{}x", "[1,]", '"\x01"', "nul", "{'a': 1}"]:
        try:
            jsonlite.loads(bad)
        except ValueError:
            continue
        raise AssertionError("accepted %r" % bad)


def test_the_runtime_matches_names_as_fnmatch_does():
    import fnmatch
    import itertools
    from agentguard.hooks.globmatch import fnmatchcase
    names = ["".join(p) for n in range(6) for p in itertools.product("ab/.", repeat=n)]
    for n in range(5):
        for pattern in ("".join(p) for p in itertools.product("ab*/.", repeat=n)):
            for name in names[::7]:
                assert fnmatchcase(name, pattern) == fnmatch.fnmatchcase(name, pattern), (name, pattern)
    assert fnmatchcase("settings.local.json", "settings*.json") and not fnmatchcase("x", "[!x]")


def test_a_shortcut_that_hangs_is_cut_off_and_told(guarded, monkeypatch):
    """The shortcut runs inside the hook's own time limit: when it hangs (git not answering), the
    model is told the after-check could not run, as when the after-check itself hangs."""
    import io
    import time
    from agentguard.hooks.harness import hook
    from agentguard.hooks.outcome import unchanged
    repo, _ = guarded
    monkeypatch.chdir(repo.path)
    monkeypatch.setattr(hook, "TIMEOUT", 1)
    monkeypatch.setattr(unchanged, "nothing_to_undo", lambda cwd: time.sleep(30))
    out = io.StringIO()
    payload = json.dumps({"tool_name": "Bash", "tool_input": {"command": "ls"}, "cwd": repo.path,
                          "hook_event_name": "PostToolUse"}).encode()
    started = time.monotonic()
    assert hook.after_main("claude", stdin=io.BytesIO(payload), out=out, err=io.StringIO()) == 0
    assert time.monotonic() - started < 5
    assert "timed out after 1 s" in json.loads(out.getvalue())["hookSpecificOutput"]["additionalContext"]


def after_hook(repo):
    """`check --after --hook claude`, as the harness runs it after a Bash call: (status, what the model is told)."""
    payload = json.dumps({"session_id": "s", "cwd": repo.path, "hook_event_name": "PostToolUse", "tool_name": "Bash",
                          "tool_input": {"command": "x"}, "transcript_path": "/tmp/x"})
    proc = subprocess.run([os.path.join(repo.path, ".git", "agentguard", "check"), "--after", "--hook", "claude"],
                          input=payload, cwd=repo.path, env=repo.env, capture_output=True, text=True, timeout=60)
    told = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"] if proc.stdout.strip() else ""
    return proc.returncode, told


def test_through_the_hook_a_quiet_call_says_nothing_and_a_damaging_one_is_undone(guarded):
    """The path every harness takes: nothing said after an ordinary call (the shortcut), the damage of
    the next one (a hook rewritten, its size and mtime kept; core.hooksPath set) undone and told."""
    repo, _ = guarded
    pre_check(repo, "ls")
    assert after_hook(repo) == (0, "")
    hook = os.path.join(repo.path, ".git", "hooks", "pre-push")
    with open(hook, "rb") as fh:
        original = fh.read()
    pre_check(repo, "ls")
    st = os.stat(hook)
    with open(hook, "wb") as fh:
        fh.write(b"#!/bin/sh\nexit 0\n".ljust(len(original), b"#"))
    os.utime(hook, ns=(st.st_atime_ns, st.st_mtime_ns))
    repo.run("config", "core.hooksPath", "/dev/null")
    status, told = after_hook(repo)
    assert status == 0 and "restored .git/hooks/pre-push" in told and "core.hookspath" in told.lower(), told
    with open(hook, "rb") as fh:
        assert fh.read() == original
    assert repo.run("config", "--get", "core.hooksPath", check=False).stdout == ""


COUNT_REV_PARSE = """import sys, json
sys.path.insert(0, %r)
from hooks import gitio, layout
asked = []
run = gitio.run
def counting(args, *a, **kw):
    if layout.REV_PARSE[0] in args and "--show-toplevel" in args:
        asked.append(kw.get("cwd"))
    return run(args, *a, **kw)
gitio.run = counting
%s
print(json.dumps(asked))
"""


def rev_parses(repo, body):
    runtime = os.path.join(repo.path, ".git", "agentguard", "runtime")
    proc = subprocess.run([sys.executable, "-I", "-S", "-B", "-c", COUNT_REV_PARSE % (runtime, body)], cwd=repo.path,
                          env=repo.env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_the_pre_check_of_a_git_command_asks_git_for_the_layout_once(guarded):
    """The analyser (which repository `git status` works on) and the snapshot recorded before the call
    share one `rev-parse` in the check's process; a process that does not ask for it (install, the
    doctor, which change repositories) asks git every time."""
    repo, _ = guarded
    body = "from hooks.analyser.check import main\nstatus = main(['--', 'git status'])\nprint()\n"
    assert len(rev_parses(repo, body)) == 1
    assert os.path.exists(snapshot_file(repo))
    body = "layout.at('.'); layout.at('.')"
    assert len(rev_parses(repo, body)) == 2
