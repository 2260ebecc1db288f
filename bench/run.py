"""agentguard benchmark: what the guard costs, as CPU time (user + sys of the whole process tree),
each figure a same-run ratio to its floor with the goal next to it.

    python bench/run.py              the full run (a few minutes)
    python bench/run.py --quick      small sizes, fewer rounds; CI runs it with --gate
    python bench/run.py --gate       exit 1 when a CPU-time ratio exceeds its goal beyond the noise margin
    python bench/run.py --gate-report F.json   apply the gate to a saved report (no measuring)
    python bench/run.py --sizes      cost against the number of refs in one transaction
    python bench/run.py --plot F.png a chart of each ratio against its goal (pip install '.[plot]')

What is measured (bench/measure.py: getrusage(RUSAGE_CHILDREN) deltas, cases alternating round by
round, medians): the pre-check, the after-check and a whole tool call against the interpreter floor
(bench/calls.py); pushes with and without agentguard, and ssh connections per push (bench/push.py);
install/doctor --all over 200 repositories (bench/fleet.py, wall-clock goals); git workloads against a
hook that only reads stdin and against the pre-commit framework (bench/workloads.py). Goals and the
gate: bench/goals.py.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import calls  # noqa: E402
import fleet  # noqa: E402
import goals  # noqa: E402
import push  # noqa: E402
import workloads  # noqa: E402
from workloads import AGENTGUARD, SETUPS, Repo  # noqa: E402


START = time.monotonic()


def _stage(text):
    print("[%5.1f s] measuring: %s" % (time.monotonic() - START, text), file=sys.stderr, flush=True)


def measure_all(args, tmp):
    q = args.quick
    runs = args.runs or (21 if q else 31)          # the cheap, gated paths
    heavy = args.heavy_runs or (5 if q else 7)      # the git workloads (whole-second runs with pre-commit)
    sizes = {"commits": 3 if q else 10, "rebase": 5 if q else 20, "fetch": 50 if q else 200,
             "update_ref": 200 if q else 1000}
    env = workloads.env_for(os.path.join(tmp, "home"))
    os.makedirs(env["HOME"])
    setups = [s for s in args.setups.split(",") if s]
    print("setting up %s in %s ..." % (", ".join(setups), tmp), file=sys.stderr, flush=True)
    repos = {s: Repo(tmp, s, env, install_args=("--harness", "all")) for s in setups}
    report = {"machine": _machine(), "quick": q, "runs": runs, "heavy_runs": heavy, "sizes": sizes,
              "unit": "CPU seconds (user+sys, whole process tree)", "margin": args.margin}
    if "agentguard" in repos:
        _stage("check, after-check, tool call against the interpreter floor (%d rounds)" % runs)
        report["hot_path"] = calls.hot_path(repos["agentguard"].path, env, runs)
    if "none" in repos and "agentguard" in repos:
        _stage("pushes with and without agentguard (%d rounds)" % runs)
        report["push"] = push.local(repos, runs)
        _stage("ssh connections per push")
        report["transports"] = push.transports(tmp, env, max(7, runs // 3), q)
    if not args.no_fleet:
        _stage("install --all and doctor --all (%s)" % ("3 and 9 repositories" if q else "200 repositories"))
        report["fleet"] = fleet.fleet(AGENTGUARD, tmp, env, q)
    report["workloads"] = {}
    for name, make in workloads.table(sizes):
        _stage("%s (%d rounds)" % (name, heavy))
        report["workloads"][name] = workloads.measure(repos, heavy, make)
    if args.sizes:
        _stage("refs in one transaction")
        report["sizes_curve"] = workloads.sweep(repos, heavy, q)
    if "agentguard" in repos and not q:
        _stage("figures without a goal")
        report["extras"] = calls.extras(repos["agentguard"].path, env, 7, AGENTGUARD, q)
    return report


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small sizes, fewer rounds (CI)")
    ap.add_argument("--gate", action="store_true", help="exit 1 when a gated ratio exceeds goal x (1 + margin)")
    ap.add_argument("--gate-report", metavar="JSON", help="apply the gate to a saved report; measure nothing")
    ap.add_argument("--margin", type=float, default=goals.MARGIN, help="the gate's noise margin (default %(default)s)")
    ap.add_argument("--sizes", action="store_true", help="sweep 10..10,000 refs in one transaction")
    ap.add_argument("--plot", metavar="PNG", help="write a chart of each ratio against its goal (matplotlib)")
    ap.add_argument("--json", metavar="FILE", help="write the raw results")
    ap.add_argument("--markdown", action="store_true", help="also print the goal table as markdown")
    ap.add_argument("--setups", default=",".join(SETUPS), help="comma-separated subset of %s" % ", ".join(SETUPS))
    ap.add_argument("--runs", type=int, help="rounds for the gated paths (default: 21 quick, 31 full)")
    ap.add_argument("--heavy-runs", type=int, help="rounds for the git workloads (default: 5 quick, 7 full)")
    ap.add_argument("--no-fleet", action="store_true", help="skip install/doctor --all")
    args = ap.parse_args(argv)
    if args.gate_report:
        with open(args.gate_report) as fh:
            report = json.load(fh)
        return _verdict(goals.rows(report), args.margin)
    tmp = tempfile.mkdtemp(prefix="agentguard-bench-")
    try:
        report = measure_all(args, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    report["goals"] = goals.rows(report)
    _print(report)
    if args.markdown:
        print("\n" + goals.markdown_table(report["goals"]))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(report, fh, indent=1, default=str)
    if args.plot:
        _plot(report, args.plot)
    return _verdict(report["goals"], args.margin) if args.gate else 0


def _verdict(goal_rows, margin):
    failed = goals.gate(goal_rows, margin)
    for row in failed:
        print("GATE FAILED: %s: %s" % (row["path"], row["why"]))
    if not failed:
        print("gate passed: every gated ratio within its goal x %.2f" % (1 + margin))
    return 1 if failed else 0


def _machine():
    git = subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.strip()
    return {"git": git, "python": sys.version.split()[0], "cpus": os.cpu_count()}


def _ms(s):
    return "%7.1f" % (s["median"] * 1e3)


def _print(report):
    m = report["machine"]
    print("\nagentguard benchmark (%s, python %s, %d cpus; %s run; CPU time = user+sys of the process tree, "
          "medians of alternating rounds: %d for calls and pushes, %d for git workloads)"
          % (m["git"], m["python"], m["cpus"], "quick" if report["quick"] else "full", report["runs"],
             report["heavy_runs"]))
    hot = report.get("hot_path")
    if hot:
        print("\ninterpreter floor: %s -I -S -c pass; command judged: %s" % (hot["python"], hot["command"]))
    print("\nworkload (ms CPU)%s" % "".join("%12s" % s for s in SETUPS))
    for name, row in list(report["workloads"].items()) + list((report.get("push") or {}).items()) + \
            list(((report.get("transports") or {}).get("pushes") or {}).items()):
        print("%-40s%s" % (name[:40], "".join("%12s" % (_ms(row[s]) if s in row else "-") for s in SETUPS)))
    ssh = (report.get("transports") or {}).get("ssh_connections")
    if ssh:
        print("ssh connections per push: %s" % ", ".join("%s %s" % kv for kv in ssh.items()))
    for n, row in (report.get("sizes_curve") or {}).items():
        print("%6s refs in one transaction %s" % (n, "  ".join("%s %s" % (s, _ms(row[s]).strip()) for s in row)))
    fl = report.get("fleet")
    if fl:
        print("fleet (%s): install --all %.1f s wall, %.1f s CPU; doctor --all %.1f s wall, %.1f s CPU"
              % (fl["how"], fl["install"]["wall"], fl["install"]["cpu"], fl["doctor"]["wall"], fl["doctor"]["cpu"]))
    for name, s in (report.get("extras") or {}).items():
        unit = s.get("unit", "ms")
        print("%-66s %8.1f %s" % (name[:66], s["median"] * (1 if unit == "KiB" else 1e3), unit))
    print("\ngoals (gated rows fail CI beyond goal x %.2f):" % (1 + report["margin"]))
    print(goals.text_table(report["goals"]))


def _plot(report, path):
    """Each ratio goal's measured ratio divided by its goal (a `>=` goal: the goal divided by the ratio):
    at or under 1.0 the goal is met; the dashed line is the gate."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = [r for r in report["goals"] if r["unit"] == "ms" and r["ratio"]]
    values = [(r["limit"] / r["ratio"]) if r["op"] == ">=" else r["ratio"] / r["limit"] for r in rows]
    fig, ax = plt.subplots(figsize=(10, 5))
    ax.barh(range(len(rows)), values, color=["tab:green" if r["met"] else "tab:red" for r in rows])
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.axvline(1 + report["margin"], color="red", linewidth=0.8, linestyle="--", label="the gate (goal x %.2f)"
               % (1 + report["margin"]))
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(["%s  (%s)" % (r["path"][:48], r["goal"]) for r in rows], fontsize=8)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("same-run CPU-time ratio / goal (<= 1: met)")
    ax.set_title("agentguard: each cost against its goal (%s, %d cpus)" % (report["machine"]["git"],
                                                                           report["machine"]["cpus"]))
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    sys.exit(main())
