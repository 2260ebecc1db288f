"""The adapter files stay out of git's way: after `agentguard install --harness all` `git status` is
clean, `git clean -fd`, `git stash -u` and `git worktree remove` neither touch nor trip over them (they
are listed in the repository's own `info/exclude`), a settings file the team tracks is never changed
(Claude Code's hook goes into `.claude/settings.local.json`; Gemini CLI and Codex have no local file,
so theirs is left alone and the doctor says how a team adds it), a branch switch keeps every adapter,
and uninstall leaves the work tree and `info/exclude` byte for byte as they were. `install --shared`
writes the committed locations for a team, with no exclude block."""
import json
import os
import subprocess

import pytest

from helpers import Git, tree_snapshot, doctor_report
from test_worktrees import failures, installed_files

from agentguard.installer.setup import gitexclude
from agentguard.installer.harness import settingsfile, hookcommand

BEGIN = gitexclude.BEGIN


def exclude_path(repo):
    return os.path.join(repo.path, ".git", "info", "exclude")


def read(path):
    with open(path, "rb") as fh:
        return fh.read()


def status(repo, cwd=None):
    return repo.run("status", "--porcelain", "--untracked-files=all", cwd=cwd).stdout


def after_check(repo, cwd=None):
    proc = subprocess.run([os.path.join(repo.path, ".git", "agentguard", "check"), "--after", "--json"],
                          cwd=cwd or repo.path, env=repo.env, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          timeout=60)
    return json.loads(proc.stdout)


def whole(repo):
    """The work tree (adapters included) and the repository's exclude file."""
    files = {rel: v for rel, v in tree_snapshot(repo.path).items() if not rel.startswith(".git" + os.sep)}
    return files, read(exclude_path(repo)) if os.path.exists(exclude_path(repo)) else None


def test_install_leaves_git_status_clean_and_housekeeping_keeps_the_adapters(make_repo):
    repo, _ = make_repo(install=False)
    exclude_before = read(exclude_path(repo))
    repo.agentguard("install", "--harness", "all")
    assert status(repo) == ""
    installed = installed_files(repo.path)
    assert ".claude/settings.local.json" in installed and ".claude/settings.json" not in installed
    exclude = read(exclude_path(repo))
    assert exclude.startswith(exclude_before) and exclude.count(BEGIN.encode()) == 1
    # the settings entry is one short command that runs the hook script in the git dir
    for group in json.loads(installed[".claude/settings.local.json"][1])["hooks"]["PreToolUse"]:
        assert len(group["hooks"][0]["command"]) < 800 and "harness-hook" in group["hooks"][0]["command"]

    proc = repo.run("clean", "-fd")
    assert proc.stdout == "" and installed_files(repo.path) == installed
    proc = repo.run("stash", "-u")
    assert "No local changes to save" in proc.stdout and repo.run("stash", "list").stdout == ""
    assert installed_files(repo.path) == installed
    assert after_check(repo)["decision"] == "unchanged"
    # reinstall: nothing to do, the block once
    assert "nothing changed" in repo.agentguard("install", "--harness", "all").stdout
    assert read(exclude_path(repo)) == exclude


def test_worktree_remove_works_and_keeps_the_main_adapters(make_repo, tmp_path):
    repo, _ = make_repo(install=False)
    repo.agentguard("install", "--harness", "all")
    installed = installed_files(repo.path)
    exclude = read(exclude_path(repo))
    wt = str(tmp_path / "wt")
    proc = repo.run("worktree", "add", wt, "-b", "x")
    assert installed_files(wt) == installed  # post-checkout installed the adapters there
    assert status(repo, cwd=wt) == ""
    repo.run("-C", wt, "clean", "-fd")
    assert installed_files(wt) == installed
    proc = repo.run("worktree", "remove", wt, check=False)
    assert proc.returncode == 0, proc.stderr
    assert not os.path.exists(wt)
    assert installed_files(repo.path) == installed and read(exclude_path(repo)) == exclude
    assert status(repo) == ""
    checks, proc = doctor_report(repo)
    assert proc.returncode == 0, failures(checks)


def test_worktree_add_and_remove_leave_the_after_check_nothing_to_undo(make_repo, tmp_path):
    """Issue #25's worktree line: the post-checkout install into a new worktree is not taken for
    tampering (agentguard's own writes are adopted by every work tree's snapshot)."""
    repo, _ = make_repo(install=False)
    repo.agentguard("install", "--harness", "all")
    wt = str(tmp_path / "wt")
    repo.run("worktree", "add", wt, "-b", "x")
    repo.run("worktree", "remove", wt)
    assert after_check(repo)["decision"] == "unchanged"


@pytest.fixture
def team_repo(make_repo):
    """A repository whose main tracks .claude/settings.json, .gemini/settings.json and gptme.toml."""
    repo, bare = make_repo(install=False)
    for rel, data in ((".claude/settings.json", {"permissions": {"allow": ["Bash(ls)"]}}),
                      (".gemini/settings.json", {"ui": {"theme": "GitHub"}})):
        os.makedirs(os.path.join(repo.path, os.path.dirname(rel)), exist_ok=True)
        with open(os.path.join(repo.path, rel), "w") as fh:
            json.dump(data, fh, indent=2)
    with open(os.path.join(repo.path, "gptme.toml"), "w") as fh:
        fh.write('# the team\'s gptme settings\n[prompt]\nabout_user = "a team"\n')
    repo.run("add", ".claude", ".gemini", "gptme.toml")
    repo.run("commit", "-q", "-m", "the team's settings")
    repo.run("push", "-q", "origin", "main")
    return repo, bare


def test_tracked_settings_are_never_changed_and_a_branch_switch_keeps_the_adapter(team_repo):
    repo, _ = team_repo
    before = whole(repo)
    proc = repo.agentguard("install", "--harness", "all")
    assert "git tracks .gemini/settings.json" in proc.stderr and "install --shared --harness gemini" in proc.stderr
    assert status(repo) == "" and repo.run("diff").stdout == ""
    local = read(os.path.join(repo.path, ".claude", "settings.local.json"))
    assert settingsfile.hooked(local, "claude")
    # the hook found where Claude Code reads it refuses a push to main
    command = json.loads(local)["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    payload = {"tool_name": "Bash", "tool_input": {"command": "git push --no-verify origin HEAD:main"},
               "cwd": repo.path, "hook_event_name": "PreToolUse"}
    hook = subprocess.run(["sh", "-c", command], cwd=repo.path, env=repo.env, input=json.dumps(payload),
                          capture_output=True, text=True, timeout=60)
    assert "deny" in hook.stdout or hook.returncode == 2, (hook.stdout, hook.stderr)
    checks, proc = doctor_report(repo)
    assert proc.returncode == 0, failures(checks)
    assert checks["adapters.claude"]["status"] == "pass"
    assert checks["adapters.gemini"]["status"] == "warn" and "--shared" in checks["adapters.gemini"]["fix"]
    assert checks["adapters.gptme"]["status"] == "warn" and "gptme.toml" in checks["adapters.gptme"]["summary"]

    # a branch that changes the team's .claude (settings and a new file), committed; then back to main
    repo.run("switch", "-q", "-c", "tweak")
    os.makedirs(os.path.join(repo.path, ".claude", "commands"))
    with open(os.path.join(repo.path, ".claude", "commands", "x.md"), "w") as fh:
        fh.write("x\n")
    with open(os.path.join(repo.path, ".claude", "settings.json"), "w") as fh:
        fh.write('{"permissions": {}}\n')
    repo.run("add", "-A")
    repo.run("commit", "-q", "-m", "tweak the team settings")
    committed = repo.run("show", "--name-only", "--format=", "HEAD").stdout.split()
    assert sorted(committed) == [".claude/commands/x.md", ".claude/settings.json"]  # nothing of ours
    repo.run("switch", "-q", "main")
    assert read(os.path.join(repo.path, ".claude", "settings.local.json")) == local
    assert status(repo) == ""
    checks, proc = doctor_report(repo)
    assert proc.returncode == 0, failures(checks)
    assert checks["adapters.claude"]["status"] == "pass"

    repo.agentguard("uninstall")
    assert whole(repo) == before


def test_uninstall_restores_the_exclude_file_byte_for_byte(make_repo):
    repo, _ = make_repo(install=False)
    path = exclude_path(repo)
    with open(path, "ab") as fh:
        fh.write(b"*.log\n/build")  # the user's lines, the last without a newline
    before = whole(repo)
    repo.agentguard("install", "--harness", "all")
    assert read(path).startswith(before[1] + b"\n" + BEGIN.encode())  # the user's last line ended first
    assert status(repo) == ""
    # the user adds a line after the block; a reinstall keeps the block where it is
    with open(path, "ab") as fh:
        fh.write(b"tmp/\n")
    with_line = read(path)
    repo.agentguard("install", "--harness", "all")
    assert read(path) == with_line
    repo.agentguard("uninstall")
    files, exclude = whole(repo)
    assert files == before[0] and exclude == before[1] + b"tmp/\n"


def test_a_missing_exclude_file_is_created_and_removed_again(make_repo):
    repo, _ = make_repo(install=False)
    os.unlink(exclude_path(repo))
    before = whole(repo)
    repo.agentguard("install", "--harness", "pi")
    assert read(exclude_path(repo)).startswith(BEGIN.encode())
    assert status(repo) == ""
    repo.agentguard("uninstall")
    assert whole(repo) == before and not os.path.exists(exclude_path(repo))


def test_shared_writes_the_committed_places_and_local_moves_them_back(make_repo):
    repo, _ = make_repo(install=False)
    before = whole(repo)
    repo.agentguard("install", "--harness", "all", "--shared")
    assert read(exclude_path(repo)) == before[1]  # no block: the team commits the files
    assert ".claude/settings.json" in status(repo) or ".claude/" in status(repo)
    assert settingsfile.hooked(read(os.path.join(repo.path, ".claude", "settings.json")), "claude")
    assert not os.path.exists(os.path.join(repo.path, ".claude", "settings.local.json"))
    # a reinstall keeps the mode
    assert "nothing changed" in repo.agentguard("install", "--harness", "all").stdout
    # --local: Claude Code's hook moves to settings.local.json, the rest is listed in info/exclude
    repo.agentguard("install", "--harness", "all", "--local")
    assert not os.path.exists(os.path.join(repo.path, ".claude", "settings.json"))
    assert settingsfile.hooked(read(os.path.join(repo.path, ".claude", "settings.local.json")), "claude")
    assert status(repo) == ""
    checks, proc = doctor_report(repo)
    assert proc.returncode == 0, failures(checks)
    repo.agentguard("uninstall")
    assert whole(repo) == before


def test_an_earlier_install_in_the_tracked_settings_json_is_taken_out(team_repo):
    """An install from before this change merged Claude Code's hook into the team's settings.json
    (left modified): the new install takes it out again and writes settings.local.json."""
    repo, _ = team_repo
    repo.agentguard("install", "--harness", "claude", "--shared")
    assert repo.run("diff", "--name-only").stdout.split() == [".claude/settings.json"]
    repo.agentguard("install", "--harness", "claude", "--local")
    assert repo.run("diff").stdout == "" and status(repo) == ""
    assert settingsfile.hooked(read(os.path.join(repo.path, ".claude", "settings.local.json")), "claude")


@pytest.mark.parametrize("harness,payload", [
    ("codex", {"tool_name": "Bash", "tool_input": {"command": "git push origin HEAD:main"}}),
    ("claude", {"tool_name": "Bash", "tool_input": {"command": "git push origin HEAD:main"}}),
])
def test_the_short_command_fails_closed_without_its_script(make_repo, harness, payload):
    """Claude Code, Codex and Gemini CLI take exit 1 as allow: with the hook script gone from the git
    dir the settings entry still refuses (exit 2, or the harness's JSON deny) before the call."""
    repo, _ = make_repo(install=False)
    repo.agentguard("install", "--harness", harness)
    os.unlink(os.path.join(repo.path, ".git", "agentguard", hookcommand.HOOK_FILE))
    command = settingsfile.hook_command(harness)
    proc = subprocess.run(["sh", "-c", command], cwd=repo.path, env=repo.env, input=json.dumps(payload),
                          capture_output=True, text=True, timeout=60)
    denied = proc.returncode == 2 or json.loads(proc.stdout or "{}").get("hookSpecificOutput", {}).get(
        "permissionDecision") == "deny"
    assert denied and "agentguard install" in proc.stdout + proc.stderr, (proc.returncode, proc.stdout, proc.stderr)
    checks, proc = doctor_report(repo)
    assert checks["runtime.files"]["status"] == "fail" and hookcommand.HOOK_FILE in checks["runtime.files"]["summary"]


def test_a_clone_of_a_team_that_committed_the_adapters_runs_one_hook(make_repo, tmp_path):
    """`install --shared`, committed: a teammate's clone then installs with no second hook entry and
    nothing changed in the work tree."""
    repo, bare = make_repo(install=False)
    repo.agentguard("install", "--harness", "claude,copilot", "--shared")
    repo.run("switch", "-q", "-c", "adapters")
    repo.run("add", ".claude", ".github")
    repo.run("commit", "-q", "-m", "the team's adapters")
    repo.run("push", "-q", "origin", "adapters")
    clone_path = str(tmp_path / "clone")
    subprocess.run(["git", "clone", "-q", "-b", "adapters", bare.path, clone_path], env=repo.env, check=True)
    clone = Git(clone_path, repo.env)
    clone.agentguard("install", "--harness", "claude,copilot")
    assert not os.path.exists(os.path.join(clone_path, ".claude", "settings.local.json"))
    assert status(clone) == "" and clone.run("diff").stdout == ""
    checks, proc = doctor_report(clone)
    assert proc.returncode == 0, failures(checks)
    assert checks["adapters.claude"]["status"] == "pass" and checks["adapters.copilot"]["status"] == "pass"
    before = whole(clone)
    assert "nothing changed" in clone.agentguard("install", "--harness", "claude,copilot").stdout
    assert whole(clone) == before
