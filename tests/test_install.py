"""The install/uninstall contract: placement, idempotence, dry runs, exit codes, the policy."""
import json
import os
import subprocess

import pytest

from helpers import AGENTGUARD, Git, agentguard, refused, tree_snapshot

HOOKS = ["pre-commit", "pre-merge-commit", "pre-rebase", "pre-push", "reference-transaction", "post-checkout"]


def write_config(repo, content):
    """The repository's committed-config file, as text or as raw bytes."""
    with open(os.path.join(repo.path, ".agentguard.toml"), "wb") as fh:
        fh.write(content if isinstance(content, bytes) else content.encode())


def test_install_writes_hooks_runtime_and_snapshot(make_repo):
    repo, _ = make_repo(install=False)
    proc = repo.agentguard("install")
    assert "installed in" in proc.stdout
    hooks = os.path.join(repo.path, ".git", "hooks")
    for hook in HOOKS:
        path = os.path.join(hooks, hook)
        assert os.access(path, os.X_OK), hook
        assert "agentguard install" in open(path).read()
    home = os.path.join(repo.path, ".git", "agentguard")
    policy = json.load(open(os.path.join(home, "policy.json")))
    assert policy["branches"] == ["main", "master"] and policy["source"] == "default"
    assert os.path.isfile(os.path.join(home, "runtime", "run.py"))
    manifest = json.load(open(os.path.join(home, "manifest.json")))
    assert set(manifest["hooks"]) == set(HOOKS)


def test_second_install_changes_nothing(make_repo):
    repo, _ = make_repo()
    before = tree_snapshot(os.path.join(repo.path, ".git"))
    proc = repo.agentguard("install")
    assert "nothing changed" in proc.stdout
    assert tree_snapshot(os.path.join(repo.path, ".git")) == before


def test_dry_run_writes_nothing(make_repo):
    repo, _ = make_repo(install=False)
    before = tree_snapshot(repo.path)
    proc = repo.agentguard("install", "--dry-run")
    assert tree_snapshot(repo.path) == before
    for hook in HOOKS:
        assert ".git/hooks/%s" % hook in proc.stdout
    assert ".git/agentguard/policy.json" in proc.stdout


def test_install_from_a_subdirectory_and_with_a_path(make_repo, tmp_path):
    repo, _ = make_repo(install=False)
    sub = os.path.join(repo.path, "a", "b")
    os.makedirs(sub)
    repo.agentguard("install", cwd=sub)
    assert os.path.isfile(os.path.join(repo.path, ".git", "hooks", "reference-transaction"))
    repo.agentguard("uninstall", repo.path, cwd=str(tmp_path))
    assert not os.path.exists(os.path.join(repo.path, ".git", "hooks", "reference-transaction"))
    repo.agentguard("install", sub, cwd=str(tmp_path))
    assert refused(repo.run("commit", "--allow-empty", "-m", "x", check=False))


def test_install_from_a_linked_worktree(make_repo, tmp_path):
    repo, _ = make_repo(install=False)
    wt = str(tmp_path / "wt")
    repo.run("worktree", "add", "-q", "-b", "side", wt)
    agentguard("install", cwd=wt, env=repo.env)
    # hooks go to the common dir: the main worktree is protected too
    assert os.path.isfile(os.path.join(repo.path, ".git", "hooks", "pre-commit"))
    assert os.path.isfile(os.path.join(repo.path, ".git", "agentguard", "policy.json"))
    assert refused(repo.run("commit", "--allow-empty", "-m", "x", check=False))
    Git(wt, repo.env).commit("side work")
    main = repo.rev("main")
    assert refused(repo.run("update-ref", "refs/heads/main", "side", cwd=wt, check=False))
    assert repo.rev("main") == main


def test_core_hooks_path_is_honoured(make_repo):
    repo, _ = make_repo(install=False)
    repo.run("config", "core.hooksPath", ".githooks")
    repo.agentguard("install")
    assert os.path.isfile(os.path.join(repo.path, ".githooks", "reference-transaction"))
    assert not os.path.exists(os.path.join(repo.path, ".git", "hooks", "reference-transaction"))
    assert refused(repo.run("commit", "--allow-empty", "-m", "x", check=False))


def test_protect_option_and_config_file(make_repo):
    repo, bare = make_repo(install=False)
    write_config(repo, '[protect]\nbranches = ["main", "release/*"]\n')
    repo.run("push", "-q", "origin", "main:release/1.0")  # protected branches are made on the server
    repo.agentguard("install")
    assert refused(repo.run("branch", "release/2.0", check=False)), "new protected names need a counterpart"
    repo.run("fetch", "-q", "origin")
    repo.run("checkout", "-q", "release/1.0")
    assert refused(repo.run("commit", "--allow-empty", "-m", "x", check=False))
    repo.run("checkout", "-q", "-b", "feature")
    repo.run("commit", "-q", "--allow-empty", "-m", "fine")
    assert refused(repo.run("push", "origin", "feature:release/2.0", check=False))
    repo.agentguard("install", "--protect", "trunk")
    policy = json.load(open(os.path.join(repo.path, ".git", "agentguard", "policy.json")))
    assert policy == {"format": 1, "branches": ["trunk"], "source": "--protect", "remotes": {"origin": bare.path}}
    repo.run("checkout", "-q", "release/1.0")
    repo.run("commit", "-q", "--allow-empty", "-m", "release is no longer protected")


def test_remote_default_branch_is_protected(make_repo):
    repo, bare = make_repo(install=False)
    repo.run("checkout", "-q", "-b", "develop")
    repo.run("push", "-q", "origin", "develop")
    repo.run("remote", "set-head", "origin", "develop")
    repo.agentguard("install")
    policy = json.load(open(os.path.join(repo.path, ".git", "agentguard", "policy.json")))
    assert policy["branches"] == ["main", "master", "develop"]
    assert refused(repo.run("commit", "--allow-empty", "-m", "x", check=False))


@pytest.mark.parametrize("content,needle", [
    ("[protect\n", "not valid TOML"),
    ('[protect]\nbranches = "main"\n', "must be a list"),
    ('[protect]\nbranches = [1]\n', "must be a string"),
    ('[protect]\nbranches = []\n', "at least one"),
    ('[protect]\nbranches = ["*"]\n', "every branch"),
    ('[protect]\nbranches = ["refs/heads/main"]\n', "without refs/heads/"),
    ('[protect]\nbranches = ["bad name"]\n', "does not allow"),
    ("protect = 3\n", "must be a table"),
    (b"\xff\xfe\x00binary", "not UTF-8"),
    ("x" * (70 * 1024), "larger than"),
])
def test_bad_config_is_a_clear_error(make_repo, content, needle):
    repo, _ = make_repo(install=False)
    write_config(repo, content)
    proc = repo.agentguard("install", check=False)
    assert proc.returncode == 1
    assert needle in proc.stderr and "Traceback" not in proc.stderr + proc.stdout
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not os.path.exists(os.path.join(repo.path, ".git", "hooks", "pre-commit"))


def test_a_pattern_that_matches_no_branch_warns(make_repo):
    repo, _ = make_repo(install=False)
    write_config(repo, '[protect]\nbranches = ["main", "relase/*"]\n')
    proc = repo.agentguard("install")
    assert "'relase/*'" in proc.stderr and "matches no branch" in proc.stderr
    assert "'main'" not in proc.stderr
    proc = repo.agentguard("install", "--protect", "mian", "--protect", "main", "--dry-run")
    assert "'mian'" in proc.stderr and "matches no branch" in proc.stderr


def test_unknown_config_keys_warn(make_repo):
    repo, _ = make_repo(install=False)
    write_config(repo, '[protect]\nbranches = ["main"]\nextra = 1\n[other]\n')
    proc = repo.agentguard("install")
    assert "unknown key protect.extra" in proc.stderr and "unknown section" in proc.stderr


@pytest.mark.parametrize("args,code", [(["install", "--bogus"], 2), (["nonsense"], 2), (["install", "a", "b"], 2)])
def test_usage_errors_exit_2(make_repo, args, code):
    repo, _ = make_repo(install=False)
    proc = repo.agentguard(*args, check=False)
    assert proc.returncode == code and "Traceback" not in proc.stderr


def test_expected_failures_exit_1_without_traceback(tmp_path, env):
    plain = tmp_path / "plain"
    plain.mkdir()
    for args, needle in ((["install", str(plain)], "not inside a git repository"),
                         (["uninstall", str(plain)], "not inside a git repository"),
                         (["install", str(tmp_path / "missing")], "not a directory")):
        proc = agentguard(*args, cwd=str(tmp_path), env=env, check=False)
        assert proc.returncode == 1, proc.stderr
        assert needle in proc.stderr and "Traceback" not in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], env=env, check=True)
    proc = agentguard("install", str(bare), cwd=str(tmp_path), env=env, check=False)
    assert proc.returncode == 1 and "bare repository" in proc.stderr and "Traceback" not in proc.stderr


def test_unwritable_hooks_dir_fails_cleanly(make_repo):
    if os.geteuid() == 0:
        # root ignores permissions; a file where the hooks directory should be fails the same way
        repo, _ = make_repo(install=False)
        hooks = os.path.join(repo.path, ".git", "hooks")
        subprocess.run(["rm", "-rf", hooks], check=True)
        open(hooks, "w").close()
    else:
        repo, _ = make_repo(install=False)
        os.chmod(os.path.join(repo.path, ".git", "hooks"), 0o500)
    proc = repo.agentguard("install", check=False)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_version_help_and_completion(env, tmp_path):
    proc = agentguard("--version", cwd=str(tmp_path), env=env)
    from agentguard import __version__
    assert proc.stdout.strip() == "agentguard %s" % __version__
    proc = agentguard("--help", cwd=str(tmp_path), env=env)
    assert "install" in proc.stdout and "uninstall" in proc.stdout
    # typer detects the shell from the parent process: run it from bash, as a bash user would
    proc = subprocess.run(["bash", "-c", '"$0" --show-completion; exit $?', AGENTGUARD], cwd=str(tmp_path),
                          env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "complete -o" in proc.stdout, proc.stdout + proc.stderr


def test_hooks_keep_working_when_the_package_is_gone(make_repo):
    """The runtime is a private copy: the hooks do not import the installed package."""
    repo, _ = make_repo()
    env = dict(repo.env, PATH="/usr/bin:/bin")  # no agentguard on PATH, no venv
    assert refused(repo.run("commit", "--allow-empty", "-m", "x", env=env, check=False))


def test_missing_runtime_fails_closed_only_where_protected(make_repo):
    repo, _ = make_repo()
    main = repo.rev("main")
    subprocess.run(["rm", "-rf", os.path.join(repo.path, ".git", "agentguard", "runtime")], check=True)
    repo.run("checkout", "-q", "-b", "feat")
    repo.commit("feature still works")  # the fast path needs no runtime and no Python
    proc = repo.run("branch", "-f", "main", "feat", check=False)
    assert refused(proc) and "guard-broken" in proc.stderr
    assert repo.rev("main") == main


def test_hostile_python_environment_is_ignored(make_repo, tmp_path):
    repo, _ = make_repo()
    evil = tmp_path / "evil"
    evil.mkdir()
    marker = tmp_path / "pwned"
    (evil / "sitecustomize.py").write_text("open(%r, 'w').write('x')\n" % str(marker))
    (evil / "json.py").write_text("open(%r, 'w').write('x')\nraise SystemExit(0)\n" % str(marker))
    (evil / "startup.py").write_text("open(%r, 'w').write('x')\n" % str(marker))
    env = dict(repo.env, PYTHONPATH=str(evil), PYTHONSTARTUP=str(evil / "startup.py"),
               PYTHONHOME=str(evil), PYTHONINSPECT="1")
    main = repo.rev("main")
    repo.run("checkout", "-q", "-b", "feat")
    repo.commit("x")
    proc = repo.run("branch", "-f", "main", "feat", env=env, check=False)
    assert refused(proc), proc.stderr
    assert repo.rev("main") == main
    assert not marker.exists()


def test_the_python_is_resolved_not_a_shim(make_repo):
    repo, _ = make_repo()
    text = open(os.path.join(repo.path, ".git", "hooks", "reference-transaction")).read()
    line = [ln for ln in text.splitlines() if ln.startswith("ag_py=")][0]
    path = line.split("=", 1)[1].strip("'")
    assert os.path.isabs(path) and os.path.realpath(path) == path and os.access(path, os.X_OK)
    assert "/shims/" not in path


def _counting_git(tmp_path):
    """A `git` first on PATH that logs each `--help-all` it is asked, then runs the real git."""
    real = subprocess.run(["sh", "-c", "command -v git"], capture_output=True, text=True, check=True).stdout.strip()
    bindir = tmp_path / "countbin"
    bindir.mkdir()
    log = tmp_path / "asked.log"
    wrapper = bindir / "git"
    wrapper.write_text('#!/bin/sh\ncase " $* " in *" --help-all "*) echo "$*" >> "%s" ;; esac\nexec "%s" "$@"\n'
                       % (log, real))
    wrapper.chmod(0o755)
    return str(bindir), log


def test_git_option_table_is_asked_once_per_git_and_kept_in_the_users_cache(make_repo, env, tmp_path):
    bindir, log = _counting_git(tmp_path)
    cache = tmp_path / "cache"
    env.update({"PATH": bindir + os.pathsep + env["PATH"], "AGENTGUARD_CACHE_HOME": str(cache)})
    first, _ = make_repo("first", remote=False, install=False)
    second, _ = make_repo("second", remote=False, install=False)
    first.agentguard("install")
    asked = log.read_text().splitlines()
    assert len(asked) > 50, asked  # every builtin command's options, asked of this git
    snapshot = os.path.join(".git", "agentguard", "gitoptions.json")
    derived = open(os.path.join(first.path, snapshot), "rb").read()
    [cached] = list(cache.iterdir())
    assert cached.read_bytes() == derived and cached.stat().st_mode & 0o077 == 0
    second.agentguard("install")
    assert log.read_text().splitlines() == asked  # a second install (another process) asks nothing
    assert open(os.path.join(second.path, snapshot), "rb").read() == derived
    cached.write_text('{"format": "something else"}')  # not a table: asked again, and the cache mended
    third, _ = make_repo("third", remote=False, install=False)
    third.agentguard("install")
    assert len(log.read_text().splitlines()) == 2 * len(asked)
    assert open(os.path.join(third.path, snapshot), "rb").read() == derived == cached.read_bytes()
    table = json.loads(derived)  # a table that reads as one but says `push --force` takes a value: a
    table["commands"]["push"]["long"]["force"] = "r"  # `push --force origin main` would hide its remote
    cached.write_text(json.dumps(table))
    fourth, _ = make_repo("fourth", remote=False, install=False)
    fourth.agentguard("install")
    assert len(log.read_text().splitlines()) == 3 * len(asked)
    assert open(os.path.join(fourth.path, snapshot), "rb").read() == derived == cached.read_bytes()
