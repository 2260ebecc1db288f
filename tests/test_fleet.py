"""install --all and doctor --all: every repository under some roots, one table, one exit status."""
import importlib
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile

import pytest

from helpers import Git, agentguard, need, snapshot

from agentguard.installer.setup import fleet as fleet_module


def init(path, env, commit=True, bare=False):
    os.makedirs(os.path.dirname(str(path)), exist_ok=True)
    subprocess.run(["git", "init", "-q", "-b", "main"] + (["--bare"] if bare else []) + [str(path)], env=env,
                   check=True)
    repo = Git(str(path), env)
    if commit and not bare:
        repo.commit("initial")
    return repo


def all_rows(env, root, *args, action="doctor", rc=None):
    proc = agentguard(action, "--all", str(root), "--json", *args, cwd=str(root), env=env, check=False)
    assert "Traceback" not in proc.stderr, proc.stderr
    data = json.loads(proc.stdout)
    assert data["ok"] == (proc.returncode == 0), proc.stdout
    if rc is not None:
        assert proc.returncode == rc, proc.stdout + proc.stderr
    return data, {os.path.relpath(r["path"], os.path.realpath(str(root))): r for r in data["repositories"]}


def test_discovery_rules(env, tmp_path):
    root = tmp_path / "root"
    init(root / "a", env)
    init(root / "a" / "nested", env)  # a repository inside another one's work tree
    init(root / "d1" / "d2" / "d3" / "deep", env)  # depth 4
    init(root / "d1" / "d2" / "d3" / "d4" / "deeper", env)  # depth 5
    init(root / "node_modules" / "pkg", env)
    init(root / "proj" / ".venv" / "src" / "lib", env)
    init(root / "proj" / "vendor" / "dep", env)
    init(root / "srv.git", env, bare=True)
    init(tmp_path / "outside", env)
    os.symlink(str(tmp_path / "outside"), str(root / "link-out"))
    os.symlink(str(root / "a"), str(root / "link-in"))
    Git(str(root / "a"), env).run("worktree", "add", "-q", str(root / "wt-a"), "-b", "agent1")
    init(tmp_path / "main-elsewhere", env).run("worktree", "add", "-q", str(root / "wt-only"), "-b", "agent2")

    _, rows = all_rows(env, root, "--no-probes", rc=1)
    assert sorted(rows) == ["a", "a/nested", "d1/d2/d3/deep", "srv.git", "wt-only"]
    assert rows["a"]["worktrees"] == [os.path.realpath(str(root / "wt-a"))]  # one row for a and its worktree
    assert rows["srv.git"]["kind"] == "bare" and rows["srv.git"]["status"] == "bare: see install --server"
    assert rows["srv.git"]["protected"] is None
    assert rows["wt-only"]["kind"] == "work"  # a linked worktree whose main one is not under the roots
    assert all(r["protected"] is False and "not guarded" in r["status"] for k, r in rows.items() if k != "srv.git")
    _, rows = all_rows(env, root, "--no-probes", "--depth", "5")
    assert "d1/d2/d3/d4/deeper" in rows
    _, rows = all_rows(env, root, "--no-probes", "--depth", "0")
    assert sorted(rows) == []
    # two roots naming the same repository (once through a symlink given as a root): one row
    proc = agentguard("doctor", "--all", str(root / "a"), str(root / "link-in"), "--json", "--no-probes",
                      "--depth", "0", cwd=str(tmp_path), env=env, check=False)
    assert [r["path"] for r in json.loads(proc.stdout)["repositories"]] == [os.path.realpath(str(root / "a"))]


def test_unreadable_directory_is_a_warning(env, tmp_path):
    base = tempfile.mkdtemp(prefix="agentguard-fleet-")  # outside pytest's 0700 tree: readable by nobody
    try:
        os.chmod(base, 0o755)
        init(os.path.join(base, "ok"), env)
        init(os.path.join(base, "locked", "hidden"), env)
        for folder, dirs, files in os.walk(base):
            for name in dirs + files:
                path = os.path.join(folder, name)
                os.chmod(path, os.lstat(path).st_mode | stat.S_IROTH | (stat.S_IXOTH if name in dirs else 0))
        os.chmod(os.path.join(base, "locked"), 0o700)
        code = ("import json, sys; from agentguard.installer.setup.fleet import find_repositories; "
                "print(json.dumps(find_repositories([sys.argv[1]], 4)))")
        if os.getuid() == 0:  # root reads everything: search as nobody, with a Python nobody can run
            python = "/usr/bin/python3"
            need("a system Python to run as another user", os.access(python, os.X_OK), "/usr/bin/python3")
            # a copy, not a link: the checkout may sit below a directory nobody cannot enter (mktemp -d)
            package = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(fleet_module.__file__))))
            shutil.copytree(package, os.path.join(base, "agentguard"), symlinks=True,
                            ignore=lambda d, names: [n for n in names if n.startswith(".") or n in (
                                "tests", "bench", "build", "scripts") or n.endswith(".egg-info")])
            for dep in ("git", "gitdb", "smmap"):  # GitPython and its own dependencies: nobody has no venv
                shutil.copytree(os.path.dirname(importlib.import_module(dep).__file__), os.path.join(base, dep),
                                ignore=shutil.ignore_patterns("__pycache__"))
            for folder, dirs, files in (w for top in ("agentguard", "git", "gitdb", "smmap")
                                        for w in os.walk(os.path.join(base, top))):
                for name in dirs + files:
                    path = os.path.join(folder, name)
                    os.chmod(path, os.lstat(path).st_mode | stat.S_IROTH | (stat.S_IXOTH if name in dirs else 0))
            proc = subprocess.run([python, "-c", code, base], capture_output=True, text=True, timeout=120,
                                  env=dict(env, HOME=base, PYTHONPATH=base), cwd="/",
                                  preexec_fn=lambda: os.setuid(65534))
        else:
            os.chmod(os.path.join(base, "locked"), 0)
            proc = subprocess.run([sys.executable, "-c", code, base], capture_output=True, text=True,
                                  timeout=120, env=env, cwd=base)
        assert proc.returncode == 0, proc.stderr
        repos, warnings = json.loads(proc.stdout)
        assert [os.path.basename(r["path"]) for r in repos] == ["ok"]
        assert len(warnings) == 1 and "cannot read" in warnings[0] and "locked" in warnings[0]
    finally:
        os.chmod(os.path.join(base, "locked"), 0o700)
        shutil.rmtree(base)


@pytest.fixture
def fleet(tmp_path, make_repo):
    """Three repositories (each with a bare remote) under tmp_path/root, nothing installed."""
    repos = [make_repo("root/r%d" % i, install=False)[0] for i in range(3)]
    return tmp_path / "root", repos


def test_install_all_then_doctor_all(env, fleet):
    root, repos = fleet
    proc = agentguard("install", "--all", str(root), cwd=str(root), env=env, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split() == ["repository", "protected", "branches", "adapters", "push", "guard", "status"]
    assert "3 protected, 0 NOT protected, 3 bare" in lines[-1]
    data, rows = all_rows(env, root, rc=0)
    work = {k: r for k, r in rows.items() if r["kind"] == "work"}
    assert sorted(work) == ["r0", "r1", "r2"]
    for row in work.values():
        assert set(row) >= {"path", "protected", "branches", "adapters", "push_guard", "status", "failed"}
        assert row["protected"] is True and row["status"] == "protected" and row["failed"] == []
        assert row["branches"] == ["main", "master"] and row["push_guard"] == "on"
        assert {"pi", "hermes", "gptme"} <= set(row["adapters"])
    # one repository broken: its row names the failing check and the fix; the others stay protected
    os.unlink(os.path.join(repos[1].path, ".git", "hooks", "pre-commit"))
    data, rows = all_rows(env, root, "--no-probes", rc=1)
    assert rows["r1"]["protected"] is False
    assert rows["r1"]["status"].startswith("NOT protected: hooks.pre-commit")
    assert "agentguard doctor --fix" in rows["r1"]["status"]
    assert any(f["id"] == "hooks.pre-commit" and "missing" in f["summary"] for f in rows["r1"]["failed"])
    assert rows["r0"]["protected"] and rows["r2"]["protected"]
    proc = agentguard("doctor", "--all", str(root), "--no-probes", cwd=str(root), env=env, check=False)
    assert proc.returncode == 1
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith(os.path.realpath(repos[1].path)))
    assert "hooks.pre-commit" in line and "2 protected, 1 NOT protected" in proc.stdout
    # --fix repairs it
    data, rows = all_rows(env, root, "--fix", "--no-probes", rc=0)
    assert os.access(os.path.join(repos[1].path, ".git", "hooks", "pre-commit"), os.X_OK)


def test_dry_run_writes_nothing(env, fleet):
    root, repos = fleet
    before = snapshot(str(root))
    data, rows = all_rows(env, root, "--dry-run", action="install", rc=1)
    assert snapshot(str(root)) == before
    for name in ("r0", "r1", "r2"):
        assert rows[name]["would_write"] > 0 and rows[name]["status"].startswith("dry run: would write")
    agentguard("install", "--all", str(root), cwd=str(root), env=env)
    data, rows = all_rows(env, root, "--dry-run", action="install", rc=0)  # nothing left to write
    assert all(r["would_write"] == 0 for r in rows.values() if r["kind"] == "work")


def test_output_is_safe_from_hostile_names(env, tmp_path):
    root = tmp_path / "root"
    evil = root / "evil\x1b[31mred\u202e"
    repo = init(evil, env)
    repo.run("branch", "-m", "main", "ma\u200bin")
    proc = agentguard("doctor", "--all", str(root), "--no-probes", cwd=str(tmp_path), env=env, check=False)
    assert proc.returncode == 1
    assert "\x1b" not in proc.stdout + proc.stderr and "\u202e" not in proc.stdout
    assert "evil\\x1b[31mred\\u202e" in proc.stdout
    proc = agentguard("doctor", "--all", str(root), "--no-probes", "--json", cwd=str(tmp_path), env=env,
                      check=False)
    assert "\\u001b" not in proc.stdout and "\\u202e" in proc.stdout  # escaped by safe() before json
    assert json.loads(proc.stdout)["repositories"][0]["path"].endswith("evil\\x1b[31mred\\u202e")


def test_no_repository_found_is_not_success(env, tmp_path):
    (tmp_path / "empty").mkdir()
    proc = agentguard("doctor", "--all", str(tmp_path / "empty"), cwd=str(tmp_path), env=env, check=False)
    assert proc.returncode == 1 and "found no repository" in proc.stdout
