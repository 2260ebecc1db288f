"""install --all / doctor --all at their cost goals (#30), with nothing loosened: the probes of
byte-identical guards run once per run (installer/doctor/probeshare.py), the runtime is compiled once
and written in one durable batch, and progress is drawn on a terminal only."""
import importlib.util
import json
import marshal
import os

import pytest

from helpers import AGENTGUARD, USER_HOOK, agentguard, on_a_terminal

from agentguard.installer.committedconfig import configured_remotes
from agentguard.installer.doctor import probeshare
from agentguard.installer.doctor.runner import Doctor
from agentguard.installer.gitaccess.repo import discover
from agentguard.installer.setup import manifest
from agentguard.installer.setup.durable import Batch


@pytest.fixture
def installed(tmp_path, make_repo, env):
    """Three repositories (each with its bare remote) under tmp_path/root, installed by one install --all."""
    repos = [make_repo("root/r%d" % i, install=False)[0] for i in range(3)]
    root = tmp_path / "root"
    proc = agentguard("install", "--all", str(root), "--json", cwd=str(root), env=env, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return root, repos


def doctored(repo, shared):
    """{check id: Check} of the doctor in ``repo`` given what the run learnt so far (``shared``)."""
    old = dict(os.environ)
    os.environ.clear()
    os.environ.update(repo.env)  # the doctor reads its environment (bypass.env, git)
    try:
        d = Doctor(repo.path)
        d.run(shared=shared)
    finally:
        os.environ.clear()
        os.environ.update(old)
    return {c.id: c for c in d.checks}


def learnt_from(repo):
    shared = probeshare.Shared()
    checks = doctored(repo, shared)
    assert all(c.status == "pass" for cid, c in checks.items() if cid.startswith("probe.")), checks
    (key, path, passed), = [o for o in shared.offers if "probe.reference-transaction" not in o[2]]
    assert sorted(passed) == sorted(probeshare.SHARED) and path == os.path.realpath(repo.path)
    return probeshare.Shared({k: (p, v) for k, p, v in shared.offers})  # and its refusal (config differs)


def fingerprint(repo):
    info = discover(repo.path)
    return probeshare.fingerprint(info, manifest.load(info.ag_home), configured_remotes(info)[0])


def test_identical_guards_share_the_hook_file_probes_and_reference_transaction_runs_in_each(installed):
    _, (r0, r1, r2) = installed
    assert fingerprint(r0) == fingerprint(r1) == fingerprint(r2)  # origin differs; each as its config says
    shared = learnt_from(r0)
    checks = doctored(r1, shared)
    for cid in probeshare.SHARED:
        assert checks[cid].status == "pass" and "probed in %s" % os.path.realpath(r0.path) in checks[cid].summary
    own = checks["probe.reference-transaction"]
    assert own.status == "pass" and "probed in" not in own.summary and "moving main: refused" in own.summary
    # what the fingerprint leaves to the repository's own state is still tried there: git does not run
    # r2's reference-transaction hook (not executable), so its own probe is not refused
    os.chmod(os.path.join(r2.path, ".git", "hooks", "reference-transaction"), 0o644)
    assert fingerprint(r2) == fingerprint(r0)
    checks = doctored(r2, shared)
    assert checks["probe.reference-transaction"].status == "fail", checks["probe.reference-transaction"]
    assert checks["hooks.reference-transaction"].status == "fail"


def tamper_compiled(repo, rel, old, new):
    """Replace the compiled module of runtime/``rel`` in the runtime's compiled file by code compiled from
    its source with ``old`` replaced by ``new``: the launcher runs it (runtime.files names the file changed;
    the probes find what it does)."""
    runtime = os.path.join(repo.path, ".git", "agentguard", "runtime")
    source = open(os.path.join(runtime, rel), "rb").read()
    assert old in source
    path = os.path.join(runtime, "hooks.marshal")
    data = open(path, "rb").read()
    head = b"agentguard compiled runtime 1\n" + importlib.util.MAGIC_NUMBER
    assert data.startswith(head)
    table = marshal.loads(data[len(head):])
    name = rel[:-3].replace("/", ".")
    code = compile(source.replace(old, new), rel, "exec", dont_inherit=True)
    table[name] = (table[name][0], table[name][1], marshal.dumps(code))
    with open(path, "wb") as fh:
        fh.write(head + marshal.dumps(table))


def rows_of(root, env, *args):
    proc = agentguard("doctor", "--all", str(root), "--json", *args, cwd=str(root), env=env, check=False)
    assert "Traceback" not in proc.stderr, proc.stderr
    return {os.path.basename(r["path"]): r for r in json.loads(proc.stdout)["repositories"] if r["kind"] == "work"}


@pytest.mark.parametrize("each", [False, True])
def test_a_tampered_compiled_runtime_is_probed_in_its_own_repository(installed, env, each):
    root, (r0, r1, r2) = installed
    tamper_compiled(r2, "hooks/backstop/branchhooks.py", b"def decide_commit(state, policy, hook):\n",
               b"def decide_commit(state, policy, hook):\n    return None\n")
    assert fingerprint(r2) != fingerprint(r0)
    checks = doctored(r2, learnt_from(r0))
    assert checks["runtime.files"].status == "fail" and "hooks.marshal was modified" in checks["runtime.files"].summary
    assert checks["probe.pre-commit"].status == "fail" and "NOT refused" in checks["probe.pre-commit"].summary
    rows = rows_of(root, env, *(["--probe-each"] if each else []))
    assert rows["r0"]["protected"] and rows["r1"]["protected"]
    assert not rows["r2"]["protected"] and "probe.pre-commit" in [f["id"] for f in rows["r2"]["failed"]]


def write(path, data, mode=None):
    with open(path, "ab" if data.startswith(b"+") else "wb") as fh:
        fh.write(data.lstrip(b"+"))
    if mode is not None:
        os.chmod(path, mode)


CHANGES = {
    "runtime source": lambda home, hooks: write(os.path.join(home, "runtime", "hooks", "policy.py"), b"+\n# x\n"),
    "compiled runtime": lambda home, hooks: write(os.path.join(home, "runtime", "hooks.marshal"), b"+x"),
    "policy branches": lambda home, hooks: write(os.path.join(home, "policy.json"), json.dumps(
        dict(json.load(open(os.path.join(home, "policy.json"))), branches=["main"]), indent=2,
        sort_keys=True).encode() + b"\n"),
    "policy bytes": lambda home, hooks: write(os.path.join(home, "policy.json"), b"+ "),
    "grant": lambda home, hooks: (os.makedirs(os.path.join(home, "allow"), exist_ok=True),
                                  write(os.path.join(home, "allow", "main"), b"{}")),
    "push-guard launcher": lambda home, hooks: write(os.path.join(home, "push-guard"), b"+# x\n"),
    "pre-push mode": lambda home, hooks: os.chmod(os.path.join(hooks, "pre-push"), 0o644),
    "pre-commit moved aside": lambda home, hooks: os.rename(os.path.join(hooks, "pre-commit"),
                                                            os.path.join(hooks, "pre-commit.legacy")),
    "runtime linked away": lambda home, hooks: (os.rename(os.path.join(home, "runtime"), home + "-rt"),
                                                os.symlink(home + "-rt", os.path.join(home, "runtime"))),
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_the_fingerprint_sees_every_file_the_shared_probes_run(make_repo, change):
    repo, _ = make_repo()
    before = fingerprint(repo)
    assert before is not None
    with open(os.path.join(repo.path, ".git", "agentguard", "audit.jsonl"), "a") as fh:
        fh.write('{"probe": "doctor"}\n')  # what the probes append (and the doctor cuts again) is no part
    assert fingerprint(repo) == before
    CHANGES[change](os.path.join(repo.path, ".git", "agentguard"), os.path.join(repo.path, ".git", "hooks"))
    assert fingerprint(repo) != before


def test_a_remote_repointed_since_install_is_no_shared_fingerprint(make_repo, tmp_path):
    r0, _ = make_repo("a")
    r1, _ = make_repo("b")
    assert fingerprint(r0) == fingerprint(r1)
    r1.run("remote", "set-url", "origin", str(tmp_path / "a-remote.git"))  # no longer what install recorded
    assert fingerprint(r1) != fingerprint(r0)


def test_install_all_compiles_once_and_writes_the_same_runtime_everywhere(installed, env):
    root, repos = installed
    trees = []
    for repo in repos:
        runtime = os.path.join(repo.path, ".git", "agentguard", "runtime")
        tree = {}
        for folder, _, names in os.walk(runtime):
            for name in names:
                path = os.path.join(folder, name)
                tree[os.path.relpath(path, runtime)] = open(path, "rb").read()
        assert not [rel for rel in tree if ".agentguard-tmp-" in rel]
        assert not [rel for rel in tree if "__pycache__" in rel or rel.endswith(".pyc")]  # one compiled file
        compiled = marshal.loads(tree["hooks.marshal"][len(b"agentguard compiled runtime 1\n") + 4:])
        assert sorted(rel for _, rel, _ in compiled.values()) == \
            sorted(rel for rel in tree if rel.startswith("hooks/") and rel.endswith(".py"))
        trees.append(tree)
    assert trees[0] == trees[1] == trees[2]
    proc = agentguard("install", "--all", str(root), "--json", cwd=str(root), env=env)
    assert [r["written"] for r in json.loads(proc.stdout)["repositories"] if r["kind"] == "work"] == [0, 0, 0]


def test_progress_is_drawn_on_a_terminal_and_pipes_stay_plain(installed, env):
    root, _ = installed
    rc, text = on_a_terminal([AGENTGUARD, "doctor", "--all", str(root), "--no-probes"], str(root), env)
    assert rc == 0 and "\x1b[" in text and "checking" in text  # rich drew its bar (and took it away)
    assert "3 protected, 0 NOT protected" in text
    proc = agentguard("doctor", "--all", str(root), "--no-probes", cwd=str(root), env=env)
    assert "\x1b" not in proc.stdout + proc.stderr and "checking" not in proc.stderr
    rc, text = on_a_terminal([AGENTGUARD, "doctor", "--all", str(root), "--no-probes", "--json"], str(root), env)
    assert rc == 0 and "\x1b" not in text and json.loads(text)["ok"] is True
    rc, text = on_a_terminal([AGENTGUARD, "install", "--all", str(root)], str(root), env)
    assert rc == 0 and "\x1b[" in text and "installing" in text


def test_a_durable_batch_lands_whole_or_leaves_no_temp_file(tmp_path):
    batch = Batch()
    for i in range(6):
        batch.write(str(tmp_path / "d" / ("f%d" % i)), b"%d" % i, 0o640 if i % 2 else 0o644)
    assert not os.path.exists(tmp_path / "d" / "f0")  # nothing in place before the commit
    batch.commit()
    assert sorted(os.listdir(tmp_path / "d")) == ["f%d" % i for i in range(6)]
    assert [os.stat(tmp_path / "d" / ("f%d" % i)).st_mode & 0o777 for i in range(6)] == [0o644, 0o640] * 3
    os.makedirs(tmp_path / "d" / "f3x")
    batch = Batch()
    batch.write(str(tmp_path / "d" / "f1"), b"new", 0o644)
    batch.write(str(tmp_path / "d" / "f3x"), b"cannot replace a directory", 0o644)
    with pytest.raises(OSError):
        batch.commit()
    assert open(tmp_path / "d" / "f1", "rb").read() == b"new"  # renamed before the failure: in place
    assert not [n for n in os.listdir(tmp_path / "d") if n.startswith(".agentguard-tmp-")]


def test_a_plan_made_before_another_install_ran_is_made_again_under_the_lock(make_repo, monkeypatch):
    """apply_install keeps its plan only while the manifest is the one it was planned against: here
    another install chained the user's hook in between, and the stale plan's "keep the user's hook"
    step would have chained agentguard's own hook to itself."""
    from agentguard.installer.setup.install import apply_install, plan_install
    repo, _ = make_repo(install=False)
    hook = os.path.join(repo.path, ".git", "hooks", "pre-commit")
    write(hook, USER_HOOK, 0o755)
    for key, value in repo.env.items():
        monkeypatch.setenv(key, value)
    plan = plan_install(repo.path)
    assert any(a.kind == "chain" for a in plan.actions)
    repo.agentguard("install")  # another install, between this plan and its lock
    apply_install(plan)
    assert open(hook + ".agentguard-chained", "rb").read() == USER_HOOK
    assert b"agentguard" in open(hook, "rb").read()
    assert doctored(repo, None)["hooks.pre-commit"].status == "pass"


def test_a_plan_that_saw_another_runs_files_half_way_is_made_again_even_when_the_manifest_reads_the_same(
        make_repo, monkeypatch):
    """The race CI caught (test_racing_installs_and_uninstalls): a plan read "no manifest" before
    another install wrote it and the hooks after; an uninstall then took the manifest away again. The
    manifest reads the same as when planning, but the plan wrote only a manifest, over no hooks. The
    lock's generation moved (each install and uninstall moves it): the plan is made again."""
    from agentguard.installer.setup.install import apply_install, plan_install
    repo, _ = make_repo(install=False)
    hook = os.path.join(repo.path, ".git", "hooks", "pre-commit")
    write(hook, USER_HOOK, 0o755)
    for key, value in repo.env.items():
        monkeypatch.setenv(key, value)
    repo.agentguard("install")
    record = os.path.join(repo.path, ".git", "agentguard", manifest.NAME)
    saved = open(record, "rb").read()
    os.unlink(record)
    plan = plan_install(repo.path)  # no manifest yet, the other install's hooks already in place
    assert not any(a.path == hook for a in plan.actions)  # the stale plan: nothing to write there
    write(record, saved, 0o644)
    repo.agentguard("uninstall")  # the manifest is gone again, as when the plan read it
    assert open(hook, "rb").read() == USER_HOOK
    assert apply_install(plan) is not plan
    assert open(hook + ".agentguard-chained", "rb").read() == USER_HOOK
    assert b"agentguard" in open(hook, "rb").read()
    assert doctored(repo, None)["hooks.pre-commit"].status == "pass"


def test_a_plan_no_other_run_met_is_applied_as_made(make_repo, monkeypatch):
    """The counterpart: with no other install or uninstall in between, the plan stands (planning is a
    third of an install's time; install --all plans each repository once)."""
    from agentguard.installer.setup.install import apply_install, plan_install
    repo, _ = make_repo(install=False)
    for key, value in repo.env.items():
        monkeypatch.setenv(key, value)
    repo.agentguard("install")
    repo.agentguard("uninstall")  # a lock file from earlier runs: its generation is read, not absent
    plan = plan_install(repo.path)
    assert apply_install(plan) is plan
    assert doctored(repo, None)["hooks.pre-commit"].status == "pass"


def test_two_separate_installs_write_the_same_compiled_runtime(make_repo):
    """The compiled file's bytes depend on the sources and the interpreter alone, not on the process that
    compiled them (a re-run after a killed install completes it byte for byte; doctor --all shares the
    probes)."""
    compiled = []
    for name in ("a", "bb"):
        repo, _ = make_repo(name)
        compiled.append(open(os.path.join(repo.path, ".git", "agentguard", "runtime", "hooks.marshal"), "rb").read())
    assert len(compiled[0]) > 100000 and compiled[0] == compiled[1]


def test_installs_side_by_side_keep_every_repositorys_trust_in_the_shared_user_file(make_repo, tmp_path, env):
    """install --all runs installs side by side; Codex's trust entries for all of them go into one file in
    the user's home (read, modified, written): none may be lost (fsops.UserFilesLock, a plan made again
    under it). Without the lock, 3 of 4 repositories were left NOT protected (adapters.codex)."""
    for i in range(6):
        make_repo("side/r%d" % i, install=False)
    root = tmp_path / "side"
    proc = agentguard("install", "--all", str(root), "--harness", "codex", "--jobs", "4", "--json", cwd=str(root),
                      env=env, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    config = open(os.path.join(env["HOME"], ".codex", "config.toml")).read()
    for i in range(6):
        assert str(root / ("r%d" % i)) in config, config
    proc = agentguard("doctor", "--all", str(root), "--json", cwd=str(root), env=env, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:]
