"""The holes SECURITY.md states stay open: each test shows it is still open, so the list stays true.
If one of these starts failing, a hole was closed: move it to the guarantees."""
import os
import subprocess

from helpers import AGENTGUARD, refused


def test_hooks_path_override_skips_every_hook(guarded):
    repo, _ = guarded
    main = repo.rev("main")
    repo.run("-c", "core.hooksPath=/dev/null", "commit", "--allow-empty", "-q", "-m", "hole 1")
    assert repo.rev("main") != main


def test_git_config_env_override_skips_every_hook(guarded):
    repo, _ = guarded
    main = repo.rev("main")
    env = dict(repo.env, GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0="core.hooksPath", GIT_CONFIG_VALUE_0="")
    repo.run("commit", "--allow-empty", "-q", "-m", "hole 2", env=env)
    assert repo.rev("main") != main


def test_a_non_executable_hook_is_ignored_by_git(guarded):
    repo, _ = guarded
    main = repo.rev("main")
    for hook in ("pre-commit", "reference-transaction"):
        os.chmod(os.path.join(repo.path, ".git", "hooks", hook), 0o644)
    repo.run("commit", "--allow-empty", "-q", "-m", "hole 3")
    assert repo.rev("main") != main


def test_push_no_verify_through_the_users_own_pushinsteadof_lands(guarded):
    """The push guard's catch-all rule has the empty prefix, and git takes the longest matching
    pushInsteadOf: a rule of the user's own whose prefix no remote of install's had (here `mine:`)
    outruns it, and the push goes straight where that rule points (the doctor fails,
    ``push.remotes``, when a remote uses it; the adapters refuse the push to an uncovered URL)."""
    repo, bare = guarded
    repo.run("config", "--global", "url.%s.pushInsteadOf" % bare.path, "mine:")
    proc = repo.run("push", "-q", "--no-verify", "origin", "feat:main", check=False)
    assert proc.returncode != 0 and bare.rev("main") != repo.rev("feat"), "the remote as configured is covered"
    repo.run("push", "-q", "--no-verify", "mine:", "feat:main")
    assert bare.rev("main") == repo.rev("feat")


def test_send_pack_lands(guarded):
    """git send-pack runs no pre-push hook and ignores pushInsteadOf: the analyser blocks it for agents."""
    repo, bare = guarded
    repo.run("send-pack", bare.path, "refs/heads/feat:refs/heads/main")
    assert bare.rev("main") == repo.rev("feat")


def test_a_ref_file_written_by_hand_moves_main(guarded):
    repo, _ = guarded
    with open(os.path.join(repo.path, ".git", "refs", "heads", "main"), "w") as fh:
        fh.write(repo.rev("feat") + "\n")
    assert repo.rev("main") == repo.rev("feat")


def test_branch_copy_onto_main_runs_no_hook(guarded):
    repo, _ = guarded
    repo.run("checkout", "-q", "feat")
    repo.run("branch", "-C", "feat", "main")
    assert repo.rev("main") == repo.rev("feat")
    proc = repo.agentguard("doctor", check=False)  # ...but the doctor names what it left behind
    assert proc.returncode == 1 and "branches.ahead" in proc.stdout


def test_an_ssh_command_swapped_after_install_forges_the_counterpart(guarded, tmp_path):
    """The URL (and upload-pack) of each remote is recorded at install and checked (tests/test_counterparts.py);
    what carries an ssh URL (core.sshCommand, GIT_SSH_COMMAND) is not, so another repository can answer there."""
    repo, bare = guarded
    forged = tmp_path / "forged.git"
    subprocess.run(["git", "clone", "-q", "--bare", repo.path, str(forged)], env=repo.env, check=True)
    subprocess.run(["git", "update-ref", "refs/heads/main", repo.rev("feat")], cwd=str(forged), env=repo.env,
                   check=True)
    repo.run("config", "ssh.variant", "simple")
    repo.run("config", "core.sshCommand", "sh -c 'exec git-upload-pack %s' ssh" % bare.path)
    repo.run("remote", "set-url", "origin", "ssh://agentguard.invalid/repo.git")
    repo.agentguard("install")  # the user records the ssh remote
    repo.run("config", "core.sshCommand", "sh -c 'exec git-upload-pack %s' ssh" % forged)
    repo.run("fetch", "-q", "origin")
    repo.run("merge", "-q", "--ff-only", "origin/main")
    assert repo.rev("main") == repo.rev("feat")


def test_git_assembled_at_run_time_is_not_seen_by_the_analyser(guarded):
    repo, _ = guarded
    command = "python3 -c \"import subprocess as s; s.run(['gi'+'t', 'commit', '-m', 'x'])\""
    proc = repo.agentguard("check", "--json", command, check=False)
    assert proc.returncode == 0
    # the git hooks still refuse what it runs
    assert refused(repo.run("commit", "--allow-empty", "-m", "x", check=False))


def test_a_variable_holding_dotdot_climbs_out_of_a_known_start(guarded, tmp_path):
    repo, _ = guarded
    start = tmp_path / "x-"
    start.mkdir()
    climb = os.path.relpath(os.path.join(repo.path, ".git", "hooks"), str(start))
    command = "X=%s; rm -rf %s/$X" % (climb, start)
    check = subprocess.run([AGENTGUARD, "check", "--cwd", repo.path, command], env=repo.env,
                           capture_output=True, text=True, timeout=60)
    assert check.returncode == 0, check.stdout  # allowed: the hole
    subprocess.run(["sh", "-c", command], cwd=repo.path, env=repo.env, check=True, timeout=60)
    assert not os.path.exists(os.path.join(repo.path, ".git", "hooks"))


def test_a_program_names_git_only_past_the_first_64_kib(guarded):
    repo, _ = guarded
    with open(os.path.join(repo.path, "big.py"), "w") as fh:
        fh.write("# padding\n" * 7000 + "import shutil; shutil.rmtree('.git/hooks')\n")
    check = subprocess.run([AGENTGUARD, "check", "--cwd", repo.path, "python3 big.py"], env=repo.env,
                           capture_output=True, text=True, timeout=60)
    assert check.returncode == 0, check.stdout  # allowed: the hole


def test_a_project_installed_before_its_first_remote_follows_any_remote_added_later(make_repo, tmp_path):
    """A new project is installed before it has a remote, and its main must follow the one added
    later (pull, fast-forward): so until `agentguard install` records the remotes, any remote added
    counts, one whose main holds local work too. After a reinstall the same move is refused."""
    repo, _ = make_repo(remote=False)
    evil = str(tmp_path / "evil.git")
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", evil], env=repo.env, check=True)
    repo.run("switch", "-q", "-c", "local")
    repo.commit("local work")
    repo.run("push", "-q", evil, "local:main")  # the first push to an empty repository
    repo.run("switch", "-q", "main")
    repo.run("remote", "add", "evil", evil)
    repo.run("fetch", "-q", "evil")
    repo.run("merge", "-q", "--ff-only", "evil/main")
    assert repo.rev("main") == repo.rev("local")  # the hole: local work on main
    repo.run("reset", "-q", "--keep", "HEAD~1")
    # an agent cannot pin the remotes it added: recording them the first time is a person's decision
    proc = subprocess.run([os.path.join(repo.path, ".git", "agentguard", "check"), "--json", "agentguard install"],
                          cwd=repo.path, env=repo.env, capture_output=True, text=True)
    assert proc.returncode == 1 and '"remote-config"' in proc.stdout, proc.stdout
    repo.agentguard("install")  # a person records evil as the remote main follows: only now is it pinned
    other = str(tmp_path / "other.git")
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", other], env=repo.env, check=True)
    repo.run("switch", "-q", "local")
    repo.commit("more local work")
    repo.run("switch", "-q", "main")
    repo.run("push", "-q", other, "local:main")
    repo.run("remote", "add", "other", other)
    repo.run("fetch", "-q", "other")
    before = repo.rev("main")
    assert refused(repo.run("merge", "--ff-only", "other/main", check=False))
    assert repo.rev("main") == before
