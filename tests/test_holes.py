"""The holes SECURITY.md states stay open: each test shows it is still open, so the list stays true.
If one of these starts failing, a hole was closed: move it to the guarantees."""
import os
import subprocess

from helpers import refused


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


def test_push_no_verify_lands(guarded):
    repo, bare = guarded
    repo.run("push", "-q", "--no-verify", "origin", "feat:main")
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


def test_a_reconfigured_remote_forges_the_counterpart(guarded, tmp_path):
    repo, bare = guarded
    forged = tmp_path / "forged.git"
    subprocess.run(["git", "clone", "-q", "--bare", repo.path, str(forged)], env=repo.env, check=True)
    subprocess.run(["git", "update-ref", "refs/heads/main", repo.rev("feat")], cwd=str(forged), env=repo.env,
                   check=True)
    repo.run("remote", "set-url", "origin", str(forged))
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
