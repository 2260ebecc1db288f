"""agentguard as a pre-commit hook repository, driven by the real pre-commit framework."""
import os
import shutil
import subprocess
import sys

import pytest

from helpers import need_path, refused

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CURRENT = shutil.which("pre-commit", path=os.path.dirname(sys.executable))
MINIMUM = os.path.join(ROOT, ".venv-precommit-min", "bin", "pre-commit")  # the declared minimum version


@pytest.fixture(scope="session")
def pc_home(tmp_path_factory):
    """One pre-commit cache for the session: the hook environment is built once per revision."""
    home = str(tmp_path_factory.mktemp("pre-commit-home"))
    os.makedirs(os.path.join(home, "pip"), exist_ok=True)
    return home


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory):
    """A clone of this repository at its committed HEAD (what `repo: <path>` + `rev:` point at)."""
    path = str(tmp_path_factory.mktemp("hookrepo") / "agentguard")
    subprocess.run(["git", "clone", "-q", ROOT, path], check=True)
    rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=path, check=True, capture_output=True,
                         text=True).stdout.strip()
    return path, rev


def framework_env(repo, pc_home):
    return dict(repo.env, PRE_COMMIT_HOME=pc_home, PIP_CACHE_DIR=os.path.join(pc_home, "pip"))


def pc(repo, pc_home, *args, exe=None, check=True):
    env = framework_env(repo, pc_home)
    proc = subprocess.run([exe or CURRENT, *args], cwd=repo.path, env=env, capture_output=True, text=True,
                          timeout=600)
    if check:
        assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


@pytest.mark.slow  # a real pre-commit try-repo run: tens of seconds
@pytest.mark.parametrize("exe", [CURRENT, MINIMUM], ids=["current", "minimum-3.2.0"])
def test_pre_commit_try_repo_refuses_a_commit_on_main(guarded, pc_home, hook_repo, exe):
    need_path(exe)
    repo, bare = guarded
    main = repo.rev("main")
    proc = pc(repo, pc_home, "try-repo", hook_repo[0], "agentguard-commit", exe=exe, check=False)
    assert proc.returncode == 1 and "agentguard: refused a commit on protected branch 'main'" in proc.stdout
    repo.run("checkout", "-q", "feat")
    pc(repo, pc_home, "try-repo", hook_repo[0], "agentguard-commit", exe=exe)
    push = ["try-repo", hook_repo[0], "agentguard-push", "--hook-stage", "pre-push", "--from-ref", "HEAD",
            "--to-ref", "HEAD", "--local-branch", "refs/heads/feat", "--remote-name", "origin",
            "--remote-url", bare.path, "--remote-branch"]
    proc = pc(repo, pc_home, *push, "refs/heads/main", exe=exe, check=False)
    assert proc.returncode == 1 and "pushing to protected branch 'main'" in proc.stdout
    pc(repo, pc_home, *push, "refs/heads/feat", exe=exe)
    assert repo.rev("main") == main and bare.rev("main") == main


def _config(repo, hook_repo, doctor_args=None):
    path, rev = hook_repo
    text = "repos:\n- repo: %s\n  rev: %s\n  hooks:\n  - id: agentguard-commit\n  - id: agentguard-push\n" % (path, rev)
    text += "  - id: agentguard-doctor\n" + ("    args: %s\n" % doctor_args if doctor_args else "")
    with open(os.path.join(repo.path, ".pre-commit-config.yaml"), "w") as fh:
        fh.write(text)


@pytest.mark.slow  # a real pre-commit try-repo run: tens of seconds
def test_framework_only_with_real_commits_and_pushes(make_repo, pc_home, hook_repo):
    repo, bare = make_repo(install=False)
    _config(repo, hook_repo)
    repo.run("add", ".pre-commit-config.yaml")
    pc(repo, pc_home, "install", "-t", "pre-commit", "-t", "pre-push")
    pc(repo, pc_home, "install-hooks")
    repo.env = framework_env(repo, pc_home)
    main = repo.rev("main")
    proc = repo.run("commit", "-m", "on main", check=False)
    assert refused(proc) and "commit-on-protected" in proc.stdout + proc.stderr
    assert repo.staged() == [".pre-commit-config.yaml"] and repo.rev("main") == main
    repo.run("checkout", "-q", "-b", "feat")
    proc = repo.run("commit", "-m", "feature", check=False)
    assert proc.returncode != 0 and "agentguard install" in proc.stdout + proc.stderr, "doctor steers to install"
    proc = repo.run("-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "feature")  # set-up only
    repo.run("branch", "dev")
    env_skip = dict(repo.env, SKIP="agentguard-doctor")
    for args in (["origin", "feat:main"], ["origin", "feat:main", "dev:dev"], ["origin", "dev:dev", "feat:main"],
                 ["origin", "HEAD:refs/heads/main"]):
        before = bare.run("for-each-ref").stdout
        proc = repo.run("push", *args, env=env_skip, check=False)
        assert refused(proc), (args, proc.stdout + proc.stderr)
        assert bare.run("for-each-ref").stdout == before, "nothing may be pushed"
    assert bare.rev("main") == main
    repo.run("push", "-q", "origin", "feat", env=env_skip)
    assert bare.rev("feat") == repo.rev("feat")
    # A push that only deletes runs no framework hook at all (pre-commit skips deletions): what
    # stays out of reach without `agentguard install`. The bare remote's own denyDeleteCurrent
    # keeps its HEAD branch; another protected branch would go:
    repo.run("push", "-q", "--no-verify", "origin", "feat:release", env=env_skip)
    subprocess.run(["git", "config", "--add", "receive.denyDeleteCurrent", "true"], cwd=bare.path, check=True)
    proc = repo.run("push", "origin", ":main", env=env_skip, check=False)
    assert proc.returncode != 0 and "agentguard" not in proc.stderr and bare.rev("main") == main


def test_framework_with_doctor_install_option_closes_the_gap(make_repo, pc_home, hook_repo):
    repo, bare = make_repo(install=False)
    repo.run("checkout", "-q", "-b", "feat")
    _config(repo, hook_repo, doctor_args="[--install]")
    repo.run("add", ".pre-commit-config.yaml")
    pc(repo, pc_home, "install", "-t", "pre-commit", "-t", "pre-push")
    pc(repo, pc_home, "install-hooks")
    repo.env = framework_env(repo, pc_home)
    proc = repo.run("commit", "-m", "feature", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert os.path.exists(os.path.join(repo.path, ".git", "agentguard", "manifest.json")), "backstop installed"
    main = repo.rev("main")
    bare.run("symbolic-ref", "HEAD", "refs/heads/feat")  # so that the remote itself would allow deleting main
    for args in (["origin", ":main"], ["origin", "--delete", "main"], ["origin", "feat:main"],
                 ["origin", "feat:main", "feat:dev"]):
        proc = repo.run("push", *args, check=False)
        assert refused(proc), (args, proc.stdout + proc.stderr)
        assert bare.rev("main") == main and bare.rev("refs/heads/dev") is None
    repo.run("checkout", "-q", "main")
    assert refused(repo.run("commit", "--no-verify", "--allow-empty", "-m", "x", check=False))
    assert repo.rev("main") == main


@pytest.mark.parametrize("order", ["agentguard-first", "pre-commit-first"])
def test_both_install_orders_and_pre_commit_uninstall(make_repo, pc_home, hook_repo, order):
    repo, bare = make_repo(install=False)
    repo.run("checkout", "-q", "-b", "feat")
    _config(repo, hook_repo)
    repo.run("add", ".pre-commit-config.yaml")
    steps = [lambda: repo.agentguard("install"),
             lambda: pc(repo, pc_home, "install", "-t", "pre-commit", "-t", "pre-push")]
    for step in (steps if order == "agentguard-first" else steps[::-1]):
        step()
    pc(repo, pc_home, "install-hooks")
    repo.env = framework_env(repo, pc_home)
    repo.run("commit", "-q", "-m", "feature")  # framework hooks pass: the doctor finds the backstop
    main = repo.rev("main")
    assert refused(repo.run("push", "origin", "feat:main", check=False))
    pc(repo, pc_home, "uninstall", "-t", "pre-commit", "-t", "pre-push")
    assert refused(repo.run("push", "origin", "feat:main", check=False))
    repo.run("checkout", "-q", "main")
    assert refused(repo.run("commit", "--allow-empty", "-m", "x", check=False))
    assert refused(repo.run("commit", "--no-verify", "--allow-empty", "-m", "x", check=False))
    assert repo.rev("main") == main and bare.rev("main") == main
    proc = repo.agentguard("doctor", check=False)
    assert proc.returncode == 0, proc.stdout
