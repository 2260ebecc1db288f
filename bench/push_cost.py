"""What the push guard costs over a local path, in CPU time (issue #30).

    python bench/push_cost.py [--rounds N] [AGENTGUARD ...]

For each ``agentguard`` executable given (default: this checkout's), a repository installed with it, and one
"plain" repository with no agentguard; each has a bare remote at an absolute local path. Two pushes are
measured, alternating every set-up in every round: ``new`` (one new commit on a branch, made before the
clock starts, pushed with ``git push -q origin feat``) and ``uptodate`` (the same push again). CPU time is
user + sys of the whole process tree (``RUSAGE_CHILDREN`` deltas around the push); medians, ratios to plain.
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT = shutil.which("agentguard", path=os.path.dirname(sys.executable)) or "agentguard"
GOALS = {"new": 2.0, "uptodate": 3.0}


def environment(home):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    env.update({"HOME": home, "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b",
                "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b", "LC_ALL": "C"})
    return env


def git(env, cwd, *args):
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def make(root, name, env, agentguard=None):
    bare = os.path.join(root, name + "-remote.git")
    work = os.path.join(root, name)
    git(env, root, "init", "-q", "--bare", "-b", "main", bare)
    git(env, root, "init", "-q", "-b", "main", work)
    git(env, work, "commit", "-q", "--allow-empty", "-m", "init")
    git(env, work, "remote", "add", "origin", bare)
    git(env, work, "push", "-q", "origin", "main")
    if agentguard:
        subprocess.run([agentguard, "install"], cwd=work, env=env, check=True, capture_output=True)
    git(env, work, "checkout", "-q", "-b", "feat")
    git(env, work, "push", "-q", "origin", "feat")
    return work


def cpu(env, cwd, argv):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit("%s failed in %s: %s" % (argv, cwd, proc.stderr.decode(errors="replace")))
    return (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=21)
    ap.add_argument("agentguard", nargs="*")
    opts = ap.parse_args(argv)
    tools = [os.path.abspath(t) for t in opts.agentguard] or [DEFAULT]
    root = tempfile.mkdtemp(prefix="agentguard-pushcost-")
    try:
        home = os.path.join(root, "home")
        os.mkdir(home)
        env = environment(home)
        setups = {"plain": make(root, "plain", env)}
        for i, tool in enumerate(tools):
            setups["guard%d" % i] = make(root, "guard%d" % i, env, tool)
        res: dict = {(s, case): [] for s in setups for case in GOALS}
        push = ["git", "push", "-q", "origin", "feat"]
        for rnd in range(opts.rounds + 2):
            order = list(setups.items())
            order = order[rnd % len(order):] + order[:rnd % len(order)]
            for name, work in order:
                git(env, work, "commit", "-q", "--allow-empty", "-m", "r%d" % rnd)
                new = cpu(env, work, push)
                same = cpu(env, work, push)
                if rnd >= 2:
                    res[(name, "new")].append(new)
                    res[(name, "uptodate")].append(same)
        for i, tool in enumerate(tools):
            print("guard%d = %s" % (i, tool))
        print("%-8s %-9s %8s %7s %6s" % ("setup", "push", "cpu ms", "ratio", "goal"))
        for case, goal in GOALS.items():
            base = statistics.median(res[("plain", case)])
            for name in setups:
                m = statistics.median(res[(name, case)])
                print("%-8s %-9s %8.1f %6.2fx %5.1fx" % (name, case, m, m / base, goal))
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
