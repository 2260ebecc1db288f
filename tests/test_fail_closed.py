"""Fail closed (#26): no program the caller can swap decides, a failing git call is never "an empty
repository", an empty repository is one with nothing in it, a template-born git dir with a work tree
is guarded, and a snapshot of the wrong shape is a broken guard.

Each reproduction asserts that nothing moved (local main, the remote's main, the work) and its
ordinary neighbour asserts that the effect happened."""
import json
import os
import shutil
import subprocess

from helpers import Git, need, refused, state, upstream_advance, ZERO


def real_git(env):
    return shutil.which("git", path=env["PATH"])


def exec_path(env):
    return subprocess.run([real_git(env), "--exec-path"], env=env, capture_output=True, text=True,
                          check=True).stdout.strip()


def script(path, text):
    with open(path, "w") as fh:
        fh.write("#!/bin/sh\n" + text)
    os.chmod(path, 0o755)


def evil_repo(repo, tmp_path):
    """A bare repository E whose main is feat's local commit (the issue's "evil repo")."""
    evil = str(tmp_path / "E.git")
    subprocess.run(["git", "init", "-q", "--bare", evil], env=repo.env, check=True)
    repo.run("--git-dir=" + evil, "fetch", "-q", repo.path, "feat:main")
    return evil


# -- item 4: GIT_EXEC_PATH with a git that fails ---------------------------------------------------

def failing_git_dir(tmp_path, env):
    """A directory with a `git` that passes `rev-parse --git-common-dir` through and fails otherwise."""
    d = tmp_path / "failing-exec"
    d.mkdir()
    script(str(d / "git"), 'case "$1 $2" in "rev-parse --git-common-dir") exec %s "$@" ;; esac\nexit 1\n'
           % real_git(env))
    return str(d)


def test_exec_path_with_a_failing_git_is_no_empty_repository(guarded, tmp_path):
    repo, bare = guarded
    before = state(repo, bare)
    bad = dict(repo.env, GIT_EXEC_PATH=failing_git_dir(tmp_path, repo.env))
    for args in (["commit", "--allow-empty", "-m", "x"], ["commit", "--no-verify", "--allow-empty", "-m", "x"]):
        proc = repo.run(*args, check=False, env=bad)
        assert refused(proc), proc.stdout + proc.stderr
        assert state(repo, bare) == before
    # the neighbour: the same environment on a feature branch commits
    repo.run("switch", "-q", "feat")
    repo.run("commit", "-q", "--allow-empty", "-m", "y", env=bad)
    assert repo.rev("feat") != before["feat"]


def test_exec_path_upload_pack_cannot_forge_origin_main(guarded, tmp_path):
    repo, bare = guarded
    evil = evil_repo(repo, tmp_path)
    d = tmp_path / "pack-exec"
    d.mkdir()
    script(str(d / "git-upload-pack"), 'exec "%s/git-upload-pack" "%s"\n' % (exec_path(repo.env), evil))
    before = repo.rev("refs/remotes/origin/main")
    proc = repo.run("fetch", "origin", check=False, env=dict(repo.env, GIT_EXEC_PATH=str(d)))
    assert repo.rev("refs/remotes/origin/main") == before, proc.stdout + proc.stderr
    assert refused(proc), proc.stdout + proc.stderr
    repo.run("switch", "-q", "feat")
    proc = repo.run("fetch", "origin", "main:main", check=False, env=dict(repo.env, GIT_EXEC_PATH=str(d)))
    assert refused(proc) and repo.rev("main") == before, proc.stdout + proc.stderr
    repo.run("switch", "-q", "main")
    # the neighbours: a plain fetch, and one whose GIT_EXEC_PATH is git's own, bring the real main
    new = upstream_advance(bare, repo.env, tmp_path)
    repo.run("fetch", "-q", "origin", env=dict(repo.env, GIT_EXEC_PATH=exec_path(repo.env)))
    assert repo.rev("refs/remotes/origin/main") == new
    new = upstream_advance(bare, repo.env, tmp_path, "again")
    repo.run("pull", "-q", "--ff-only")
    assert repo.rev("main") == new


# -- item 5: no local branches is not an empty repository -------------------------------------------

def test_a_clone_without_local_branches_is_not_empty(guarded, tmp_path):
    repo, bare = guarded
    repo.run("push", "-q", "origin", "feat")
    clone = Git(str(tmp_path / "c"), repo.env)
    subprocess.run(["git", "clone", "-q", "-b", "feat", bare.path, clone.path], env=repo.env, check=True)
    clone.agentguard("install")
    clone.run("switch", "-q", "--detach")
    clone.run("branch", "-q", "-D", "feat")
    clone.run("commit", "-q", "--allow-empty", "-m", "local only")
    local = clone.rev("HEAD")
    proc = clone.run("switch", "-c", "main", check=False)
    assert refused(proc), proc.stdout + proc.stderr
    assert clone.rev("refs/heads/main") is None and clone.rev("HEAD") == local
    proc = clone.run("branch", "main", check=False)
    assert refused(proc) and clone.rev("refs/heads/main") is None
    # the neighbour: main made from the remote's main
    clone.run("switch", "-q", "-c", "main", "origin/main")
    assert clone.rev("main") == bare.rev("main")


def test_a_new_project_with_a_remote_commits_and_pushes_first(env, tmp_path):
    bare = str(tmp_path / "new.git")
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", bare], env=env, check=True)
    work = tmp_path / "new"
    subprocess.run(["git", "init", "-q", "-b", "main", str(work)], env=env, check=True)
    repo = Git(str(work), env)
    repo.agentguard("install")
    repo.run("remote", "add", "origin", bare)
    repo.commit("first")
    repo.run("push", "-q", "-u", "origin", "main")
    assert Git(bare, env).rev("main") == repo.rev("main")
    assert refused(repo.run("commit", "--allow-empty", "-m", "second", check=False))


# -- item 7: no program from the caller's PATH in the hooks -----------------------------------------

def evil_path(tmp_path, env):
    d = tmp_path / "evil-bin"
    d.mkdir()
    script(str(d / "cat"), "exit 0\n")
    script(str(d / "grep"), "exit 1\n")
    script(str(d / "git"), "exit 1\n")
    return dict(env, PATH=str(d) + os.pathsep + env["PATH"])


def test_a_cat_on_path_cannot_hide_lines_from_the_backstop(guarded, tmp_path):
    repo, bare = guarded
    git = real_git(repo.env)
    bad = evil_path(tmp_path, repo.env)
    before = state(repo, bare)
    head = repo.rev("main")
    lines = "".join("create refs/heads/x%02d %s\n" % (i, head) for i in range(16))
    for ref in ("refs/heads/main", "refs/remotes/origin/main"):
        last = "update %s %s\n" % (ref, before["feat"])
        proc = subprocess.run([git, "update-ref", "--stdin"], cwd=repo.path, env=bad, input=lines + last,
                              capture_output=True, text=True)
        assert refused(proc), proc.stdout + proc.stderr
        assert state(repo, bare) == before and repo.rev("refs/remotes/origin/main") == head
    # the neighbour: the same transaction onto a feature branch lands whole
    proc = subprocess.run([git, "update-ref", "--stdin"], cwd=repo.path, env=bad,
                          input=lines + "update refs/heads/feat %s\n" % head, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert repo.rev("x15") == head and repo.rev("feat") == head
    # and a commit on main is refused with that PATH too (the hooks' git, not the caller's)
    proc = subprocess.run([git, "commit", "--allow-empty", "-m", "x"], cwd=repo.path, env=bad,
                          capture_output=True, text=True)
    assert proc.returncode != 0 and repo.rev("main") == head


def test_hooks_start_no_program_through_path():
    """Every hook template names git, cat and grep by the paths install recorded, never by PATH."""
    import re
    from agentguard.installer.setup.hookscripts import template
    command = re.compile(r"(^|[;&|(`]|\$\(|\b(then|do|else|if|!))\s*(cat|grep|git|sed|tr)\b")
    for name in ("lib.sh", "reference-transaction", "pre-push", "pre-receive", "pre-commit", "pre-rebase",
                 "post-checkout"):
        for line in template(name).splitlines():
            code = re.sub(r"'[^']*'|\"([^\"\\]|\\.)*\"", "''", line.split("#", 1)[0] if not
                          line.lstrip().startswith("#!") else "")
            assert not command.search(code), (name, line)


# -- item 8: a template-born git dir with a work tree -----------------------------------------------

def test_separate_git_dir_of_a_template_clone_is_guarded(env, tmp_path, make_repo):
    origin, bare = make_repo("origin-work", install=False)
    origin.run("switch", "-q", "-c", "feat")
    origin.commit("local work")
    local = origin.rev("feat")
    origin.run("switch", "-q", "main")
    proc = subprocess.run([shutil.which("agentguard", path=env["PATH"]), "install", "--template"], cwd=str(tmp_path),
                          env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    sep = tmp_path / "S"
    subprocess.run(["git", "clone", "-q", "--no-checkout", "--separate-git-dir=" + str(sep), bare.path,
                    str(tmp_path / "w")], env=env, check=True)
    s = Git(str(sep), env)
    s.run("fetch", "-q", origin.path, "feat")
    main = s.rev("refs/heads/main")
    for args in (["-c", "core.bare=true", "update-ref", "refs/heads/main", local],
                 ["update-ref", "refs/heads/main", local]):
        proc = s.run(*args, check=False)
        assert refused(proc), proc.stdout + proc.stderr
        assert s.rev("refs/heads/main") == main and bare.rev("main") == main
    # the neighbour: its work tree checks out and works on a branch
    w = Git(str(tmp_path / "w"), env)
    w.run("switch", "-q", "-c", "topic")
    w.commit("topic work")
    assert w.rev("topic") != main


# -- item 9: snapshots validated by type ------------------------------------------------------------

def test_a_policy_snapshot_of_the_wrong_type_is_a_broken_guard(guarded):
    repo, bare = guarded
    path = os.path.join(repo.path, ".git", "agentguard", "policy.json")
    with open(path) as fh:
        data = json.load(fh)
    for broken in ("main", ["main", 1], None):
        with open(path, "w") as fh:
            json.dump(dict(data, branches=broken), fh)
        before = state(repo, bare)
        proc = repo.run("commit", "--allow-empty", "-m", "x", check=False)
        assert refused(proc) and "guard-broken" in proc.stderr, proc.stdout + proc.stderr
        proc = repo.run("push", "--no-verify", "origin", "feat:main", check=False)
        assert proc.returncode != 0 and state(repo, bare) == before
        doctor = repo.agentguard("doctor", check=False)
        assert doctor.returncode != 0 and "policy.snapshot" in doctor.stdout + doctor.stderr
    for broken in ({"branches": ["main"], "source": ["x"]}, {"branches": ["main"], "remotes": ["origin"]}):
        with open(path, "w") as fh:
            json.dump(dict(data, **broken), fh)
        proc = repo.run("commit", "--allow-empty", "-m", "x", check=False)
        assert refused(proc) and "guard-broken" in proc.stderr, proc.stdout + proc.stderr
    with open(path, "w") as fh:
        json.dump(data, fh)
    # the neighbour: the snapshot put back, a branch commits and main still refuses
    repo.run("switch", "-q", "feat")
    repo.run("commit", "-q", "--allow-empty", "-m", "y")
    assert ZERO not in repo.rev("feat")


# -- the push guard's helper, swapped through PATH or GIT_EXEC_PATH ----------------------------------

def test_a_helper_on_path_does_not_stand_in_for_the_push_guard(guarded, tmp_path):
    """git prefers a `git-remote-agw` program to the guard's alias: the pre-push hook judges then."""
    repo, bare = guarded
    d = tmp_path / "helper-bin"
    d.mkdir()
    script(str(d / "git-remote-agw"), 'url=${2#agw::}\nexec %s remote-ext "$1" "git-receive-pack $url"\n'
           % real_git(repo.env))
    before = state(repo, bare)
    for env in (dict(repo.env, PATH=str(d) + os.pathsep + repo.env["PATH"]), dict(repo.env, GIT_EXEC_PATH=str(d))):
        proc = repo.run("push", "origin", "feat:main", check=False, env=env)
        assert refused(proc), proc.stdout + proc.stderr
        assert state(repo, bare) == before
    # the neighbour: a branch pushes through it
    repo.run("push", "-q", "origin", "feat", env=dict(repo.env, PATH=str(d) + os.pathsep + repo.env["PATH"]))
    assert bare.rev("feat") == before["feat"]


def test_install_records_the_programs_and_the_doctor_checks_them(guarded):
    """The manifest names the git, cat and grep the hooks run and git's exec path; the doctor fails
    when one is gone (a git upgraded away from its exec path: install records it again)."""
    from agentguard.installer.setup.hookscripts import tool_problems
    repo, _ = guarded
    with open(os.path.join(repo.path, ".git", "agentguard", "manifest.json")) as fh:
        recorded = json.load(fh)["tools"]
    assert recorded["git"] == real_git(repo.env) and recorded["exec_path"] == exec_path(repo.env)
    hook = open(os.path.join(repo.path, ".git", "hooks", "reference-transaction")).read()
    assert "ag_git='%s'" % recorded["git"] in hook and "ag_cat='%s'" % recorded["cat"] in hook
    assert tool_problems(recorded) == []
    gone = dict(recorded, cat="/nonexistent/cat", exec_path="/nonexistent/git-core")
    assert [p.split(",")[0] for p in tool_problems(gone)] == ["/nonexistent/cat", "/nonexistent/git-core"]
    assert tool_problems(None)


def test_another_git_than_the_recorded_one_fetches_main(guarded, tmp_path):
    """An IDE's git, not the one install recorded, runs the hooks with its own GIT_EXEC_PATH: that is
    no swapped program, and its fetch brings the remote's main."""
    repo, bare = guarded
    recorded = real_git(repo.env)
    others = [g for g in (os.path.expanduser("~/.cache/agentguard-git/2.47/bin/git"), "/usr/bin/git")
              if os.access(g, os.X_OK) and os.path.realpath(g) != os.path.realpath(recorded)]
    need("a second git (git 2.47)", others, "scripts/newer-git.sh builds it")
    new = upstream_advance(bare, repo.env, tmp_path)
    proc = subprocess.run([others[0], "fetch", "origin"], cwd=repo.path, env=repo.env, capture_output=True, text=True)
    assert proc.returncode == 0 and repo.rev("refs/remotes/origin/main") == new, proc.stderr
    proc = subprocess.run([others[0], "merge", "-q", "--ff-only", "origin/main"], cwd=repo.path, env=repo.env,
                          capture_output=True, text=True)
    assert proc.returncode == 0 and repo.rev("main") == new, proc.stderr
