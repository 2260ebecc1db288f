"""install --template: every new `git init` and `git clone` starts guarded (git's init.templateDir)."""
import json
import os
import subprocess

import pytest

from helpers import Git, refused

from agentguard.installer.setup.hookscripts import HOOK_NAMES


def gitconfig(env):
    return os.path.join(env["HOME"], ".gitconfig")


def template_dir(env):
    return os.path.join(env["XDG_CONFIG_HOME"], "agentguard", "git-template")


def run(args, env, cwd, check=True):
    proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    assert "Traceback" not in proc.stderr, proc.stderr
    if check:
        assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def ag(env, cwd, *args, check=True):
    from helpers import agentguard
    proc = agentguard(*args, cwd=str(cwd), env=env, check=check)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def templated(env, tmp_path, *protect):
    ag(env, tmp_path, "install", "--template", *[a for p in protect for a in ("--protect", p)])
    value = run(["git", "config", "--global", "--get", "init.templateDir"], env, str(tmp_path)).stdout.strip()
    assert os.path.realpath(value) == os.path.realpath(template_dir(env))


def test_init_then_commit_on_main_is_refused(env, tmp_path):
    templated(env, tmp_path)
    run(["git", "init", "-q", "-b", "main", "fresh"], env, str(tmp_path))
    repo = Git(str(tmp_path / "fresh"), env)
    for hook in HOOK_NAMES:
        assert os.access(os.path.join(repo.path, ".git", "hooks", hook), os.X_OK), hook
    assert os.path.isfile(os.path.join(repo.path, ".git", "agentguard", "runtime", "run.py"))
    repo.commit("first")  # an empty repository's first commit may create main (docs/policy.md)
    first = repo.rev("main")
    with open(os.path.join(repo.path, "work.txt"), "w") as fh:
        fh.write("precious\n")
    repo.run("add", "work.txt")
    proc = repo.run("commit", "-m", "second", check=False)
    assert refused(proc), proc.stdout + proc.stderr
    assert repo.rev("main") == first and repo.branches() == ["main"]
    assert repo.staged() == ["work.txt"]  # nothing lost: the staged work is still there
    # ... and the way out the message names works
    repo.run("switch", "-q", "-c", "feature")
    repo.run("commit", "-q", "-m", "second")
    assert repo.rev("main") == first and repo.rev("feature") != first


def test_protect_option_reaches_new_repositories(env, tmp_path):
    templated(env, tmp_path, "trunk")
    run(["git", "init", "-q", "-b", "trunk", "t"], env, str(tmp_path))
    repo = Git(str(tmp_path / "t"), env)
    repo.commit("first")
    with open(os.path.join(repo.path, "b.txt"), "w") as fh:
        fh.write("b\n")
    repo.run("add", "b.txt")
    proc = repo.run("commit", "-m", "second", check=False)
    assert refused(proc) and "'trunk'" in proc.stderr
    assert repo.staged() == ["b.txt"]
    with open(os.path.join(repo.path, ".git", "agentguard", "policy.json")) as fh:
        assert json.load(fh)["branches"] == ["trunk"]


@pytest.fixture
def remote(make_repo):
    """A bare remote with main, a feature branch and a tag, made before the template exists."""
    work, bare = make_repo("origin-work", install=False)
    work.run("checkout", "-q", "-b", "feat")
    work.commit("feature")
    work.run("tag", "v1")
    work.run("push", "-q", "origin", "feat", "v1")
    work.run("checkout", "-q", "main")
    return bare


def test_clone_works_and_is_guarded(env, tmp_path, remote):
    templated(env, tmp_path)
    before = remote.run("for-each-ref").stdout
    trace = dict(env, GIT_TRACE="1")
    proc = run(["git", "clone", remote.path, "clone"], trace, str(tmp_path))
    # the template's reference-transaction hook ran on clone's own ref writes, and let them through
    assert "hooks/reference-transaction prepared" in proc.stderr
    clone = Git(str(tmp_path / "clone"), env)
    assert clone.rev("main") == remote.rev("main")
    assert clone.rev("origin/feat") == remote.rev("feat") and clone.rev("v1") == remote.rev("v1")
    assert os.path.isfile(os.path.join(clone.path, ".git", "agentguard", "policy.json"))
    with open(os.path.join(clone.path, "work.txt"), "w") as fh:
        fh.write("precious\n")
    clone.run("add", "work.txt")
    proc = clone.run("commit", "-m", "on main", check=False)
    assert refused(proc), proc.stdout + proc.stderr
    assert clone.rev("main") == remote.rev("main") and clone.staged() == ["work.txt"]
    # a pull of what the remote has still works: any remote counts until install records them
    upstream = Git(str(tmp_path / "origin-work"), env)
    upstream.commit("upstream")
    upstream.run("push", "-q", "origin", "main")
    clone.run("stash", "-q")
    clone.run("pull", "-q", "--ff-only")
    assert clone.rev("main") == remote.rev("main")
    # a push onto main from a branch: refused by the pre-push hook, nothing reaches the remote
    clone.run("switch", "-q", "-c", "topic")
    clone.commit("topic work")
    after_pull = remote.run("for-each-ref").stdout
    proc = clone.run("push", "origin", "HEAD:main", check=False)
    assert refused(proc), proc.stdout + proc.stderr
    assert remote.run("for-each-ref").stdout == after_pull != before
    assert "topic" in clone.branches() and "main" in clone.branches()


def test_bare_repositories_from_the_template_take_pushes(env, tmp_path, remote):
    """The client backstop has no branch to guard in a bare repository (a server, a mirror): the
    template's hooks stand aside there until someone installs agentguard into it."""
    templated(env, tmp_path)
    run(["git", "init", "-q", "--bare", "-b", "main", "served.git"], env, str(tmp_path))
    run(["git", "clone", "-q", "--mirror", remote.path, "mirror.git"], env, str(tmp_path))
    served, mirror = Git(str(tmp_path / "served.git"), env), Git(str(tmp_path / "mirror.git"), env)
    for bare in (served, mirror):
        assert os.path.isfile(os.path.join(bare.path, "agentguard", "template.json"))
    work = Git(str(tmp_path / "origin-work"), env)
    work.run("push", "-q", str(tmp_path / "served.git"), "main")
    work.commit("next")
    work.run("push", "-q", str(tmp_path / "served.git"), "main")  # a fast-forward
    assert served.rev("main") == work.rev("main")
    work.run("reset", "-q", "--hard", "HEAD~1")
    work.run("push", "-q", "--force", str(tmp_path / "served.git"), "main")  # and a rewrite
    assert served.rev("main") == work.rev("main")
    upstream = Git(str(tmp_path / "origin-work"), env)
    upstream.commit("upstream")
    upstream.run("push", "-q", "origin", "main")
    mirror.run("fetch", "-q", "--prune")  # a mirror follows its remote's main
    assert mirror.rev("main") == remote.rev("main") == upstream.rev("main")
    # a working repository made from the same template still refuses (control)
    run(["git", "init", "-q", "-b", "main", "fresh"], env, str(tmp_path))
    fresh = Git(str(tmp_path / "fresh"), env)
    fresh.commit("first")
    assert refused(fresh.run("commit", "--allow-empty", "-m", "second", check=False))


def test_clone_push_no_verify_is_refused(env, tmp_path, remote):
    templated(env, tmp_path)
    run(["git", "clone", "-q", remote.path, "clone"], env, str(tmp_path))
    clone = Git(str(tmp_path / "clone"), env)
    clone.run("switch", "-q", "-c", "topic")
    clone.commit("topic work")
    before = remote.run("for-each-ref").stdout
    proc = clone.run("push", "--no-verify", "origin", "HEAD:main", check=False)
    assert refused(proc), proc.stdout + proc.stderr
    assert remote.run("for-each-ref").stdout == before


def test_escaped_repository_is_spotted(env, tmp_path, make_repo):
    root = tmp_path / "root"
    root.mkdir()
    templated(env, tmp_path)
    run(["git", "init", "-q", "-b", "main", "from-template"], env, str(root))
    run(["git", "init", "-q", "--template=", "-b", "main", "escaped-flag"], env, str(root))
    run(["git", "-c", "init.templateDir=", "init", "-q", "-b", "main", "escaped-config"], env, str(root))
    run(["git", "init", "-q", "--bare", "-b", "main", "served.git"], env, str(root))
    run(["git", "init", "-q", "-b", "main", "installed"], env, str(root))
    Git(str(root / "installed"), env).commit("x")
    ag(env, root / "installed", "install")
    proc = ag(env, root, "doctor", "--all", str(root), "--json", "--no-probes", check=False)
    assert proc.returncode == 1
    rows = {os.path.basename(r["path"]): r for r in json.loads(proc.stdout)["repositories"]}
    assert rows["installed"]["protected"] is True
    for name in ("escaped-flag", "escaped-config"):
        assert rows[name]["protected"] is False
        assert "created without agentguard's template" in rows[name]["status"], rows[name]
    assert "backstop only" in rows["from-template"]["status"]
    # a bare repository made from the template carries the client backstop: said, not installed
    assert rows["served.git"]["protected"] is None
    assert rows["served.git"]["status"].startswith("bare: see install --server; made from agentguard's git template")
    # the single-repository doctor passes agentguard's own template
    checks = {c["id"]: c for c in json.loads(ag(env, root / "installed", "doctor", "--json", "--no-probes",
                                                check=False).stdout)["checks"]}
    assert checks["bypass.template-dir"]["status"] == "pass", checks["bypass.template-dir"]


def test_doctor_warns_on_a_foreign_or_stale_template(env, tmp_path, make_repo):
    repo, _ = make_repo()

    def template_check():
        checks = {c["id"]: c for c in json.loads(repo.agentguard("doctor", "--json", "--no-probes",
                                                                 check=False).stdout)["checks"]}
        return checks.get("bypass.template-dir")

    assert template_check() is None
    templated(env, tmp_path)
    assert template_check()["status"] == "pass"
    hook = os.path.join(template_dir(env), "hooks", "pre-commit")
    with open(hook, "ab") as fh:
        fh.write(b"exit 0\n")
    check = template_check()
    assert check["status"] == "warn" and "out of date" in check["summary"]
    assert "install --template" in check["fix"]
    ag(env, tmp_path, "install", "--template")  # rewrites it
    assert template_check()["status"] == "pass"
    ag(env, tmp_path, "uninstall", "--template")
    other = tmp_path / "other-template"
    (other / "hooks").mkdir(parents=True)
    run(["git", "config", "--global", "init.templateDir", str(other)], env, str(tmp_path))
    check = template_check()
    assert check["status"] == "warn" and "not agentguard's" in check["summary"]


ORIGINAL = b"# my config\n[user]\n\tname = Someone\n[init]\n\tdefaultBranch = trunk\n[alias]\n\tst = status"


@pytest.mark.parametrize("existing", [ORIGINAL, None], ids=["existing-gitconfig", "no-gitconfig"])
def test_uninstall_restores_the_config_byte_for_byte(env, tmp_path, existing):
    path = gitconfig(env)
    if existing is not None:
        with open(path, "wb") as fh:
            fh.write(existing)
        os.chmod(path, 0o600)
    ag(env, tmp_path, "install", "--template")
    with open(path, "rb") as fh:
        assert b"templateDir" in fh.read()
    again = ag(env, tmp_path, "install", "--template")  # a second run keeps the config as it is
    assert "config unchanged" in again.stdout
    ag(env, tmp_path, "uninstall", "--template")
    if existing is None:
        assert not os.path.lexists(path)
    else:
        with open(path, "rb") as fh:
            assert fh.read() == existing
        assert os.stat(path).st_mode & 0o777 == 0o600
    assert not os.path.lexists(template_dir(env))
    assert not os.path.lexists(os.path.join(env["XDG_CONFIG_HOME"], "agentguard"))
    assert "nothing changed" in ag(env, tmp_path, "uninstall", "--template").stdout


def test_uninstall_after_the_user_edited_the_config(env, tmp_path):
    path = gitconfig(env)
    with open(path, "wb") as fh:
        fh.write(ORIGINAL + b"\n")
    ag(env, tmp_path, "install", "--template")
    run(["git", "config", "--global", "user.email", "me@example.com"], env, str(tmp_path))
    proc = ag(env, tmp_path, "uninstall", "--template")
    assert "changed since install --template" in proc.stderr
    assert run(["git", "config", "--global", "--get", "init.templateDir"], env, str(tmp_path),
               check=False).returncode == 1
    assert run(["git", "config", "--global", "--get", "user.email"], env, str(tmp_path)).stdout.strip() == \
        "me@example.com"
    assert not os.path.lexists(template_dir(env))


def test_another_template_is_not_replaced(env, tmp_path):
    other = tmp_path / "corp-template"
    (other / "hooks").mkdir(parents=True)
    run(["git", "config", "--global", "init.templateDir", str(other)], env, str(tmp_path))
    with open(gitconfig(env), "rb") as fh:
        before = fh.read()
    proc = ag(env, tmp_path, "install", "--template", check=False)
    assert proc.returncode == 1 and str(other) in proc.stderr and "will not replace" in proc.stderr
    with open(gitconfig(env), "rb") as fh:
        assert fh.read() == before
    assert not os.path.lexists(template_dir(env))


def test_dry_run_writes_nothing(env, tmp_path):
    proc = ag(env, tmp_path, "install", "--template", "--dry-run")
    assert "would" in proc.stdout and "init.templateDir" in proc.stdout
    assert not os.path.lexists(gitconfig(env))
    assert not os.path.lexists(os.path.join(env["XDG_CONFIG_HOME"], "agentguard"))


def test_uninstall_in_a_repository_made_from_the_template_needs_no_record(env, tmp_path):
    """A repository git made from the template has agentguard's hooks and runtime but no install
    record yet: uninstall takes them out without calling the record missing."""
    templated(env, tmp_path)
    run(["git", "init", "-q", "-b", "main", "fresh"], env, str(tmp_path))
    repo = Git(str(tmp_path / "fresh"), env)
    proc = ag(env, repo.path, "uninstall")
    assert proc.stderr == "" and proc.stdout.startswith("agentguard: uninstalled from"), proc.stdout + proc.stderr
    assert [h for h in HOOK_NAMES if os.path.lexists(os.path.join(repo.path, ".git", "hooks", h))] == []
    assert os.listdir(os.path.join(repo.path, ".git", "agentguard")) in ([], ["lock"])
