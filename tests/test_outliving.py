"""Work that outlives the tool call (#29): a job the call leaves running (``setsid -f``, ``nohup ... &``,
``( ... ) & disown``, a forked Python process, a ``trap ... EXIT`` in a script started in the background)
damages the guard after the call's after-check ran. The next call's pre-check compares with the last
known-good snapshot, undoes it by the after-check's own mechanism, and that call's after-check tells
the model since which earlier call it happened; nothing is lost (a moved main's commits are on
``agentguard/rescued/...``), the doctor passes and the following after-check is "unchanged".

Each job waits for a go file the test writes only after the call's after-check, so it acts between
two calls for certain; its marker says it did, and the damage is proved before the next check.
What a person does between calls (pull, fetch, commit on a branch, add a remote, a break-glass grant,
re-run install) and a dev server an agent leaves running are ordinary: no repair."""
import json
import os
import signal
import time

import pytest

from helpers import AGENTGUARD, allow_on_pty, upstream_advance
from test_outcome import CHECK, after, doctor_fails, pre_check

HOOKS_OFF = "git -c core.hooksPath=/dev/null"
REFTX = os.path.join(".git", "agentguard", "runtime", "hooks", "backstop", "reftx.py")  # the backstop's code
WAIT = 10  # seconds a job waits for its go file, the test for a marker (each a deadline, never a sleep)


@pytest.fixture
def jobs(tmp_path):
    """(go file, marker file); at the end, every process still working below tmp_path is killed (by pid)."""
    yield str(tmp_path / "go"), str(tmp_path / "done")
    root = os.path.realpath(str(tmp_path))
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            cwd = os.readlink("/proc/%s/cwd" % name)
        except OSError:
            continue
        if cwd == root or cwd.startswith(root + os.sep):
            try:
                os.kill(int(name), signal.SIGKILL)
            except OSError:
                pass


def wait_for(path, timeout=WAIT):
    deadline = time.monotonic() + timeout
    while not os.path.exists(path):
        assert time.monotonic() < deadline, "the job never acted (%s)" % path
        time.sleep(0.05)


def job_body(go, done, damage):
    """Shell text: wait for the go file (bounded), do the damage, leave the marker."""
    return ("i=0; while [ ! -e %s ] && [ $i -lt %d ]; do sleep 0.05; i=$((i+1)); done; %s; touch %s"
            % (go, WAIT * 20, damage, done))


def detached(how, body, tmp_path):
    """The command line of the tool call: ``body`` started by ``how``, outliving the call."""
    quoted = body.replace("'", "'\\''")
    if how == "setsid":
        return "setsid -f sh -c '%s' >/dev/null 2>&1" % quoted
    if how == "nohup":
        return "nohup sh -c '%s' >/dev/null 2>&1 &" % quoted
    if how == "disown":
        return "bash -c '( %s ) >/dev/null 2>&1 & disown'" % quoted
    if how == "fork":
        code = ("import os,subprocess; os.fork() and os._exit(0); os.setsid(); "
                "subprocess.call(%r, shell=True)" % body)
        return "python3 -c %s >/dev/null 2>&1" % json.dumps(code).replace("$", "\\$")
    assert how == "trap"
    script = tmp_path / "job.sh"
    script.write_text("trap '%s' EXIT\ntrue\n" % quoted)
    return "nohup sh %s >/dev/null 2>&1 &" % script


def move_main(repo):
    """The damage: a new commit (made with the hooks off) written straight into .git/refs/heads/main."""
    return ("oid=$(%s commit-tree HEAD^{tree} -p refs/heads/main -m outliving); printf '%%s\\n' $oid > "
            ".git/refs/heads/main; echo $oid > %s" % (HOOKS_OFF, os.path.join(os.path.dirname(repo.path), "oid")))


DAMAGES = {
    "ref": move_main,
    "hooks-off": lambda repo: "git config core.hooksPath /dev/null && git commit -q --allow-empty -m outliving",
    "runtime": lambda repo: ": > .git/agentguard/runtime/hooks/backstop/reftx.py",
    "hook": lambda repo: ": > .git/hooks/reference-transaction",
}


def proved(repo, kind, main_before):
    """The damage really is there (so the test can fail)."""
    if kind in ("ref", "hooks-off"):
        assert repo.rev("main") != main_before
    if kind == "hooks-off":
        assert repo.run("config", "core.hooksPath").stdout.strip() == "/dev/null"
    if kind == "runtime":
        assert os.path.getsize(os.path.join(repo.path, REFTX)) == 0
    if kind == "hook":
        assert os.path.getsize(os.path.join(repo.path, ".git", "hooks", "reference-transaction")) == 0


def clean(repo, main_before):
    """Nothing damaged: main where it was, the hooks on, the runtime whole, the doctor passes."""
    assert repo.rev("main") == main_before
    assert repo.run("config", "core.hooksPath", check=False).stdout.strip() != "/dev/null"
    assert os.path.getsize(os.path.join(repo.path, REFTX)) > 0
    assert os.path.getsize(os.path.join(repo.path, ".git", "hooks", "reference-transaction")) > 0
    fails, ok = doctor_fails(repo)
    assert ok, fails


@pytest.mark.parametrize("how", ["setsid", "nohup", "disown", "fork", "trap"])
@pytest.mark.parametrize("kind", sorted(DAMAGES))
def test_a_job_left_running_is_undone_by_the_next_check(guarded, jobs, tmp_path, how, kind):
    repo, _ = guarded
    repo.run("checkout", "-q", "main")
    go, done = jobs
    main_before = repo.rev("main")
    command = detached(how, job_body(go, done, DAMAGES[kind](repo)), tmp_path)
    pre_check(repo, command)
    assert repo.sh(command).returncode == 0
    rc, report = after(repo)
    assert (rc, report["decision"]) == (0, "unchanged"), report  # the job has not acted yet
    open(go, "w").close()
    wait_for(done)
    proved(repo, kind, main_before)
    moved_to = repo.rev("main")
    pre_check(repo, "ls")  # the next tool call
    clean(repo, main_before)
    rc, report = after(repo)
    assert (rc, report["decision"]) == (3, "repaired"), report
    assert [e["call"][:30] for e in report["earlier"]] == [command[:30]], report["earlier"]
    assert "since the tool call `%s" % command[:30] in report["reason"]
    assert "likely a process it left running" in report["reason"]
    if moved_to != main_before:  # nothing lost: the commit the job made is on a rescue branch
        assert report["rescued"] and all(r.startswith("agentguard/rescued/main-") for r in report["rescued"])
        assert repo.rev(report["rescued"][0]) == moved_to
    log = [json.loads(line) for line in open(os.path.join(repo.path, ".git", "agentguard", "audit.jsonl"))]
    assert any(e["hook"] == "check" and e["rule"] == "tool-outcome" for e in log), log
    pre_check(repo, "ls")
    assert after(repo)[1]["decision"] == "unchanged"
    clean(repo, main_before)


def test_a_job_that_reapplies_is_undone_once_it_ends(guarded, jobs, tmp_path):
    """A job sets core.hooksPath=/dev/null again and again for a while: each check puts it back; once
    the job has ended, the next check repairs and the state stays clean."""
    repo, _ = guarded
    go, done = jobs
    main_before = repo.rev("main")
    # (a set can meet a check's lock on .git/config; the last one, while no check runs, cannot)
    again = "n=0; while [ $n -lt 15 ]; do git config core.hooksPath /dev/null; sleep 0.1; n=$((n+1)); done; " \
        "git config core.hooksPath /dev/null"
    body = job_body(go, "%s.first" % done, "true") + "; %s; touch %s" % (again, done)
    command = detached("setsid", body, tmp_path)
    pre_check(repo, command)
    assert repo.sh(command).returncode == 0
    after(repo)
    open(go, "w").close()
    wait_for(done + ".first")
    for _ in range(3):  # calls while the job is still at work
        pre_check(repo, "ls")
        rc, report = after(repo)
        assert report["decision"] in ("unchanged", "repaired"), report
    wait_for(done)
    assert repo.run("config", "core.hooksPath").stdout.strip() == "/dev/null"
    pre_check(repo, "ls")
    rc, report = after(repo)
    assert report["decision"] == "repaired" and "core.hookspath" in report["reason"].lower(), report
    clean(repo, main_before)
    pre_check(repo, "ls")
    assert after(repo)[1]["decision"] == "unchanged"


def test_an_agents_dev_server_is_named_and_left_alone(guarded, jobs):
    """`sleep 2 &` in the repository (a dev server, a watcher): named in the report, never killed, and
    no repair: the call comes out "unchanged"."""
    repo, _ = guarded
    command = "sleep 2 >/dev/null 2>&1 &"
    pre_check(repo, command)
    assert repo.sh(command).returncode == 0
    rc, report = after(repo)
    assert (rc, report["decision"], report["reason"]) == (0, "unchanged", ""), report
    running = report["running"]
    assert [r["command"] for r in running] == ["sleep 2"], running
    os.kill(running[0]["pid"], 0)  # still alive: never killed
    pre_check(repo, "ls")
    assert after(repo)[1]["running"] == []  # the next call started nothing


def _calm(repo):
    """One ordinary tool call: no repair, nothing named."""
    pre_check(repo, "git status")
    rc, report = after(repo)
    assert (rc, report["decision"], report["earlier"]) == (0, "unchanged", []), report


def test_what_a_person_does_between_calls_stays(guarded, tmp_path):
    """Between tool calls a person pulls main, fetches, commits on a feature branch, adds a remote and
    an upstream, sets a program in their own ~/.gitconfig: nothing is undone."""
    repo, bare = guarded
    _calm(repo)
    new = upstream_advance(bare, repo.env, tmp_path)
    repo.run("checkout", "-q", "main")
    repo.run("pull", "-q", "--ff-only", "origin", "main")
    _calm(repo)
    assert repo.rev("main") == new
    upstream_advance(bare, repo.env, tmp_path, "again")
    repo.run("fetch", "-q", "origin")
    _calm(repo)
    repo.run("checkout", "-q", "feat")
    repo.commit("more feature work")
    tip = repo.rev("feat")
    repo.run("remote", "add", "upstream", bare.path)
    repo.run("fetch", "-q", "upstream")
    repo.run("branch", "-q", "--set-upstream-to", "upstream/main", "feat")
    repo.run("config", "--global", "credential.helper", "store")
    _calm(repo)
    assert repo.rev("feat") == tip and repo.run("remote").stdout.split() == ["origin", "upstream"]
    assert repo.run("config", "--global", "credential.helper").stdout.strip() == "store"
    assert repo.run("config", "branch.feat.merge").stdout.strip() == "refs/heads/main"


def test_a_persons_grant_and_install_between_calls_stay(guarded):
    """A person's `agentguard allow main` between calls is never taken away; a person who set a
    watched key and then re-ran `agentguard install` in their own terminal keeps it."""
    repo, _ = guarded
    _calm(repo)
    status, out = allow_on_pty(repo, "main")
    assert status == 0, out
    grants = os.path.join(repo.path, ".git", "agentguard", "allow")
    made = sorted(os.listdir(grants))
    assert made == ["main".encode().hex() + ".json"], made
    _calm(repo)
    assert sorted(os.listdir(grants)) == made
    repo.run("config", "core.sshCommand", "ssh -o ControlMaster=no")
    repo.agentguard("install")
    _calm(repo)
    assert repo.run("config", "core.sshCommand").stdout.strip() == "ssh -o ControlMaster=no"


def test_a_persons_watched_key_without_install_is_undone_and_says_how_to_keep_it(guarded):
    """The other side of the choice: a person's own change to a watched key between calls, not made
    through agentguard, is undone at the next agent call, and the message says how to keep it."""
    repo, _ = guarded
    _calm(repo)
    repo.run("config", "core.sshCommand", "ssh -o ControlMaster=no")
    pre_check(repo, "ls")
    rc, report = after(repo)
    assert report["decision"] == "repaired", report
    assert "agentguard install` in their own terminal" in report["reason"]
    assert repo.run("config", "core.sshCommand", check=False).stdout.strip() == ""


def test_a_call_that_runs_the_check_itself_does_not_make_its_change_the_normal(guarded):
    """A call changes a watched key, then runs `.git/agentguard/check` itself (once the way to make a
    change the new normal): that check compares with the known-good snapshot and undoes it."""
    repo, _ = guarded
    command = "git config core.sshCommand 'ssh -i /tmp/other-key' && %s -- ls >/dev/null" % CHECK
    pre_check(repo, command)
    assert repo.sh(command).returncode == 0
    rc, report = after(repo)
    assert report["decision"] == "repaired" and "core.sshcommand" in report["reason"].lower(), report
    assert repo.run("config", "core.sshCommand", check=False).stdout.strip() == ""
    _calm(repo)


def test_hole_an_agents_install_after_its_own_change_makes_it_the_normal(guarded):
    """Open (SECURITY.md, Work that outlives the call): an agent may run `agentguard install` (the
    analyser refuses it only when the remotes changed), and install records a fresh baseline, so a
    change the same call (or a job it left running) made before it is kept. The analyser refuses the
    `git config` here; a command it cannot read would not be."""
    repo, _ = guarded
    command = "git config core.sshCommand 'ssh -i /tmp/other-key' && %s install >/dev/null" % AGENTGUARD
    assert pre_check(repo, command) == "block"  # the analyser reads this one
    assert repo.sh(command).returncode == 0
    rc, report = after(repo)
    assert (rc, report["decision"]) == (0, "unchanged"), report
    assert repo.run("config", "core.sshCommand").stdout.strip() == "ssh -i /tmp/other-key"


def test_hole_a_job_can_forge_a_break_glass_grant_between_calls(guarded, jobs, tmp_path):
    """Open (SECURITY.md, Work that outlives the call): the break-glass folder is accepted between calls
    (a person's `agentguard allow`), and nothing tells a person's grant file from one a job writes the
    same way: a job that writes one and then moves main gets past the backstop, and the next check
    leaves main where the grant put it. The remedy is the server side; the push guard still asks the
    remote, and the audit log records the use."""
    repo, _ = guarded
    repo.run("checkout", "-q", "main")
    go, done = jobs
    main_before = repo.rev("main")
    forge = ("import json,os,time; n=time.time(); os.makedirs('.git/agentguard/allow',exist_ok=True); "
             "open('.git/agentguard/allow/%s.json','w').write(json.dumps("
             "{'branch':'main','created':n,'expires':n+600,'nonce':os.urandom(16).hex()}))" % "main".encode().hex())
    damage = ("python3 -c \"%s\" && git update-ref refs/heads/main $(git commit-tree HEAD^{tree} -p main -m forged) "
              "2>%s" % (forge, tmp_path / "err"))
    command = detached("setsid", job_body(go, done, damage), tmp_path)
    pre_check(repo, command)
    assert repo.sh(command).returncode == 0
    assert after(repo)[1]["decision"] == "unchanged"
    open(go, "w").close()
    wait_for(done)
    moved = repo.rev("main")
    assert moved != main_before
    pre_check(repo, "ls")
    assert after(repo)[1]["decision"] == "unchanged"
    assert repo.rev("main") == moved
