"""Which guard a settings entry's hook command runs: ./.git's, taken without asking git, only when
it is a plain git dir of this user's with the hook in it; anything else (a linked worktree, a
commondir file, GIT_DIR, a subdirectory) asks git as before. A copied clone runs its own guard,
never the one it was copied from. The decision command is read into the hook's own subshell: a
broken one still gets the fallback (tests/test_harness_settings.py: break_runtime)."""
import os
import shutil
import subprocess

from agentguard.installer.harness import settingsfile
from harnesscalls import CALLS
from helpers import counting_git

PUSH = "git push --no-verify origin HEAD:main"


def run_hook(path, env, command, cwd=None):
    """The claude pre-call hook command as install writes it, through sh, the payload's cwd ``cwd``."""
    import json
    cwd = cwd or path
    data = json.dumps(dict(CALLS["claude"](command), cwd=cwd))
    return subprocess.run(["sh", "-c", settingsfile.hook_command("claude")], cwd=cwd, env=env, input=data,
                          capture_output=True, text=True, timeout=60)


def asked_git(marks):
    return marks.exists() and "rev-parse --git-common-dir" in marks.read_text()


def denied(proc):
    return proc.returncode == 0 and "permissionDecision\": \"deny\"" in proc.stdout


def test_the_hook_takes_dot_git_without_asking_git(guarded, tmp_path):
    repo, _ = guarded
    env, marks = counting_git(tmp_path, repo.env)
    proc = run_hook(repo.path, env, PUSH)
    assert denied(proc) and "[rule: no-verify]" in proc.stdout, proc.stdout + proc.stderr
    assert not asked_git(marks)


def test_a_copied_clone_runs_its_own_guard_not_the_originals(guarded, tmp_path):
    """The original's decision command made to allow everything: the copy still blocks (its own
    guard, under its own ./.git), and the original, asked the same, allows: the control."""
    repo, _ = guarded
    copy = str(tmp_path / "copy")
    shutil.copytree(repo.path, copy, symlinks=True)
    check = os.path.join(repo.path, ".git", "agentguard", "check")
    with open(check, "w") as fh:
        fh.write("#!/bin/sh\ncat >/dev/null\nexit 0\n")
    assert denied(run_hook(copy, repo.env, PUSH))
    assert not denied(run_hook(repo.path, repo.env, PUSH))


def test_git_is_asked_where_dot_git_is_not_the_plain_git_dir(guarded, tmp_path):
    """A subdirectory, a linked worktree (.git is a file), GIT_DIR set, a commondir file: the slow
    path runs (git is asked) and still blocks."""
    repo, _ = guarded
    env, marks = counting_git(tmp_path, repo.env)
    sub = os.path.join(repo.path, "sub")
    os.makedirs(sub)
    linked = str(tmp_path / "linked")
    repo.run("worktree", "add", "-q", linked, "-b", "side")
    git_dir = os.path.join(repo.path, ".git")
    cases = [(sub, env), (linked, env), (repo.path, dict(env, GIT_DIR=git_dir)),
             (repo.path, dict(env, GIT_COMMON_DIR=git_dir))]
    for cwd, case_env in cases:
        if marks.exists():
            marks.unlink()
        proc = run_hook(cwd, case_env, PUSH, cwd=cwd)
        assert denied(proc), (cwd, proc.stdout, proc.stderr)
        assert asked_git(marks), cwd
    commondir = os.path.join(git_dir, "commondir")
    with open(commondir, "w") as fh:
        fh.write(".\n")
    try:
        marks.unlink()
        proc = run_hook(repo.path, env, PUSH)
        assert asked_git(marks) and denied(proc), proc.stdout + proc.stderr
    finally:
        os.unlink(commondir)


def test_a_dot_git_of_another_user_asks_git(guarded, tmp_path):
    """git refuses a repository another user owns (safe.directory): the hook does not take ./.git
    then either, it asks git (as root, made to look foreign with a chown)."""
    repo, _ = guarded
    if os.geteuid() != 0:
        import pytest
        pytest.skip("needs root to chown")
    env, marks = counting_git(tmp_path, repo.env)
    git_dir = os.path.join(repo.path, ".git")
    os.chown(git_dir, 12345, -1)
    try:
        run_hook(repo.path, env, PUSH)
        assert asked_git(marks)
    finally:
        os.chown(git_dir, 0, -1)


def test_a_shell_without_test_O_asks_git_and_says_nothing_of_it(guarded, tmp_path):
    """``test -O`` is no POSIX: posh has none. The command still runs there, by asking git, with no
    complaint of the shell's on stderr (which some harnesses show the model)."""
    import json
    from helpers import need
    posh = shutil.which("posh")
    need("posh", posh)
    repo, _ = guarded
    env, marks = counting_git(tmp_path, repo.env)
    command = settingsfile.hook_command("claude")
    assert command.startswith("sh -c ")
    data = json.dumps(dict(CALLS["claude"](PUSH), cwd=repo.path))
    proc = subprocess.run([posh, "-c", command.replace("sh -c ", "%s -c " % posh, 1)], cwd=repo.path, env=env,
                          input=data, capture_output=True, text=True, timeout=60)
    assert denied(proc) and asked_git(marks), proc.stdout + proc.stderr
    assert "operator" not in proc.stderr, proc.stderr


def test_a_plugins_copy_of_the_hook_runs_the_launcher_as_a_program(guarded):
    """OpenCode's and Kilo's plugins carry the hook script inline (a teammate may commit one newer than
    the install it finds): it runs the decision command as a program, so a launcher from before the
    subshell (which finds its runtime by its own path, $0) still decides; the settings entry reads
    the script install wrote beside the launcher, and only that one reads the launcher in."""
    import json
    from agentguard.installer.harness import hookcommand
    from agentguard.hooks.harness.hook import PROTOCOLS
    repo, _ = guarded
    check = os.path.join(repo.path, ".git", "agentguard", "check")
    with open(check) as fh:
        text = fh.read()
    old = text.replace('d=${0%/*}\nif [ "$0" = agentguard ]; then d=$1; shift; fi\n', "").replace(
        '"$d/runtime/run.py"', '"${0%/*}/runtime/run.py"')
    assert old != text and "$d" not in old
    with open(check, "w") as fh:
        fh.write(old)
    data = json.dumps(dict(CALLS["opencode"](PUSH), **{PROTOCOLS["opencode"].cwd: repo.path}))
    proc = subprocess.run(["sh", "-c", hookcommand.hook_script(), "agentguard", "opencode"], cwd=repo.path,
                          env=repo.env, input=data, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "[rule: no-verify]" in proc.stderr, proc.stdout + proc.stderr
