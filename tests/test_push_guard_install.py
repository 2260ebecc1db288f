"""Installing, auditing and removing the push guard in git's transport (the transports themselves:
tests/test_push_guard.py)."""
import json
import os
import stat

from helpers import refused, doctor_checks


def config_bytes(repo):
    with open(os.path.join(repo.path, ".git", "config"), "rb") as fh:
        return fh.read()


def test_uninstall_restores_the_config_byte_for_byte(make_repo, tmp_path):
    repo, bare = make_repo(install=False)
    repo.run("remote", "add", "mirror", str(tmp_path / "mirror.git"))
    repo.run("config", "remote.mirror.pushurl", str(tmp_path / "push-here.git"))
    repo.run("config", "alias.st", "status")
    before = config_bytes(repo)
    repo.agentguard("install")
    installed = config_bytes(repo)
    assert b"pushInsteadOf" in installed and b"remote-agw" in installed
    assert repo.run("remote", "get-url", "--push", "mirror").stdout.strip() == "agw::" + str(tmp_path / "push-here.git")
    repo.agentguard("install")  # again: nothing doubles
    assert config_bytes(repo) == installed
    repo.agentguard("uninstall")
    assert config_bytes(repo) == before


def test_uninstall_after_config_changes_takes_out_only_the_guard(make_repo, tmp_path):
    repo, bare = make_repo(install=False)
    repo.run("remote", "add", "mirror", str(tmp_path / "mirror.git"))
    repo.run("config", "remote.mirror.pushurl", str(tmp_path / "push-here.git"))
    repo.agentguard("install")
    repo.run("remote", "add", "later", str(tmp_path / "later.git"))
    repo.run("config", "user.name", "Someone")
    repo.agentguard("uninstall")
    text = config_bytes(repo).decode()
    assert "agw::" not in text and "remote-agw" not in text and "pushInsteadOf" not in text
    assert repo.run("config", "remote.later.url").stdout.strip() == str(tmp_path / "later.git")
    assert repo.run("config", "user.name").stdout.strip() == "Someone"
    assert repo.run("config", "remote.mirror.pushurl").stdout.strip() == str(tmp_path / "push-here.git")


def test_no_push_guard_takes_it_out_and_the_doctor_says_so(guarded):
    repo, bare = guarded
    assert doctor_checks(repo)["push.guard"]["status"] == "pass"
    repo.agentguard("install", "--no-push-guard")
    assert "agw" not in config_bytes(repo).decode()
    checks = doctor_checks(repo)
    assert checks["push.guard"]["status"] == "warn" and "probe.push-guard" not in checks
    repo.agentguard("install")  # a plain install keeps the last choice
    assert "agw" not in config_bytes(repo).decode()
    repo.agentguard("install", "--push-guard")
    assert "agw::" in config_bytes(repo).decode()
    proc = repo.run("push", "--no-verify", "origin", "feat:main", check=False)
    assert refused(proc) and bare.rev("main") != repo.rev("feat")


def test_the_users_own_url_rewrites_keep_working(make_repo, tmp_path):
    """A remote named through the user's insteadOf (here `shared:` for a directory) pushes where it
    did before install: the guard's rule carries git's own rewrite."""
    repo, bare = make_repo(install=False)
    prefix = os.path.dirname(bare.path) + "/"
    repo.run("config", "--global", "url.%s.insteadOf" % prefix, "shared:")
    repo.run("remote", "set-url", "origin", "shared:" + os.path.basename(bare.path))
    repo.run("checkout", "-q", "-b", "feat")
    repo.commit("feature work")
    repo.agentguard("install")
    assert repo.run("remote", "get-url", "--push", "origin").stdout.strip() == "agw::" + bare.path
    repo.run("push", "-q", "origin", "feat")
    assert bare.rev("feat") == repo.rev("feat")
    proc = repo.run("push", "--no-verify", "origin", "feat:main", check=False)
    assert refused(proc) and bare.rev("main") != repo.rev("feat")
    assert doctor_checks(repo)["push.remotes"]["status"] == "pass"


def test_a_program_named_like_the_helper_on_path_is_caught(guarded, tmp_path):
    repo, _ = guarded
    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake = bindir / "git-remote-agw"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    env = dict(repo.env, PATH=str(bindir) + os.pathsep + repo.env["PATH"])
    out = json.loads(repo.agentguard("doctor", "--json", env=env, check=False).stdout)
    check = {c["id"]: c for c in out["checks"]}["push.guard"]
    assert check["status"] == "fail" and "git-remote-agw" in check["summary"]


def test_a_broken_guard_fails_the_push_closed_and_the_doctor_repairs_it(guarded):
    repo, bare = guarded
    launcher = os.path.join(repo.path, ".git", "agentguard", "push-guard")
    before = bare.rev("feat")
    os.chmod(launcher, stat.S_IMODE(os.stat(launcher).st_mode) & ~0o111)
    proc = repo.run("push", "--no-verify", "origin", "feat", check=False)
    assert proc.returncode != 0 and bare.rev("feat") == before, "no helper: no push at all"
    os.unlink(os.path.join(repo.path, ".git", "agentguard", "runtime", "run.py"))
    os.chmod(launcher, 0o755)
    proc = repo.run("push", "--no-verify", "origin", "feat", check=False)
    assert proc.returncode != 0 and "push guard's runtime is missing" in proc.stderr and bare.rev("feat") == before
    checks = doctor_checks(repo)
    assert checks["probe.push-guard"]["status"] == "fail"
    repo.agentguard("doctor", "--fix", check=False)
    checks = doctor_checks(repo)
    assert checks["probe.push-guard"]["status"] == "pass" and checks["push.guard"]["status"] == "pass"
    repo.run("push", "-q", "origin", "feat")
    assert bare.rev("feat") == repo.rev("feat")
