"""The benchmark's --quick mode runs in CI so that it cannot rot."""
import json
import os
import subprocess
import sys

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.one_git]  # the quick benchmark: about a minute; it only has to not rot

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_quick_benchmark_runs_every_setup(tmp_path):
    out = tmp_path / "bench.json"
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "run.py"), "--quick", "--sizes",
                           "--json", str(out)], capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    report = json.loads(out.read_text())
    for row in report["workloads"].values():
        assert set(row) == {"none", "floor", "agentguard", "pre-commit"}
        assert all(s["n"] == report["runs"] and s["median"] > 0 for s in row.values())
    assert "goals:" in proc.stdout and "agentguard/floor" in proc.stdout
    assert any(name.startswith("push") for name in report["workloads"])
    assert set(report["push_transports"]) == {"push of a feature commit (ssh)", "push of a feature commit (http)"}
    assert all(set(row) == {"none", "agentguard"} for row in report["push_transports"].values())
    assert set(report["sizes_curve"]) == {"10", "100", "1000"}
    assert any(name.startswith("agentguard check") for name in report["agentguard"])
