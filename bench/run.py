"""agentguard benchmark: what the guard costs on real git workloads.

    python bench/run.py              the full run (a few minutes)
    python bench/run.py --quick      seconds; CI runs it so the benchmark cannot rot
    python bench/run.py --sizes      cost against the number of refs in one transaction
    python bench/run.py --plot F.png a chart of the ratios (needs matplotlib: pip install '.[plot]')

Each workload runs against every set-up in alternation (the order rotates every round, so machine
drift hits all alike), after a warm-up; whole-process wall time, medians and min/max. Set-ups:
  none        no hooks at all
  floor       a `#!/bin/sh` hook in every slot agentguard uses that only reads stdin and exits 0
  agentguard  `agentguard install` (hooks, runtime, adapters)
  pre-commit  the pre-commit framework with pre-commit-hooks' no-commit-to-branch
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BIN = os.path.dirname(sys.executable)
AGENTGUARD = shutil.which("agentguard", path=BIN) or shutil.which("agentguard")
PRE_COMMIT = shutil.which("pre-commit", path=BIN) or shutil.which("pre-commit")
HOOKS = ("pre-commit", "pre-merge-commit", "pre-rebase", "pre-push", "reference-transaction")
SETUPS = ("none", "floor", "agentguard", "pre-commit")
PRE_COMMIT_CONFIG = """repos:
- repo: local
  hooks:
  - id: no-commit-to-branch
    name: no-commit-to-branch
    entry: no-commit-to-branch
    language: python
    additional_dependencies: ["pre-commit-hooks==5.0.0"]
    pass_filenames: false
    always_run: true
"""


def env_for(home):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    env.update({"HOME": home, "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b",
                "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b", "GIT_EDITOR": "true",
                "GIT_SEQUENCE_EDITOR": "true", "PRE_COMMIT_HOME": os.path.join(home, ".pre-commit"),
                "PATH": BIN + os.pathsep + os.environ.get("PATH", "")})
    return env


class Repo:
    def __init__(self, root, setup, env):
        self.setup = setup
        self.env = env
        self.bare = os.path.join(root, setup + "-remote.git")
        self.path = os.path.join(root, setup)
        self.git("init", "-q", "--bare", "-b", "main", self.bare, cwd=root)
        self.git("init", "-q", "-b", "main", self.path, cwd=root)
        self.write("f", "0\n")
        self.git("add", "f")
        self.git("commit", "-q", "-m", "initial")
        self.git("remote", "add", "origin", self.bare)
        self.git("push", "-q", "-u", "origin", "main")
        self.git("checkout", "-q", "-b", "feature")
        self.install()

    def git(self, *args, cwd=None, check=True, stdin=None):
        proc = subprocess.run(["git", *args], cwd=cwd or self.path, env=self.env, input=stdin,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if check and proc.returncode != 0:
            raise RuntimeError("git %s: %s" % (" ".join(args), proc.stderr.decode()[-500:]))
        return proc.stdout.decode()

    def write(self, name, text):
        with open(os.path.join(self.path, name), "w") as fh:
            fh.write(text)

    def install(self):
        hooks = os.path.join(self.path, ".git", "hooks")
        if self.setup == "floor":
            for hook in HOOKS:
                with open(os.path.join(hooks, hook), "w") as fh:
                    fh.write("#!/bin/sh\ncat >/dev/null\nexit 0\n")
                os.chmod(os.path.join(hooks, hook), 0o755)
        elif self.setup == "agentguard":
            subprocess.run([AGENTGUARD, "install"], cwd=self.path, env=self.env, check=True, capture_output=True)
        elif self.setup == "pre-commit":
            self.write(".pre-commit-config.yaml", PRE_COMMIT_CONFIG)
            self.git("add", ".pre-commit-config.yaml")
            subprocess.run([PRE_COMMIT, "install"], cwd=self.path, env=self.env, check=True, capture_output=True)
            subprocess.run([PRE_COMMIT, "install-hooks"], cwd=self.path, env=self.env, check=True, capture_output=True)
            self.git("commit", "-q", "-m", "pre-commit config")


def timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


# -- workloads: each returns a function that performs one measured run --------------------------

def w_commits(repo, n):
    counter = [0]

    def run():
        for _ in range(n):
            counter[0] += 1
            repo.write("f", "%d\n" % counter[0])
            repo.git("commit", "-q", "-a", "-m", "c%d" % counter[0])
    return run


def w_rebase(repo, n):
    for i in range(n):
        repo.write("r%d" % i, "x\n")
        repo.git("add", "r%d" % i)
        repo.git("commit", "-q", "-m", "r%d" % i)
    return lambda: repo.git("rebase", "-q", "--force-rebase", "HEAD~%d" % n)


def w_fetch(repo, n):
    oid = repo.git("rev-parse", "main", cwd=repo.bare).strip()
    lines = "".join("create refs/heads/b%05d %s\n" % (i, oid) for i in range(n))
    repo.git("update-ref", "--stdin", cwd=repo.bare, stdin=lines.encode())
    drop = "".join("delete refs/remotes/origin/b%05d\n" % i for i in range(n)).encode()

    def run():
        repo.git("fetch", "-q", "origin")
    return run, lambda: repo.git("update-ref", "--stdin", stdin=drop)


def w_update_ref(repo, n):
    oid = repo.git("rev-parse", "HEAD").strip()
    create = "".join("create refs/tags/u%05d %s\n" % (i, oid) for i in range(n)).encode()
    drop = "".join("delete refs/tags/u%05d\n" % i for i in range(n)).encode()
    return (lambda: repo.git("update-ref", "--stdin", stdin=create)), \
        (lambda: repo.git("update-ref", "--stdin", stdin=drop))


def w_refused(repo):
    def run():
        repo.git("checkout", "-q", "main")
        repo.write("f", "refused\n")
        repo.git("commit", "-q", "-a", "-m", "onto main", check=False)
        repo.git("checkout", "-q", "-f", "feature")
    return run


def w_push(repo):
    """One push of a new feature commit (the commit is made between measurements)."""
    counter = [0]

    def commit():
        counter[0] += 1
        repo.write("f", "push %d\n" % counter[0])
        repo.git("commit", "-q", "-a", "-m", "p%d" % counter[0])
    commit()
    return (lambda: repo.git("push", "-q", "origin", "feature")), commit


def measure(setups, runs, make):
    """{setup: [seconds]}: one warm-up each, then rounds in rotating order. ``make(repo)`` returns
    the measured function, or (function, reset run after each measurement)."""
    fns, reset = {}, {}
    for setup, repo in setups.items():
        made = make(repo)
        fns[setup] = made if callable(made) else made[0]
        if not callable(made):
            reset[setup] = made[1]
    results = {s: [] for s in setups}
    order = list(setups)
    for r in range(runs + 1):
        for setup in order:
            t = timed(fns[setup])
            if setup in reset:
                reset[setup]()
            if r > 0:
                results[setup].append(t)
        order = order[1:] + order[:1]
    return results


def summary(samples):
    return {"median": statistics.median(samples), "min": min(samples), "max": max(samples), "n": len(samples)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small sizes and few runs (seconds)")
    ap.add_argument("--sizes", action="store_true", help="sweep 10..10,000 refs in one transaction")
    ap.add_argument("--plot", metavar="PNG", help="write a chart of the ratios (matplotlib)")
    ap.add_argument("--json", metavar="FILE", help="write the raw results")
    ap.add_argument("--setups", default=",".join(SETUPS), help="comma-separated subset of %s" % ", ".join(SETUPS))
    ap.add_argument("--runs", type=int, help="measured runs per set-up (default: 3 quick, 7 full)")
    args = ap.parse_args(argv)
    q = args.quick
    runs = args.runs or (3 if q else 7)
    sizes = {"commits": 10 if q else 100, "rebase": 5 if q else 20, "fetch": 200 if q else 5000,
             "update_ref": 500 if q else 10000}
    setups_wanted = [s for s in args.setups.split(",") if s]
    tmp = tempfile.mkdtemp(prefix="agentguard-bench-")
    try:
        env = env_for(os.path.join(tmp, "home"))
        os.makedirs(env["HOME"])
        print("setting up %s in %s ..." % (", ".join(setups_wanted), tmp), file=sys.stderr)
        repos = {s: Repo(tmp, s, env) for s in setups_wanted}
        report = {"machine": _machine(), "sizes": sizes, "runs": runs, "workloads": {}}
        table = [
            ("%d commits on a feature branch" % sizes["commits"], lambda r: w_commits(r, sizes["commits"])),
            ("%d-commit rebase" % sizes["rebase"], lambda r: w_rebase(r, sizes["rebase"])),
            ("fetch creating %d refs" % sizes["fetch"], lambda r: w_fetch(r, sizes["fetch"])),
            ("update-ref --stdin, %d updates" % sizes["update_ref"], lambda r: w_update_ref(r, sizes["update_ref"])),
            ("refused commit on main", w_refused),
            ("push of a feature commit (local path)", w_push),
        ]
        for name, make in table:
            print("measuring: %s" % name, file=sys.stderr)
            res = measure(repos, runs, make)
            report["workloads"][name] = {s: summary(v) for s, v in res.items()}
        if "agentguard" in repos:
            report["agentguard"] = _agentguard_only(repos["agentguard"], runs, env, q)
        if "none" in repos and "agentguard" in repos:
            report["push_transports"] = _push_transports(tmp, env, runs)
        if args.sizes:
            report["sizes_curve"] = _sweep(repos, runs, q)
        _print(report)
        if args.json:
            with open(args.json, "w") as fh:
                json.dump(report, fh, indent=2)
        if args.plot:
            _plot(report, args.plot)
        return 0 if report.get("goals_ok", True) else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _push_transports(tmp, env, runs):
    """The push workload over ssh (a real sshd) and smart HTTP (lighttpd + git http-backend), both on
    127.0.0.1, started here with the test suite's servers; skipped when they are not installed."""
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    import gitservers
    out = {}
    for kind, start in (("ssh", gitservers.sshd), ("http", gitservers.http_backend)):
        root = os.path.join(tmp, kind)
        os.makedirs(os.path.join(root, "srv"))
        try:
            with start(root=os.path.join(root, "srv"), scratch=root) as server:
                run_env = dict(env, **server.env)
                repos = {}
                for setup in ("none", "agentguard"):
                    repo = Repo(os.path.join(root), setup, run_env)
                    served = os.path.join(root, "srv", setup + ".git")
                    shutil.copytree(repo.bare, served)
                    repo.git("config", "http.receivepack", "true", cwd=served)
                    repo.git("remote", "set-url", "origin", server.url(setup + ".git"))
                    repo.git("fetch", "-q", "origin")
                    if setup == "agentguard":
                        subprocess.run([AGENTGUARD, "install"], cwd=repo.path, env=run_env, check=True,
                                       capture_output=True)
                    repos[setup] = repo
                print("measuring: push over %s" % kind, file=sys.stderr)
                res = measure(repos, runs, w_push)
                out["push of a feature commit (%s)" % kind] = {s: summary(v) for s, v in res.items()}
        except BaseException as exc:  # pytest.skip (server not installed) is a BaseException
            print("push over %s skipped: %s" % (kind, exc), file=sys.stderr)
    return out


def _machine():
    git = subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.strip()
    return {"git": git, "python": sys.version.split()[0], "cpus": os.cpu_count()}


def sampled(runs, argv, prepare=None, then=None, **kwargs):
    """summary() of ``runs`` timed runs of ``argv`` (one warm-up run first, not counted); ``prepare``
    runs before each, untimed; ``then`` checks after each."""
    samples = []
    for i in range(runs + 1):
        if prepare:
            prepare()
        t = timed(lambda: subprocess.run(argv, capture_output=True, **kwargs))
        if then:
            then()
        if i:
            samples.append(t)
    return summary(samples)


def _agentguard_only(repo, runs, env, quick):
    out = {}
    command = "git checkout -b fix && git add -A && git commit -m 'fix the thing' && git push -u origin HEAD"
    at = {"cwd": repo.path, "env": env}
    out["agentguard check (CLI)"] = sampled(runs, [AGENTGUARD, "check", "--json", command], **at)
    check = os.path.join(repo.path, ".git", "agentguard", "check")
    out["agentguard check (runtime copy, what adapters run)"] = sampled(runs, [check, "--json", "--", command], **at)
    out["agentguard check --after (runtime copy, nothing to undo)"] = sampled(runs, [check, "--after", "--json"], **at)
    hook = os.path.join(repo.path, ".git", "hooks", "pre-commit")

    def restored():
        assert os.path.exists(hook), "check --after did not put the hook back"

    out["agentguard check --after (restoring a deleted hook)"] = sampled(
        runs, [check, "--after", "--json"], prepare=lambda: os.unlink(hook), then=restored, **at)
    out.update(_harness_hooks(repo, runs, env, command))
    n = 200 if quick else 5000
    oid = repo.git("rev-parse", "HEAD").strip()
    creates = "".join("create refs/tags/d%05d %s\n" % (i, oid) for i in range(n))
    repo.git("update-ref", "--stdin", stdin=creates.encode())
    out["agentguard doctor (%d refs)" % n] = sampled(runs, [AGENTGUARD, "doctor", "--json"], **at)
    out["runtime peak memory (KiB), 10,000-line protected transaction"] = _peak_memory(repo, env)
    return out


def _harness_hooks(repo, runs, env, command):
    """Per tool call, what each settings-file harness's hook costs (the harness starts it with a shell):
    the hook command install writes, with that harness's payload for a shell call; the floor is a hook
    that only reads its input."""
    sys.path.insert(0, ROOT)
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from agentguard.installer.harness.settingsfile import NAMES, hook_command
    from agentguard.hooks.harness.hook import PROTOCOLS
    from harnesscalls import CALLS  # each harness's shell call, in its own payload shape
    out = {}
    commands = [("harness hook floor (sh reading its input)", "cat >/dev/null", "codex")]
    commands += [("harness hook (%s)" % name, hook_command(name), name) for name in NAMES]
    for label, hook, name in commands:
        payload = json.dumps(dict(CALLS[name](command), **{PROTOCOLS[name].cwd: repo.path})).encode()
        out[label] = sampled(runs, ["sh", "-c", hook, "agentguard", name], cwd=repo.path, env=env, input=payload)
    return out


def _peak_memory(repo, env):
    run_py = os.path.join(repo.path, ".git", "agentguard", "runtime", "run.py")
    python = json.load(open(os.path.join(repo.path, ".git", "agentguard", "manifest.json")))["python"]
    oid = repo.git("rev-parse", "HEAD").strip()
    data = "".join("%s %s refs/heads/main\n" % (oid, oid) for _ in range(10000)).encode()
    proc = subprocess.Popen([python, "-I", "-S", "-B", run_py, "reference-transaction", "0", "prepared"],
                            cwd=repo.path, env=env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    proc.stdin.write(data)
    proc.stdin.close()
    _, _, usage = os.wait4(proc.pid, 0)
    return {"median": usage.ru_maxrss, "min": usage.ru_maxrss, "max": usage.ru_maxrss, "n": 1}


def _sweep(repos, runs, quick):
    curve = {}
    for n in ((10, 100, 1000) if quick else (10, 100, 1000, 10000)):
        res = measure(repos, runs, lambda r, n=n: w_update_ref(r, n))
        curve[n] = {s: summary(v) for s, v in res.items()}
    return curve


def _ratio(row, setup):
    floor = row.get("floor", {}).get("median")
    return row[setup]["median"] / floor if floor and setup in row else None


def _print(report):
    setups = [s for s in SETUPS if any(s in row for row in report["workloads"].values())]
    print("\nagentguard benchmark  (%s, python %s, %d cpus; %d runs after a warm-up; medians, [min-max] in ms)"
          % (report["machine"]["git"], report["machine"]["python"], report["machine"]["cpus"], report["runs"]))
    head = "%-36s" % "workload" + "".join("%22s" % s for s in setups) + "%14s" % "agentguard/floor"
    print(head)
    print("-" * len(head))
    goals = []
    for name, row in report["workloads"].items():
        cells = "".join("%22s" % ("%.0f [%.0f-%.0f]" % tuple(row[s][k] * 1e3 for k in ("median", "min", "max")))
                        if s in row else "%22s" % "-" for s in setups)
        ratio = _ratio(row, "agentguard")
        print("%-36s%s%14s" % (name, cells, "%.2fx" % ratio if ratio else "-"))
        if ratio and not name.startswith(("refused", "push")):
            goals.append(("%s: agentguard within 1.10x of the floor" % name, ratio <= 1.10, "%.2fx" % ratio))
    pushes = {n: r for n, r in report["workloads"].items() if n.startswith("push")}
    pushes.update(report.get("push_transports") or {})
    for name, row in pushes.items():
        if "none" in row and "agentguard" in row:
            ratio = row["agentguard"]["median"] / row["none"]["median"]
            print("%-44s none %5.0f ms, agentguard (hooks and transport guard) %5.0f ms: %.2fx"
                  % (name, row["none"]["median"] * 1e3, row["agentguard"]["median"] * 1e3, ratio))
            if "local path" in name:
                goals.append(("%s: at most 3x no agentguard" % name, ratio <= 3, "%.2fx" % ratio))
    commits = next((r for n, r in report["workloads"].items() if "commits" in n), None)
    if commits and "pre-commit" in commits and "agentguard" in commits:
        speed = commits["pre-commit"]["median"] / commits["agentguard"]["median"]
        goals.append(("feature commits: >= 10x faster than the pre-commit framework", speed >= 10, "%.1fx" % speed))
    check_ms = None
    for name, s in (report.get("agentguard") or {}).items():
        unit = "KiB" if "memory" in name else "ms"
        value = s["median"] if unit == "KiB" else s["median"] * 1e3
        print("%-60s %10.0f %s  [%.0f-%.0f]" % (name, value, unit, s["min"] * (1 if unit == "KiB" else 1e3),
                                                 s["max"] * (1 if unit == "KiB" else 1e3)))
        if name.startswith("agentguard check (runtime"):
            goals.append(("agentguard check (what adapters pay): median under 50 ms", value < 50, "%.0f ms" % value))
            check_ms = value
        if name.startswith("agentguard check --after (runtime copy") and check_ms:
            goals.append(("check --after (nothing to undo): median at most one check", value <= check_ms,
                          "%.0f ms (%.2fx check)" % (value, value / check_ms)))
        if name.startswith("harness hook (") and check_ms:
            goals.append(("%s: at most check + 15 ms of shell and git" % name, value <= check_ms + 15,
                          "%.0f ms (%.2fx check)" % (value, value / check_ms)))
        if name.startswith("agentguard doctor"):
            goals.append(("agentguard doctor: under 1 s", value < 1000, "%.0f ms" % value))
    if report.get("sizes_curve"):
        print("\nrefs in one update-ref transaction: median ms (per-ref cost in us, agentguard)")
        for n, row in report["sizes_curve"].items():
            ag = row.get("agentguard", {}).get("median")
            print("  %6d  %s%s" % (n, "  ".join("%s %.1f" % (s, row[s]["median"] * 1e3) for s in setups if s in row),
                                  "   (%.1f us/ref)" % (ag / n * 1e6) if ag else ""))
    print("\ngoals:")
    for text, ok, value in goals:
        print("  %s %-66s %s" % ("MET " if ok else "MISS", text, value))
    report["goals"] = [{"goal": t, "met": ok, "value": v} for t, ok, v in goals]


def _plot(report, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = list(report["workloads"])
    setups = [s for s in SETUPS if s != "floor" and any(s in r for r in report["workloads"].values())]
    fig, ax = plt.subplots(figsize=(10, 4.5))
    width = 0.8 / max(1, len(setups))
    for i, setup in enumerate(setups):
        values = [(_ratio(report["workloads"][n], setup) or 0) for n in names]
        ax.bar([x + i * width for x in range(len(names))], values, width, label=setup)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.axhline(1.1, color="red", linewidth=0.8, linestyle="--", label="goal: 1.10x")
    ax.set_xticks([x + width * (len(setups) - 1) / 2 for x in range(len(names))])
    ax.set_xticklabels(names, rotation=15, ha="right", fontsize=8)
    ax.set_ylabel("median time / floor (empty hooks)")
    ax.set_yscale("log")
    ax.set_title("agentguard: cost relative to empty hooks (%s)" % report["machine"]["git"])
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    sys.exit(main())
