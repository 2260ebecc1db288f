"""The cost of an ordinary day's steps with every layer on, in this version against another one.

Each step is run the way an adapter runs it (Claude Code's pre-call hook command as install wrote it,
the command, its post-call hook) in a repository installed with ``--harness all`` by each version's own
``agentguard``; the measure is CPU time (user + sys of the whole process tree), medians of alternating
runs in one run, so the two versions share the machine's noise. Prints one row per step and the ratio.

    python bench/day.py --other /path/to/old/checkout/.venv/bin/agentguard [--runs 7]
"""
import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
# (name, command the agent runs, set-up before each run, clean-up after it[, the folder of the work tree
# the harness runs both hooks and the command in]): set-ups and clean-ups are a person's plain git, not
# measured
STEPS = [
    ("git status", "git status --short", None, None),
    ("commit on a branch", "git commit -q --allow-empty -m step", None, None),
    ("switch and back", "git switch -q main && git switch -q work", None, None),
    ("push a branch", "git push -q origin work", "git commit -q --allow-empty -m p", None),
    ("fetch", "git fetch -q origin", None, None),
    ("stash -u and pop", "git stash -q -u && git stash pop -q", "echo x > wip.txt", "rm -f wip.txt"),
    ("worktree add", "git worktree add -q ../wt -b wt", None,
     "git worktree remove --force ../wt && git branch -q -D wt"),
    ("run the tests", "true", None, None),
    ("push, protocol.file.allow=always", "git push -q origin work", "git commit -q --allow-empty -m p && "
     "git config --global protocol.file.allow always", "git config --global --unset protocol.file.allow"),
    ("commit in a subdirectory", "git commit -q --allow-empty -m sub", "mkdir -p src", None, "src"),
]


def hook_commands(repo):
    """Claude Code's (pre, post) hook commands as this install wrote them."""
    for name in ("settings.local.json", "settings.json"):
        path = os.path.join(repo, ".claude", name)
        if not os.path.exists(path):
            continue
        hooks = json.load(open(path)).get("hooks", {})
        found = {}
        for event in ("PreToolUse", "PostToolUse"):
            for group in hooks.get(event, []):
                for entry in group.get("hooks", []):
                    if "agentguard" in entry.get("command", ""):
                        found[event] = entry["command"]
        if len(found) == 2:
            return found["PreToolUse"], found["PostToolUse"]
    raise SystemExit("no Claude Code hooks of agentguard's in %s" % repo)


def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def sh(command, cwd, env, stdin=None):
    return subprocess.run(["sh", "-c", command], cwd=cwd, env=env, input=stdin, capture_output=True, text=True)


def setup(root, agentguard, env):
    os.makedirs(root)
    remote, work = os.path.join(root, "remote.git"), os.path.join(root, "work")
    for cmd in (["git", "init", "-q", "--bare", "-b", "main", remote], ["git", "init", "-q", "-b", "main", work]):
        subprocess.run(cmd, env=env, check=True)
    for cmd in (["git", "commit", "-q", "--allow-empty", "-m", "init"], ["git", "remote", "add", "origin", remote],
                ["git", "push", "-q", "-u", "origin", "main"], ["git", "switch", "-q", "-c", "work"],
                ["git", "push", "-q", "-u", "origin", "work"], [agentguard, "install", "--harness", "all"]):
        subprocess.run(cmd, cwd=work, env=env, check=True, capture_output=True)
    return work


def step_once(work, env, hooks, command, before, after, sub=None):
    if before:
        sh(before, work, env)
    cwd = os.path.join(work, sub) if sub else work
    payload = json.dumps({"tool_name": "Bash", "tool_input": {"command": command}, "cwd": cwd,
                          "hook_event_name": "PreToolUse"})
    start = cpu()
    pre = sh(hooks[0], cwd, env, payload)
    run = sh(command, cwd, env)
    post = sh(hooks[1], cwd, env, payload.replace("PreToolUse", "PostToolUse"))
    spent = cpu() - start
    if after:
        sh(after, work, env)
    bad = pre.returncode or run.returncode or post.returncode or post.stdout.strip() or "deny" in pre.stdout
    return spent, (None if not bad else (pre.stdout + pre.stderr + run.stderr + post.stdout)[:300])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--other", required=True, help="the other version's agentguard executable")
    ap.add_argument("--this", default=shutil.which("agentguard", path=os.path.dirname(sys.executable)),
                    help="this version's agentguard (default: next to this interpreter)")
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args(argv)
    tmp = tempfile.mkdtemp(prefix="agentguard-day-")
    home = os.path.join(tmp, "home")
    os.makedirs(home)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(HOME=home, XDG_CONFIG_HOME=os.path.join(home, ".config"), GIT_CONFIG_NOSYSTEM="1",
               GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@b", GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@b")
    versions = {"this": args.this, "other": args.other}
    works = {name: setup(os.path.join(tmp, name), exe, env) for name, exe in versions.items()}
    hooks = {name: hook_commands(work) for name, work in works.items()}
    print("%-22s %12s %12s %8s" % ("step (pre+cmd+post)", "this ms", "other ms", "ratio"))
    worst = 0.0
    try:
        for name, command, before, after, *sub in STEPS:
            samples: dict = {"this": [], "other": []}
            skipped = {}
            for _ in range(args.runs):
                for version in ("this", "other"):
                    spent, problem = step_once(works[version], env, hooks[version], command, before, after, *sub)
                    if problem:
                        skipped[version] = problem
                    samples[version].append(spent)
            if skipped:
                print("%-22s %s" % (name, "; ".join("%s: not clean (%s)" % kv for kv in sorted(skipped.items()))))
                continue
            this, other = (statistics.median(samples[v]) * 1000 for v in ("this", "other"))
            worst = max(worst, this / other)
            print("%-22s %12.1f %12.1f %7.2fx" % (name, this, other, this / other))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("worst ratio: %.2fx" % worst)


if __name__ == "__main__":
    main()
