"""`install --all` and `doctor --all` (live probes on) over many repositories: wall time (their goals
are stated in seconds) and CPU time of the whole process tree. The full run measures 200 repositories;
--quick measures two small fleets and extrapolates linearly (a fixed start-up cost plus a cost per
repository), and says so."""
import os
import shutil
import subprocess

from measure import cost, run

GOAL_REPOS = 200


def make_fleet(root, n, env):
    """n repositories under root (copies of one: a commit on main, a branch `feature` checked out)."""
    template = os.path.join(os.path.dirname(root), "fleet-template")
    if not os.path.isdir(template):
        for argv in (["git", "init", "-q", "-b", "main", template],
                     ["git", "-C", template, "commit", "-q", "--allow-empty", "-m", "initial"],
                     ["git", "-C", template, "checkout", "-q", "-b", "feature"]):
            subprocess.run(argv, env=env, check=True, capture_output=True)
    os.makedirs(root)
    for i in range(n):
        shutil.copytree(template, os.path.join(root, "r%03d" % i), symlinks=True)


def _one(agentguard, root, n, env):
    make_fleet(root, n, env)
    out = {}
    for step in ("install", "doctor"):
        cpu, wall, proc = cost(lambda: run([agentguard, step, "--all", root], cwd=root, env=env))
        if proc.returncode:
            raise RuntimeError("%s --all over %d repositories: exit %d\n%s%s" % (
                step, n, proc.returncode, proc.stdout.decode()[-1500:], proc.stderr.decode()[-1500:]))
        out[step] = {"wall": wall, "cpu": cpu}
    return out


def fleet(agentguard, tmp, env, quick):
    """{"repos": what was measured, "install"/"doctor": {"wall", "cpu"} for GOAL_REPOS repositories,
    "how": "measured" or "extrapolated from ..."}. A home of its own: a user whose harness settings
    (~/.codex, ...) the other set-ups wrote would get those adapters too."""
    home = os.path.join(tmp, "fleet-home")
    os.makedirs(home)
    env = dict(env, HOME=home, XDG_CONFIG_HOME=os.path.join(home, ".config"))
    if not quick:
        res = _one(agentguard, os.path.join(tmp, "fleet-%d" % GOAL_REPOS), GOAL_REPOS, env)
        return dict(res, repos=[GOAL_REPOS], how="measured over %d repositories" % GOAL_REPOS)
    small, large = 3, 9
    a = _one(agentguard, os.path.join(tmp, "fleet-%d" % small), small, env)
    b = _one(agentguard, os.path.join(tmp, "fleet-%d" % large), large, env)
    out = {"repos": [small, large], "measured": {small: a, large: b},
           "how": "extrapolated linearly to %d from %d and %d repositories" % (GOAL_REPOS, small, large)}
    for step in ("install", "doctor"):
        out[step] = {}
        for key in ("wall", "cpu"):
            per_repo = max(0.0, (b[step][key] - a[step][key]) / (large - small))
            out[step][key] = a[step][key] + per_repo * (GOAL_REPOS - small)
    return out
