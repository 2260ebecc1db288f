"""The benchmark in CI: --quick --gate fails when a CPU-time ratio exceeds its goal beyond the noise
margin (bench/goals.py), and the gate is proven able to fail, on a saved report and on a real check
slowed down."""
import json
import os
import subprocess
import sys

import pytest

from helpers import under_ci

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "bench")
sys.path.insert(0, BENCH)

import goals  # noqa: E402

pytestmark = pytest.mark.one_git  # what it measures is agentguard's cost; scripts/test.sh runs it once

GATED = {"check, a git command (`check --hook claude`)", "check, a command that is not git (`ls -la`)",
         "check --after, nothing to undo", "whole tool call (both hooks through sh)",
         "push of one new commit (local path)", "up-to-date push (local path)", "ssh connections per guarded push"}


def real_syncs():
    """This environment without libeatmydata (scripts/test.sh runs the suite under eatmydata, which makes
    fsync and sync no-ops): the benchmark measures what a user's fsync costs."""
    env = dict(os.environ)
    kept = [lib for lib in env.pop("LD_PRELOAD", "").replace(":", " ").split() if "eatmydata" not in lib]
    if kept:
        env["LD_PRELOAD"] = " ".join(kept)
    return env


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "bench.json"
    proc = subprocess.run([sys.executable, os.path.join(BENCH, "run.py"), "--quick", "--gate", "--json", str(out)],
                          capture_output=True, text=True, timeout=900, env=real_syncs())
    assert out.exists(), proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc, json.loads(out.read_text())


@pytest.mark.slow
def test_quick_benchmark_reports_every_goal(quick):
    proc, report = quick
    rows = {row["path"]: row for row in report["goals"]}
    assert GATED <= {path for path, row in rows.items() if row["gated"]}, sorted(rows)
    assert {"doctor --all, 200 repositories", "install --all, 200 repositories"} <= set(rows)
    for key in ("floor", "check", "check-plain", "after", "call"):
        assert report["hot_path"][key]["n"] == report["runs"] and report["hot_path"][key]["median"] > 0
    for row in report["workloads"].values():
        assert set(row) == {"none", "floor", "agentguard", "pre-commit"}
        assert all(s["n"] == report["heavy_runs"] and s["median"] > 0 for s in row.values())
    assert "extrapolated" in report["fleet"]["how"]   # --quick says it did not measure 200
    for path in rows:
        assert path[:40] in proc.stdout
    assert "goal" in proc.stdout and "met" in proc.stdout


@pytest.mark.slow
def test_quick_benchmark_gate_passes(quick):
    """Every gated ratio within its goal (or, for a goal not met yet, the level held: goals.HELD) x (1 +
    margin) on this machine: no regression beyond noise."""
    proc, report = quick
    if (report.get("transports") or {}).get("skipped", {}).get("ssh") and not under_ci():
        pytest.skip("sshd is not installed: %s" % report["transports"]["skipped"]["ssh"])
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "gate passed" in proc.stdout


def _limit(key, goal):
    return max(goal, goals.HELD.get(key, 0)) * (1 + goals.MARGIN)


def _report(check=2.9, plain=2.9, after=1.9, call=5.9, push_new=1.9, push_current=2.9, ssh=1):
    """A report as bench/run.py writes it, with the given ratios to their floors."""
    def s(ms):
        return {"median": ms / 1e3, "min": ms / 1e3, "max": ms / 1e3, "n": 21}
    return {"hot_path": {"floor": s(10), "check": s(10 * check), "check-plain": s(10 * plain),
                         "after": s(10 * after), "call": s(10 * call), "plain": "ls -la"},
            "push": {"push of one new commit (local path)": {"none": s(10), "agentguard": s(10 * push_new)},
                     "up-to-date push (local path)": {"none": s(10), "agentguard": s(10 * push_current)}},
            "transports": {"ssh_connections": {"none": [1, 1], "agentguard": [ssh, 1]} if ssh else {},
                           "skipped": {} if ssh else {"ssh": "no sshd"}},
            "fleet": {"doctor": {"wall": 99.0, "cpu": 150.0}, "install": {"wall": 300.0, "cpu": 400.0},
                      "how": "measured over 200 repositories"},
            "workloads": {"3 commits on a feature branch": {"none": s(20), "floor": s(40), "agentguard": s(30),
                                                            "pre-commit": s(900)}}}


def test_gate_passes_within_the_goals_and_the_margin():
    assert goals.gate(goals.rows(_report())) == []
    # beyond the goal but within the noise margin: reported as missed, not failed
    rows = goals.rows(_report(check=_limit("check", 3) - 0.01))
    assert not goals.gate(rows) and not next(r for r in rows if r["path"].startswith("check, a git"))["met"]
    # the wall-clock goals (fleet) are reported, never gated: wall time swings with the machine's load
    assert all(not r["gated"] for r in rows if r["unit"] == "s")


@pytest.mark.parametrize("change, failing", [
    ({"check": _limit("check", 3) + 0.01}, "check, a git command"),
    ({"plain": _limit("check-plain", 3) + 0.01}, "check, a command that is not git"),
    ({"after": _limit("after", 2) + 0.01}, "check --after"),
    ({"call": _limit("call", 6) + 0.01}, "whole tool call"),
    ({"push_new": 3.0}, "push of one new commit"),
    ({"push_current": 4.5}, "up-to-date push"),
    ({"ssh": 2}, "ssh connections"),
    ({"ssh": None}, "ssh connections"),   # not measured: the gate does not pass what it did not see
])
def test_gate_fails_beyond_the_margin(change, failing, tmp_path):
    failed = goals.gate(goals.rows(_report(**change)))
    assert [row["path"][:len(failing)] for row in failed] == [failing]
    saved = tmp_path / "report.json"
    saved.write_text(json.dumps(_report(**change)))
    proc = subprocess.run([sys.executable, os.path.join(BENCH, "run.py"), "--gate-report", str(saved)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "GATE FAILED: %s" % failing in proc.stdout, proc.stdout + proc.stderr


@pytest.mark.slow
def test_gate_fails_on_a_check_slowed_down(tmp_path):
    """Measured for real: the runtime's check behind a wrapper that first burns more CPU than the gate
    allows the whole check (a 300,000-step sh loop: ~240 ms here, far past the held level's limit); the same
    measuring the benchmark does must put it beyond the gate."""
    import calls
    import workloads
    env = workloads.env_for(str(tmp_path / "home"))
    os.makedirs(env["HOME"])
    repo = workloads.Repo(str(tmp_path), "agentguard", env, install_args=("--harness", "claude"))
    real = os.path.join(repo.path, ".git", "agentguard", "check")
    slow = tmp_path / "slow-check"
    slow.write_text("#!/bin/sh\ni=0\nwhile [ $i -lt 300000 ]; do i=$((i+1)); done\nexec %s \"$@\"\n" % real)
    slow.chmod(0o755)
    hot = calls.hot_path(repo.path, env, 7, check=str(slow))
    failed = {row["path"] for row in goals.gate(goals.rows({"hot_path": hot}))}
    assert {"check, a git command (`check --hook claude`)", "check --after, nothing to undo"} <= failed, hot
