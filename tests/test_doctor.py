"""agentguard doctor: each check is broken on purpose and must be named, with its fix."""
import json
import os
import subprocess

import pytest

from helpers import AGENTGUARD, refused, doctor_report, on_a_terminal
from helpers import tree_snapshot


def status(checks, cid):
    return checks[cid]["status"]


def repo_state(repo):
    """Everything the doctor must not change: files (with modes) of work tree and git dir, refs, config."""
    return (tree_snapshot(repo.path), repo.run("for-each-ref").stdout, repo.run("config", "--list").stdout)


def test_healthy_repository_passes(guarded):
    repo, _ = guarded
    checks, proc = doctor_report(repo, check_rc=0)
    for cid in ("git.version", "git.options", "install.manifest", "hooks.location", "hooks.reference-transaction",
                "hooks.pre-push", "hooks.pre-commit", "runtime.files", "policy.snapshot", "policy.config",
                "probe.reference-transaction", "probe.pre-push", "probe.pre-commit", "bypass.aliases",
                "bypass.env", "branches.ahead", "audit.recent"):
        assert status(checks, cid) == "pass", checks[cid]
    assert all(set(c) == {"id", "status", "summary", "fix"} for c in checks.values())
    assert "refused" in checks["probe.reference-transaction"]["summary"]
    assert "accepted" in checks["probe.pre-push"]["summary"]


def test_doctor_changes_nothing(guarded):
    repo, _ = guarded
    repo.run("branch", "-f", "main", "feat", check=False)  # an audit entry exists before
    repo.run("config", "alias.ci", "commit --no-verify")  # and some failing checks
    os.chmod(os.path.join(repo.path, ".git", "hooks", "pre-push"), 0o644)
    before = repo_state(repo)
    for args in ((), ("--json",)):
        proc = repo.agentguard("doctor", *args, check=False)
        assert proc.returncode == 1
        after = repo_state(repo)
        assert after[1:] == before[1:]
        changed = {k for k in set(before[0]) | set(after[0]) if before[0].get(k) != after[0].get(k)}
        assert not changed, changed


def test_plain_when_piped_rich_in_a_terminal(guarded):
    repo, _ = guarded
    proc = repo.agentguard("doctor")
    assert "PASS probe.reference-transaction" in proc.stdout and "\x1b[" not in proc.stdout
    rc, text = on_a_terminal([AGENTGUARD, "doctor"], repo.path, repo.env)
    assert rc == 0
    assert "✓" in text and "PASS" not in text


@pytest.mark.parametrize("breakage", ["delete", "chmod", "edit", "replace"])
@pytest.mark.parametrize("hook", ["reference-transaction", "pre-push", "pre-commit"])
def test_broken_hooks_are_named_and_fixed(guarded, hook, breakage):
    repo, bare = guarded
    path = os.path.join(repo.path, ".git", "hooks", hook)
    if breakage == "delete":
        os.unlink(path)
    elif breakage == "chmod":
        os.chmod(path, 0o644)
    elif breakage == "edit":
        with open(path, "r+") as fh:
            text = fh.read().replace("ag_decide", "true ||", 3)
            fh.seek(0)
            fh.write(text)
    else:
        with open(path, "w") as fh:
            fh.write("#!/bin/sh\nexit 0\n")
        os.chmod(path, 0o755)
    checks, _ = doctor_report(repo, check_rc=1)
    assert status(checks, "hooks." + hook) == "fail"
    assert checks["hooks." + hook]["fix"] == "agentguard doctor --fix" or "--fix" in checks["hooks." + hook]["fix"]
    if hook in ("reference-transaction", "pre-push", "pre-commit") and breakage != "edit":
        assert status(checks, "probe." + hook) == "fail", checks["probe." + hook]
    proc = repo.agentguard("doctor", "--fix", check=False)
    assert proc.returncode == 0, proc.stdout
    checks, _ = doctor_report(repo, check_rc=0)
    assert refused(repo.run("update-ref", "refs/heads/main", "feat", check=False))
    if breakage == "replace":  # the foreign hook that replaced ours is kept and chained
        assert open(path + ".agentguard-chained").read() == "#!/bin/sh\nexit 0\n"


def test_runtime_and_snapshot_damage(guarded):
    repo, _ = guarded
    home = os.path.join(repo.path, ".git", "agentguard")
    with open(os.path.join(home, "runtime", "hooks", "reftx.py"), "a") as fh:
        fh.write("\n# tampered\n")
    os.unlink(os.path.join(home, "runtime", "hooks", "policy.py"))
    checks, _ = doctor_report(repo, check_rc=1)
    assert status(checks, "runtime.files") == "fail"
    assert "policy.py is missing" in checks["runtime.files"]["summary"]
    os.unlink(os.path.join(home, "policy.json"))
    checks, _ = doctor_report(repo, check_rc=1)
    assert status(checks, "policy.snapshot") == "fail"
    repo.agentguard("doctor", "--fix")
    checks, _ = doctor_report(repo, check_rc=0)
    with open(os.path.join(home, "policy.json"), "w") as fh:
        json.dump({"format": 1, "branches": ["nothing-important"], "source": "default"}, fh)
    checks, _ = doctor_report(repo, check_rc=1)
    assert status(checks, "policy.recorded") == "fail"
    repo.agentguard("doctor", "--fix")
    assert json.load(open(os.path.join(home, "policy.json")))["branches"] == ["main", "master"]


def test_git_options_snapshot_stale_or_missing(guarded):
    """The option table install snapshotted must come from the git on PATH now."""
    repo, _ = guarded
    path = os.path.join(repo.path, ".git", "agentguard", "gitoptions.json")
    now = repo.run("--version").stdout.strip()
    with open(path) as fh:
        table = json.load(fh)
    assert table["git"] == now
    table["git"] = "git version 2.28.0"  # as if git was upgraded since install
    with open(path, "w") as fh:
        json.dump(table, fh)
    checks, _ = doctor_report(repo, check_rc=0)
    assert status(checks, "git.options") == "warn"
    assert checks["git.options"]["summary"] == ("git was upgraded since install (snapshot: git version 2.28.0, "
                                                "now: %s): option tables may be stale" % now)
    assert checks["git.options"]["fix"] == "agentguard install"
    os.unlink(path)
    checks, _ = doctor_report(repo, check_rc=1)
    assert status(checks, "git.options") == "fail" and checks["git.options"]["fix"] == "agentguard install"
    assert "gitoptions.json" in checks["git.options"]["summary"]
    repo.agentguard("doctor", "--fix")  # install owns the snapshot, so --fix writes it again
    checks, _ = doctor_report(repo, check_rc=0)
    assert status(checks, "git.options") == "pass"
    assert json.load(open(path))["git"] == now


def test_config_drift_both_ways_and_fix_does_not_apply_it(guarded):
    repo, _ = guarded
    cfg = os.path.join(repo.path, ".agentguard.toml")
    with open(cfg, "w") as fh:
        fh.write('[protect]\nbranches = ["only-this"]\n')  # e.g. an agent trying to unprotect main
    checks, proc = doctor_report(repo, check_rc=0)
    assert status(checks, "policy.config") == "warn"
    assert "only-this" in checks["policy.config"]["summary"] and checks["policy.config"]["fix"].startswith(
        "agentguard install")
    repo.agentguard("doctor", "--fix")
    policy = json.load(open(os.path.join(repo.path, ".git", "agentguard", "policy.json")))
    assert policy["branches"] == ["main", "master"], "--fix must not apply the work tree's config"
    repo.agentguard("install")  # the user applies it on purpose
    os.unlink(cfg)
    checks, _ = doctor_report(repo, check_rc=0)
    assert status(checks, "policy.config") == "warn" and "main, master" in checks["policy.config"]["summary"]


def test_hooks_path_moved_after_install(guarded):
    repo, _ = guarded
    repo.run("config", "core.hooksPath", "elsewhere")
    checks, _ = doctor_report(repo, check_rc=1)
    assert status(checks, "hooks.location") == "fail"
    assert checks["hooks.location"]["fix"].startswith("agentguard install")
    assert status(checks, "probe.pre-push") == "fail"


def test_relative_hooks_path_and_linked_worktrees(make_repo, tmp_path):
    repo, _ = make_repo(install=False)
    repo.run("config", "core.hooksPath", ".githooks")
    repo.agentguard("install")
    repo.run("worktree", "add", "-q", "-b", "side", str(tmp_path / "wt"))
    checks, _ = doctor_report(repo, check_rc=1)
    assert status(checks, "hooks.worktrees") == "fail"
    assert str(tmp_path / "wt") in checks["hooks.worktrees"]["fix"]


def test_chained_user_hook_missing(make_repo):
    repo, _ = make_repo(install=False)
    path = os.path.join(repo.path, ".git", "hooks", "pre-push")
    with open(path, "w") as fh:
        fh.write("#!/bin/sh\nexit 0\n")
    os.chmod(path, 0o755)
    repo.agentguard("install")
    checks, _ = doctor_report(repo, check_rc=0)
    assert status(checks, "hooks.pre-push.chained") == "pass"
    os.unlink(path + ".agentguard-chained")
    checks, _ = doctor_report(repo, check_rc=1)
    assert status(checks, "hooks.pre-push.chained") == "fail"


def test_bypass_setups(guarded):
    repo, _ = guarded
    repo.run("config", "alias.ci", "commit --no-verify")
    repo.run("config", "alias.nohooks", "-c core.hooksPath=/dev/null commit")
    checks, _ = doctor_report(repo, check_rc=1)
    assert status(checks, "bypass.aliases") == "fail"
    assert "alias.ci" in checks["bypass.aliases"]["summary"] and "alias.nohooks" in checks["bypass.aliases"]["summary"]
    assert checks["bypass.aliases"]["fix"] == "git config --unset alias.ci"
    repo.agentguard("doctor", "--fix", check=False)
    assert repo.run("config", "alias.ci").stdout.strip() == "commit --no-verify", "--fix leaves the user's config"
    repo.run("config", "--unset", "alias.ci")
    repo.run("config", "--unset", "alias.nohooks")
    env = dict(repo.env, GIT_CONFIG_PARAMETERS="'core.hooksPath'='/dev/null'")
    checks, _ = doctor_report(repo, env=env, check_rc=1)
    assert status(checks, "bypass.env") == "fail"
    env = dict(repo.env, GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0="core.hooksPath", GIT_CONFIG_VALUE_0="/dev/null")
    checks, _ = doctor_report(repo, env=env, check_rc=1)
    assert status(checks, "bypass.env") == "fail"
    checks, _ = doctor_report(repo, env=dict(repo.env, HUSKY="0"), check_rc=0)
    assert status(checks, "bypass.env") == "warn"
    repo.run("config", "--global", "init.templateDir", "/tmp/nowhere")
    repo.run("config", "hook.lint.command", "true")
    checks, _ = doctor_report(repo, check_rc=0)
    assert status(checks, "bypass.template-dir") == "warn"
    assert status(checks, "bypass.config-hooks") == "warn"


def test_global_hooks_path_warns(guarded):
    repo, _ = guarded
    hooks = os.path.join(repo.path, ".git", "hooks")
    repo.run("config", "--global", "core.hooksPath", hooks)
    checks, _ = doctor_report(repo, check_rc=0)
    assert status(checks, "bypass.hooks-path") == "warn"


def test_protected_branch_ahead_of_its_counterpart(guarded):
    repo, _ = guarded
    with open(os.path.join(repo.path, ".git", "refs", "heads", "main"), "w") as fh:
        fh.write(repo.rev("feat") + "\n")  # what a hand-written ref or `branch -C` leaves behind
    checks, _ = doctor_report(repo, check_rc=1)
    assert status(checks, "branches.ahead") == "fail"
    fix = checks["branches.ahead"]["fix"]
    assert "agentguard doctor --fix" in fix and "git switch -C main origin/main" in fix
    repo.run("checkout", "-q", "feat")
    repo.run("branch", "rescued", "main")
    repo.run("switch", "-q", "-C", "main", "origin/main")  # the advice works with the guard in place
    checks, _ = doctor_report(repo, check_rc=0)
    assert repo.rev("rescued") == repo.rev("feat")


def test_fix_rescues_a_protected_branch_holding_local_only_commits(guarded):
    """`doctor --fix` puts main back on origin/main and keeps its local-only commit on a new branch
    (never deleting work); the work tree that was on main is moved to that branch, files untouched."""
    repo, bare = guarded
    origin_main = repo.rev("origin/main")
    repo.run("-c", "core.hooksPath=/dev/null", "commit", "-q", "--allow-empty", "-m", "on main by a bypass")
    local = repo.rev("main")
    assert local != origin_main
    proc = repo.agentguard("doctor", "--fix", check=False)
    assert proc.returncode == 0, proc.stdout
    assert "fixed: moved protected branch main back to %s" % origin_main[:12] in proc.stdout, proc.stdout
    rescued = [b for b in repo.branches() if b.startswith("agentguard/rescued/main-")]
    assert len(rescued) == 1 and repo.rev(rescued[0]) == local
    assert repo.rev("main") == origin_main and bare.rev("main") == origin_main
    assert repo.run("symbolic-ref", "--short", "HEAD").stdout.strip() == rescued[0]
    assert repo.rev("feat") and repo.run("status", "--porcelain", "--untracked-files=no").stdout.strip() == ""


def test_audit_summary_is_escaped(guarded):
    repo, _ = guarded
    repo.run("checkout", "-q", "feat")
    evil = os.path.join(os.path.dirname(repo.path), "remote\x1b[31mRED\x07.git")
    os.symlink(repo.run("remote", "get-url", "origin").stdout.strip(), evil)
    proc = repo.run("push", evil, "feat:main", check=False)
    assert refused(proc) and "\x1b" not in proc.stderr.split("To agw::")[0]  # the rest is git's own report
    checks, _ = doctor_report(repo, check_rc=0)
    summary = checks["audit.recent"]["summary"]
    assert "1 refusals (push-guard 1)" in summary and "\x1b" not in summary
    entry = json.loads(open(os.path.join(repo.path, ".git", "agentguard", "audit.jsonl")).read())
    assert "\\x1b[31mRED\\x07" in entry["command"] and "\x1b" not in entry["command"]
    plain = repo.agentguard("doctor").stdout
    assert "\x1b" not in plain and "\x07" not in plain


def test_not_installed_and_not_a_repository(make_repo, tmp_path, env):
    repo, _ = make_repo(install=False)
    checks, _ = doctor_report(repo, check_rc=1)
    assert status(checks, "install.manifest") == "fail" and checks["install.manifest"]["fix"] == "agentguard install"
    assert "git.options" not in checks  # no snapshot to expect before install
    repo.agentguard("doctor", "--fix")
    checks, _ = doctor_report(repo, check_rc=0)
    plain = tmp_path / "plain"
    plain.mkdir()
    proc = subprocess.run([AGENTGUARD, "doctor", str(plain)], env=env, capture_output=True, text=True)
    assert proc.returncode == 2 and "not inside a git repository" in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_doctor_is_fast(guarded):
    import time
    repo, _ = guarded
    start = time.monotonic()
    repo.agentguard("doctor")
    assert time.monotonic() - start < 5  # the benchmark measures it properly; this catches a hang


def test_adapters_checked_and_fixed(guarded, tmp_path):
    repo, _ = guarded
    checks, _ = doctor_report(repo, check_rc=0)
    for h in ("pi", "hermes", "gptme"):
        assert status(checks, "adapters." + h) == "pass"
    # no Hermes here (no HERMES_HOME, no ~/.hermes, not on PATH): nothing to warn about
    assert status(checks, "adapters.hermes.enabled") == "pass"
    assert "not in use here" in checks["adapters.hermes.enabled"]["summary"]
    home = tmp_path / "hh"
    home.mkdir()
    checks, _ = doctor_report(repo, env=dict(repo.env, HERMES_HOME=str(home)), check_rc=0)
    assert status(checks, "adapters.hermes.enabled") == "warn"
    assert "HERMES_ENABLE_PROJECT_PLUGINS=1" in checks["adapters.hermes.enabled"]["fix"]
    (home / "config.yaml").write_text("plugins:\n  enabled:\n    - agentguard\n")
    env = dict(repo.env, HERMES_HOME=str(home), HERMES_ENABLE_PROJECT_PLUGINS="1")
    checks, _ = doctor_report(repo, env=env, check_rc=0)
    assert status(checks, "adapters.hermes.enabled") == "pass"
    os.unlink(os.path.join(repo.path, ".pi", "extensions", "agentguard.ts"))
    with open(os.path.join(repo.path, ".hermes", "plugins", "agentguard", "client.py"), "a") as fh:
        fh.write("\n# tampered\n")
    with open(os.path.join(repo.path, "gptme.toml"), "w") as fh:
        fh.write("[plugins]\nenabled = []\n")
    with open(os.path.join(repo.path, ".pi", "settings.json"), "w") as fh:
        fh.write('{"extensions": ["!agentguard.ts"]}')
    checks, _ = doctor_report(repo, check_rc=1)
    assert "agentguard.ts is missing" in checks["adapters.pi"]["summary"]
    assert "client.py was modified" in checks["adapters.hermes"]["summary"]
    assert "does not enable the plugin" in checks["adapters.gptme"]["summary"]
    assert status(checks, "adapters.pi.enabled") == "fail"
    repo.agentguard("doctor", "--fix", check=False)
    checks, _ = doctor_report(repo, check_rc=1)  # the user's .pi/settings.json is theirs to change
    assert status(checks, "adapters.pi") == "pass" and status(checks, "adapters.hermes") == "pass"
    assert status(checks, "adapters.gptme") == "pass" and status(checks, "adapters.pi.enabled") == "fail"
    os.unlink(os.path.join(repo.path, ".pi", "settings.json"))
    doctor_report(repo, check_rc=0)
