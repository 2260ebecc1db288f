"""Platforms: the backstop where no process argv can be read, and under the shells other systems have.

macOS and the BSDs have no /proc (procargv reads the caller through sysctl there), and some Linux
containers hide it. Here the backstop's tables run again in a private mount namespace with an empty
/proc (so no argv can be had and every rule takes its fallback) and with /bin/sh bound to posh, a
strict POSIX shell whose printf is not a builtin; the main run already drives every hook under dash,
Debian's /bin/sh. Needs root and unshare(1), as in CI (which fails, not skips, without them).
"""
import json
import os
import shutil
import subprocess
import sys

import pytest

from agentguard.hooks.gitmodel import procargv
from helpers import AGENTGUARD, need

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The backstop tables (refusals, everyday work, real clients' command lines) and the hook-input,
# chaining and framework tests: everything that runs the hook scripts and reads the caller.
TABLES = ["tests/test_refuse.py", "tests/test_keep_working.py", "tests/test_real_clients.py",
          "tests/test_hook_input.py", "tests/test_coexistence.py", "tests/test_spoofed_argv.py",
          "tests/test_precommit_framework.py", "tests/test_procargv.py"]
# What the tables' runs here leave out: tests of theirs that neither the shell nor /proc can change. pre-commit
# try-repo builds the framework's environments from the manifest for each pre-commit (tens of seconds, and most of
# test_precommit_framework's time here; tests/conftest.py ONE_GIT_GROUPS "pre-commit manifest"): the verdicts of
# the hooks it runs are test_refuse's and test_keep_working's, and the framework's own commits and pushes through
# git's hooks are the rest of test_precommit_framework, all of which run here.
NOT_UNDER_POSH = ["tests/test_precommit_framework.py::test_pre_commit_try_repo_refuses_a_commit_on_main"]


def without_proc(command, shell=None, timeout=1200):
    """Run ``command`` (sh) in a private mount namespace with an empty /proc and, with ``shell``,
    that shell bound over /bin/sh."""
    need("root (for a private mount namespace)", os.geteuid() == 0, "CI runs the suite as root")
    need("unshare", shutil.which("unshare"), "util-linux")
    setup = "mount -t tmpfs agentguard-no-proc /proc"
    if shell:
        setup += " && mount --bind %s /bin/sh" % shell
    return subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c",
                           "%s && %s" % (setup, command)], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


def test_main_run_drives_the_hooks_under_dash():
    sh = os.path.realpath("/bin/sh")
    need("dash as /bin/sh", os.path.basename(sh) == "dash", "Debian's /bin/sh")


@pytest.mark.slow
@pytest.mark.one_git  # the shell and /proc are what it varies; the main run drives the tables on every git
@pytest.mark.parametrize("table", TABLES)  # one file each, so that the outer run spreads them over its workers
def test_backstop_tables_pass_without_proc_under_posh(table):
    posh = shutil.which("posh")
    need("posh", posh)
    premise = without_proc("%s -c 'from agentguard.hooks.gitmodel import procargv; print(procargv.readable())'; "
                           "cmp -s /bin/sh %s && echo posh" % (sys.executable, posh), shell=posh)
    assert premise.stdout.split() == ["None", "posh"], premise.stdout + premise.stderr
    left_out = [test for test in NOT_UNDER_POSH if test.partition("::")[0] == table]
    run = without_proc("%s -m pytest -q -n 0 -p no:cacheprovider %s%s" % (
        sys.executable, table, "".join(" --deselect '%s'" % test for test in left_out)), shell=posh)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    assert " passed" in run.stdout and "failed" not in run.stdout
    assert (" deselected" in run.stdout) == bool(left_out), run.stdout[-2000:]  # a stale name leaves out nothing


def test_doctor_names_the_weaker_fallbacks_where_no_argv_can_be_read(guarded):
    repo, _ = guarded
    proc = without_proc("%s doctor --json %s" % (AGENTGUARD, repo.path), timeout=300)
    checks = {c["id"]: c for c in json.loads(proc.stdout)["checks"]}
    argv = checks["platform.argv"]
    assert argv["status"] == "warn" and argv["fix"]
    for rule, _ in procargv.WITHOUT_ARGV:
        assert "[%s]" % rule in argv["summary"]
    # the probes still prove every refusal on such a system
    assert all(c["status"] == "pass" for cid, c in checks.items() if cid.startswith("probe.")), checks
    here = repo.agentguard("doctor", "--json", check=False)
    assert {c["id"]: c for c in json.loads(here.stdout)["checks"]}["platform.argv"]["status"] == "pass"


def test_security_md_lists_every_weaker_fallback():
    with open(os.path.join(ROOT, "SECURITY.md"), encoding="utf-8") as fh:
        text = fh.read()
    section = text.split("## Where no process argv can be read", 1)
    assert len(section) == 2, "SECURITY.md has no section on systems without argv"
    for rule, _ in procargv.WITHOUT_ARGV:
        assert "`%s`" % rule in section[1].split("\n## ", 1)[0], rule


MIRROR_FROM_A_CLONE_WITHOUT_TRACKING_REFS = """
set -e
git clone -q --single-branch -b feat {remote} {work}
cd {work}
{agentguard} install >/dev/null
git update-ref -d refs/remotes/origin/feat
git push --mirror origin
"""


def test_a_mirror_push_without_argv_meets_the_transport_guard(guarded, tmp_path):
    """SECURITY.md (without argv, `push-mirror`): pre-push is not shown a mirror's deletions, so a
    mirror push from a clone that has neither the protected branch nor remote-tracking refs would
    delete it on the remote (here `master`, protected by default; the remote's HEAD branch `main` is
    kept by git's receive.denyDeleteCurrent). The push guard in git's transport is handed every
    deletion: refused with /proc and without it, and `master` stays."""
    repo, bare = guarded
    repo.run("push", "-q", "origin", "feat")
    bare.run("branch", "master", "main")
    script = MIRROR_FROM_A_CLONE_WITHOUT_TRACKING_REFS.format(remote=bare.path, work=tmp_path / "a",
                                                              agentguard=AGENTGUARD)
    main, master = bare.rev("main"), bare.rev("master")
    control = subprocess.run(["sh", "-c", script], env=repo.env, capture_output=True, text=True, timeout=120)
    assert control.returncode != 0 and "[rule: push-" in control.stderr, control.stderr
    assert (bare.rev("main"), bare.rev("master")) == (main, master)
    script = script.replace(str(tmp_path / "a"), str(tmp_path / "b"))
    with open(tmp_path / "hole.sh", "w") as fh:
        fh.write(script)
    env_line = " ".join("%s=%s" % (k, _q(v)) for k, v in repo.env.items())
    closed = without_proc("env -i %s sh %s" % (env_line, tmp_path / "hole.sh"), timeout=120)
    assert "[rule: push-protected]" in closed.stderr and bare.rev("master") == master, closed.stderr
    assert bare.rev("main") == main
    # the control for the closed hole: without the transport guard, the same push deletes master
    script = script.replace(str(tmp_path / "b"), str(tmp_path / "c")).replace(
        "install >/dev/null", "install --no-push-guard >/dev/null")
    with open(tmp_path / "hole.sh", "w") as fh:
        fh.write(script)
    hole = without_proc("env -i %s sh %s" % (env_line, tmp_path / "hole.sh"), timeout=120)
    assert "deleted" in hole.stderr and bare.rev("master") is None, hole.stderr


def _q(value):
    return "'" + value.replace("'", "'\\''") + "'"
