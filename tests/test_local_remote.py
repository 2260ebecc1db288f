"""A remote on the same machine (#29): a bare remote reached by a local path is just files. The analyser
refuses writes into its git directory and git commands aimed into it other than through its transport;
the after-check puts back a protected branch a call moved there (commits kept on
``refs/agentguard/rescued/...`` in that repository), takes away a hook the call planted there and restores
its config. A submodule or a repository the agent created inside the work tree is judged with the guarded
repository's policy. Each attack runs for real between the pre-check and the after-check (as
test_outcome.py drives a tool call); the ``test_hole_*`` tests show what stays open (SECURITY.md)."""
import os
import subprocess
import time

import pytest

from helpers import Git
from test_outcome import after, pre_check, runtime

PY = "python3 -c \"import os; p = os.path.join(*%r); open(p, 'w').write(open('.git/refs/heads/feat').read())\""


def decision(repo, command, cwd=None):
    import json
    proc = runtime(repo, "--json", "--", command, cwd=cwd)
    data = json.loads(proc.stdout)
    return data["decision"], data.get("reason", "")


def world(guarded):
    """(repo, bare, main's oid, feat's oid): the remote's main at main; feat's commits not there."""
    repo, bare = guarded
    return repo, bare, repo.rev("main"), repo.rev("feat")


def call(repo, command, cwd=None):
    """One tool call, run for real: pre-check (any decision), the command, the after-check."""
    pre_check(repo, command)
    proc = repo.sh(command, cwd=cwd)
    return proc


def rescued(bare):
    out = bare.run("for-each-ref", "--format=%(refname) %(objectname)", "refs/agentguard/rescued/").stdout
    return dict(line.split(" ") for line in out.splitlines())


# -- the analyser ---------------------------------------------------------------------------------
REFUSED = [
    "cp .git/refs/heads/feat {R}/refs/heads/main",
    "printf '%s\\n' $(git rev-parse feat) > {R}/refs/heads/main",
    "git --git-dir={R} update-ref refs/heads/main feat",
    "git -C {R} update-ref refs/heads/main feat",
    "GIT_DIR={R} git update-ref refs/heads/main feat",
    "cd .. && git -C work-remote.git update-ref refs/heads/main feat",
    "printf '#!/bin/sh\\n' > {R}/hooks/post-receive",
    "cp evil ../work-remote.git/hooks/update",
    "git --git-dir={R} config receive.denyCurrentBranch ignore",
    "git -C ../work-remote.git config --unset receive.denyCurrentBranch",
    "git -C {R} config core.hooksPath /dev/null",
    "git config --file ../work-remote.git/config receive.denyDeletes false",
    "printf '[core]\\n' >> {R}/config",
    "rm -rf ../work-remote.git",
    "mv {R} /tmp/elsewhere",
    "cp -r .git/objects/. ../work-remote.git/objects/",
]
ALLOWED = [
    "git push origin feat",
    "git fetch",
    "git fetch origin main",
    "git ls-remote {R}",
    "git ls-remote origin",
    "git clone {R} copy",
    "git -C {R} log --oneline",
    "git --git-dir={R} for-each-ref",
    "git -C {R} config --list",
    "git -C {R} config core.bare",
    "cat {R}/HEAD",
    "ls {R}/hooks",
]


@pytest.mark.parametrize("command", REFUSED)
def test_analyser_refuses_writes_into_a_local_remote(guarded, command):
    repo, bare = guarded
    open(os.path.join(repo.path, "evil"), "w").close()
    assert decision(repo, command.replace("{R}", bare.path))[0] == "block"


@pytest.mark.parametrize("command", ALLOWED)
def test_analyser_lets_the_remote_be_used_and_read(guarded, command):
    repo, bare = guarded
    assert decision(repo, command.replace("{R}", bare.path)) == ("allow", "")


@pytest.mark.parametrize("url", ["file://{R}", "../work-remote.git", "../work-remote", "{R}/", "local:"])
def test_analyser_finds_the_remote_by_every_spelling(guarded, url):
    """A ``file://`` URL, a relative path (with git's ``.git`` suffix search), an ``insteadOf`` rewrite."""
    repo, bare = guarded
    if url == "local:":
        repo.run("config", "url.%s/.insteadOf" % os.path.dirname(bare.path), "local:")
        url = "local:work-remote.git"
    repo.run("config", "remote.origin.url", url.replace("{R}", bare.path))
    pre_check(repo, "git status")  # the snapshot of the call before names the remote
    assert decision(repo, "cp -r .git/objects/. %s/objects/" % bare.path)[0] == "block"
    assert decision(repo, "git -C %s config receive.denyNonFastForwards false" % bare.path)[0] == "block"
    assert decision(repo, "git ls-remote origin") == ("allow", "")


def test_a_remote_elsewhere_is_no_guarded_path(guarded, tmp_path):
    """An ssh-like URL and a repository no remote names: nothing of theirs is guarded (no false block)."""
    repo, bare = guarded
    other = tmp_path / "other.git"
    subprocess.run(["git", "init", "-q", "--bare", str(other)], env=repo.env, check=True)
    repo.run("config", "remote.origin.url", "host:work-remote.git")
    pre_check(repo, "git status")
    assert not os.path.exists(os.path.join(repo.path, ".git", "agentguard", "outcome", "local-remotes.json"))
    assert decision(repo, "cp -r .git/objects/. %s/objects/" % bare.path) == ("allow", "")
    assert decision(repo, "rm -rf %s" % other) == ("allow", "")


# -- the after-check ------------------------------------------------------------------------------
ATTACKS = {
    "cp": "cp -r .git/objects/. {R}/objects/ && cp .git/refs/heads/feat {R}/refs/heads/main",
    "printf": "cp -r .git/objects/. {R}/objects/ && printf '%s\\n' {feat} > {R}/refs/heads/main",
    "git-dir": "git push -q origin feat && git --git-dir={R} update-ref refs/heads/main {feat}",
    "dash-C": "git push -q origin feat && git -C {R} update-ref refs/heads/main {feat}",
    "GIT_DIR": "git push -q origin feat && GIT_DIR={R} git update-ref refs/heads/main {feat}",
    "hard-link": "git push -q origin feat && ln {R}/refs/heads/main held && printf '%s\\n' {feat} > held",
    "symlink": "git push -q origin feat && ln -s {R}/refs/heads/main held && printf '%s\\n' {feat} > held",
    "python": "git push -q origin feat && " + PY % (["..", "work-remote.git", "refs", "heads", "ma" + "in"],),
}


@pytest.mark.parametrize("how", sorted(ATTACKS))
def test_after_check_puts_back_the_local_remotes_main(guarded, how):
    repo, bare, main, feat = world(guarded)
    command = ATTACKS[how].replace("{R}", bare.path).replace("{feat}", feat)
    proc = call(repo, command)
    assert proc.returncode == 0, proc.stderr
    assert bare.rev("main") == feat  # the damage is real
    status, report = after(repo)
    assert status == 3 and report["decision"] == "repaired", report
    assert bare.rev("main") == main
    assert feat in rescued(bare).values()  # nothing lost, kept in the remote, not as a branch
    assert not bare.run("branch", "--list", "agentguard/*").stdout.strip()
    assert any("work-remote.git" in u["what"] for u in report["undone"])
    assert repo.rev("main") == main and repo.rev("origin/main") == main


def test_a_remotes_main_made_symbolic_is_put_back_itself_not_through_its_target(guarded):
    """The call points the remote's main at another branch (a symbolic ref): main is put back as a plain
    ref, and the branch it pointed to is left where the call put it (update-ref --no-deref; without it
    git would move that branch instead, and main would stay an alias of a branch anyone may move)."""
    repo, bare, main, feat = world(guarded)
    command = "git push -q origin feat && git --git-dir={R} symbolic-ref refs/heads/main refs/heads/feat"
    assert call(repo, command.replace("{R}", bare.path)).returncode == 0
    assert (bare.rev("main"), bare.rev("feat")) == (feat, feat)  # the damage is real
    status, report = after(repo)
    assert status == 3 and report["decision"] == "repaired", report
    assert bare.run("symbolic-ref", "-q", "refs/heads/main", check=False).returncode == 1  # a plain ref again
    assert (bare.rev("main"), bare.rev("feat")) == (main, feat)


def test_remote_put_back_before_the_local_refs_are_judged(guarded):
    """The local refs check believes ``origin/main`` when the remote advertises it: a call that writes
    the remote's main and then fetches and fast-forwards local main to it leaves both put back."""
    repo, bare, main, feat = world(guarded)
    command = ("cp -r .git/objects/. {R}/objects/ && cp .git/refs/heads/feat {R}/refs/heads/main && git fetch -q "
               "&& git merge -q --ff-only origin/main").replace("{R}", bare.path)
    assert call(repo, command).returncode == 0
    assert (bare.rev("main"), repo.rev("origin/main"), repo.rev("main")) == (feat, feat, feat)
    status, report = after(repo)
    assert status == 3, report
    assert (bare.rev("main"), repo.rev("origin/main"), repo.rev("main")) == (main, main, main)
    assert any(b.startswith("agentguard/rescued/main") for b in report["rescued"])  # the local rescue branch


def test_a_push_with_hooks_off_to_a_local_remote_is_put_back(make_repo):
    """test_outcome.py's push that left the machine (`--no-push-guard`, hooks off), to a remote on this
    machine: it did not leave it. The remote's main, origin/main and main are all put back."""
    repo, bare = make_repo(install=False)
    repo.agentguard("install", "--no-push-guard")
    remote = bare.rev("main")
    command = "git -c core.hooksPath=/dev/null commit -q --allow-empty -m shipped && " \
              "git -c core.hooksPath=/dev/null push -q --no-verify origin HEAD:main"
    assert call(repo, command).returncode == 0
    shipped = repo.rev("main")
    assert bare.rev("main") == shipped != remote
    status, report = after(repo)
    assert status == 3, report
    assert (bare.rev("main"), repo.rev("origin/main"), repo.rev("main")) == (remote, remote, remote)
    assert shipped in rescued(bare).values() and repo.rev(report["rescued"][0]) == shipped


def test_after_check_takes_a_planted_hook_away_and_restores_the_config(guarded):
    repo, bare = guarded
    hooks = os.path.join(bare.path, "hooks")
    sample = os.path.join(hooks, "update.sample")
    with open(sample, "rb") as fh:
        sample_bytes = fh.read()
    with open(os.path.join(bare.path, "config"), "rb") as fh:
        config_bytes = fh.read()
    command = ("printf '#!/bin/sh\\ntouch planted\\n' > {R}/hooks/post-receive && chmod +x {R}/hooks/post-receive "
               "&& echo x >> {R}/hooks/update.sample && git -C {R} config core.hooksPath /dev/null"
               ).replace("{R}", bare.path)
    assert call(repo, command).returncode == 0
    assert os.path.exists(os.path.join(hooks, "post-receive"))
    assert bare.run("config", "core.hooksPath").stdout.strip() == "/dev/null"
    status, report = after(repo)
    assert status == 3, report
    assert not os.path.exists(os.path.join(hooks, "post-receive"))
    with open(sample, "rb") as fh:
        assert fh.read() == sample_bytes
    with open(os.path.join(bare.path, "config"), "rb") as fh:
        assert fh.read() == config_bytes
    planted = [u for u in report["undone"] if "post-receive" in u["what"]]
    assert planted and "removed" in planted[0]["what"]
    store = os.path.join(repo.path, ".git", "agentguard", "outcome", "store")
    kept = [n for n in os.listdir(store) if open(os.path.join(store, n), "rb").read() == b"#!/bin/sh\ntouch planted\n"]
    assert kept  # the planted hook's bytes are kept


def test_after_check_restores_the_server_guard_deleted_from_the_remote(guarded):
    repo, bare = guarded
    repo.agentguard("install", "--server", bare.path)
    pre_receive = os.path.join(bare.path, "hooks", "pre-receive")
    with open(pre_receive, "rb") as fh:
        guard = fh.read()
    assert call(repo, "rm -f %s" % pre_receive).returncode == 0
    assert not os.path.exists(pre_receive)
    status, report = after(repo)
    assert status == 3, report
    with open(pre_receive, "rb") as fh:
        assert fh.read() == guard
    assert os.access(pre_receive, os.X_OK)


def test_a_remote_taken_away_is_reported(guarded, tmp_path):
    """A call that moves the whole remote away (a Python rename the analyser does not read as one): the
    after-check cannot put it back and says so (the user is told to run the doctor)."""
    repo, bare = guarded
    command = "python3 -c \"import os; os.rename(%r, %r)\"" % (bare.path, str(tmp_path / "moved.git"))
    assert call(repo, command).returncode == 0
    assert not os.path.exists(bare.path)
    status, report = after(repo)
    assert status == 1 and any("work-remote.git" in f for f in report["failed"]), report


LOOK_ALIKES = ["git push -q origin feat", "git fetch -q", "git ls-remote {R} >/dev/null", "git clone -q {R} copy",
               "git -C {R} log --oneline >/dev/null", "cat {R}/HEAD"]


@pytest.mark.parametrize("command", LOOK_ALIKES)
def test_using_the_remote_is_no_repair(guarded, command):
    repo, bare, main, _ = world(guarded)
    command = command.replace("{R}", bare.path)
    assert decision(repo, command) == ("allow", "")
    assert call(repo, command).returncode == 0
    status, report = after(repo)
    assert (status, report["decision"]) == (0, "unchanged"), report
    assert bare.rev("main") == main and not rescued(bare)


def test_a_teammates_push_between_calls_is_never_reverted(guarded, tmp_path):
    """A shared-disk remote: a teammate pushes main between two of the agent's calls. The next call's
    pre-check takes the remote as it is then; nothing is put back."""
    repo, bare, main, _ = world(guarded)
    assert call(repo, "git status").returncode == 0
    assert after(repo)[0] == 0
    mate = Git(str(tmp_path / "mate"), repo.env)
    subprocess.run(["git", "clone", "-q", bare.path, mate.path], env=repo.env, check=True)
    mate.commit("teammate's work")
    mate.run("push", "-q", "origin", "main")
    theirs = mate.rev("main")
    assert call(repo, "git fetch -q && git status").returncode == 0
    status, report = after(repo)
    assert (status, report["decision"]) == (0, "unchanged"), report
    assert bare.rev("main") == theirs and not rescued(bare)


# -- submodules and repositories made inside the work tree ---------------------------------------------
def _submodule(repo, bare):
    command = "git -c protocol.file.allow=always submodule add -q %s sub" % bare.path
    assert call(repo, command).returncode == 0
    assert after(repo)[0] == 0  # ordinary work
    sub = Git(os.path.join(repo.path, "sub"), repo.env)
    sub.run("checkout", "-q", "-b", "feature")
    sub.commit("in the submodule")
    return sub


def test_submodule_push_to_main_is_refused_later_and_put_back(guarded):
    repo, bare, main, _ = world(guarded)
    sub = _submodule(repo, bare)
    assert not os.path.exists(os.path.join(repo.path, ".git", "modules", "sub", "hooks", "pre-push"))  # no guard
    for command, cwd in (("git -C sub push origin HEAD:main", None), ("cd sub && git push origin HEAD:main", None),
                         ("git push origin HEAD:main", sub.path)):
        assert decision(repo, command, cwd=cwd)[0] == "block", command
    assert decision(repo, "git -C sub push origin feature") == ("allow", "")
    # run anyway (the submodule's clone has no hooks): the remote's main moves, the after-check puts it back
    assert call(repo, "git -C sub push -q origin HEAD:main").returncode == 0
    assert bare.rev("main") == sub.rev("HEAD")
    status, report = after(repo)
    assert status == 3, report
    assert bare.rev("main") == main and sub.rev("HEAD") in rescued(bare).values()
    assert call(repo, "git -C sub push -q origin feature").returncode == 0  # the look-alike
    assert after(repo)[0] == 0 and bare.rev("feature") == sub.rev("HEAD")


def test_inner_repository_push_to_main_is_refused_later_and_put_back(guarded):
    repo, bare, main, _ = world(guarded)
    assert call(repo, "git init -q inner && git -C inner commit -q --allow-empty -m inner").returncode == 0
    assert after(repo)[0] == 0
    inner = Git(os.path.join(repo.path, "inner"), repo.env)
    inner.run("remote", "add", "r", bare.path)
    for command in ("git -C inner push %s HEAD:main" % bare.path, "cd inner && git push r HEAD:main",
                    "cd inner && git push --force r HEAD:refs/heads/main"):
        assert decision(repo, command)[0] == "block", command
    assert decision(repo, "cd inner && git push r HEAD:feature") == ("allow", "")
    proc = call(repo, "git -C inner push -q --force r HEAD:main")
    assert proc.returncode == 0, proc.stderr
    assert bare.rev("main") == inner.rev("HEAD")
    status, report = after(repo)
    assert status == 3, report
    assert bare.rev("main") == main


# -- the remedy, and what stays open ----------------------------------------------------------------
def test_server_guard_on_the_bare_remote_refuses_a_transport_push(guarded, tmp_path):
    """``agentguard install --server`` on the bare remote: a client without agentguard cannot push
    main there; a direct write into its files is not a push, and the server guard does nothing about it."""
    repo, bare, main, feat = world(guarded)
    repo.agentguard("install", "--server", bare.path)
    plain = Git(str(tmp_path / "plain"), repo.env)
    subprocess.run(["git", "clone", "-q", bare.path, plain.path], env=repo.env, check=True)
    plain.commit("unguarded client")
    proc = plain.run("push", "origin", "HEAD:main", check=False)
    assert proc.returncode != 0 and bare.rev("main") == main
    repo.run("push", "-q", "origin", "feat")
    with open(os.path.join(bare.path, "refs", "heads", "main"), "w") as fh:
        fh.write(feat + "\n")
    assert bare.rev("main") == feat  # the server guard never saw it


def _wait_for(path, deadline=10.0):
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if os.path.exists(path):
            return True
        time.sleep(0.05)
    return False


def test_hole_job_outliving_the_call_writes_the_remote(guarded, tmp_path):
    """A job the call leaves running writes the remote's main after the after-check ran: nothing puts it
    back (the next pre-check takes the remote as it finds it, as it must for a teammate's push)."""
    repo, bare, main, feat = world(guarded)
    marker, go, job = tmp_path / "done", tmp_path / "go", tmp_path / "job.sh"
    job.write_text("i=0\nwhile [ ! -e %s ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done\n"
                   "printf '%%s\\n' %s > %s/refs/heads/main\ntouch %s\n" % (go, feat, bare.path, marker))
    assert call(repo, "git push -q origin feat && setsid -f sh %s >/dev/null 2>&1 </dev/null" % job).returncode == 0
    try:
        first = after(repo)
        assert first[0] == 0 and not marker.exists(), first
    finally:
        go.touch()  # the job acts only once the after-check is over (and never outlives the test)
        assert _wait_for(str(marker))
    assert bare.rev("main") == feat  # moved after the after-check
    assert call(repo, "git status").returncode == 0
    assert after(repo)[0] == 0 and bare.rev("main") == feat  # still open


def test_hole_remote_the_config_does_not_name(guarded, tmp_path):
    """A repository on this machine that no remote of this repository names (another project's, a
    mirror reached by a path typed on the command line) is not watched: a write into it stays."""
    repo, bare, main, feat = world(guarded)
    other = Git(str(tmp_path / "other.git"), repo.env)
    subprocess.run(["git", "clone", "-q", "--bare", bare.path, other.path], env=repo.env, check=True)
    command = "cp -r .git/objects/. {O}/objects/ && cp .git/refs/heads/feat {O}/refs/heads/main".replace(
        "{O}", other.path)
    assert call(repo, command).returncode == 0
    assert after(repo)[0] == 0
    assert other.rev("main") == feat
