"""The git workloads (commits, a rebase, a fetch, an update-ref transaction, a refused commit) against
four set-ups of the same repository:
  none        no hooks at all
  floor       a `#!/bin/sh` hook in every slot agentguard uses that only reads stdin and exits 0
  agentguard  `agentguard install` (hooks, runtime, adapters, push guard)
  pre-commit  the pre-commit framework with pre-commit-hooks' no-commit-to-branch"""
import os
import shutil
import subprocess
import sys

from measure import alternate

BIN = os.path.dirname(sys.executable)
AGENTGUARD = shutil.which("agentguard", path=BIN) or shutil.which("agentguard")
PRE_COMMIT = shutil.which("pre-commit", path=BIN) or shutil.which("pre-commit")
HOOKS = ("pre-commit", "pre-merge-commit", "pre-rebase", "pre-push", "reference-transaction")
SETUPS = ("none", "floor", "agentguard", "pre-commit")
# pre-commit's environments (a virtualenv with pre-commit-hooks) outlive a run: building them is
# minutes of pip, not what is measured
PRE_COMMIT_HOME = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
                               "agentguard-bench", "pre-commit")
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
    env.update({"HOME": home, "XDG_CONFIG_HOME": os.path.join(home, ".config"), "GIT_CONFIG_NOSYSTEM": "1",
                "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b",
                "GIT_COMMITTER_EMAIL": "b@b", "GIT_EDITOR": "true", "GIT_SEQUENCE_EDITOR": "true",
                "PRE_COMMIT_HOME": PRE_COMMIT_HOME, "PATH": BIN + os.pathsep + os.environ.get("PATH", "")})
    return env


class Repo:
    """A repository on branch `feature` with a bare remote `origin` holding `main`, set up as ``setup``."""

    def __init__(self, root, setup, env, install_args=()):
        self.setup, self.env = setup, env
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
        self.install(install_args)

    def git(self, *args, cwd=None, check=True, stdin=None):
        proc = subprocess.run(["git", *args], cwd=cwd or self.path, env=self.env, input=stdin,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if check and proc.returncode != 0:
            raise RuntimeError("git %s: %s" % (" ".join(args), proc.stderr.decode()[-500:]))
        return proc.stdout.decode()

    def write(self, name, text):
        with open(os.path.join(self.path, name), "w") as fh:
            fh.write(text)

    def install(self, install_args=()):
        hooks = os.path.join(self.path, ".git", "hooks")
        if self.setup == "floor":
            for hook in HOOKS:
                with open(os.path.join(hooks, hook), "w") as fh:
                    fh.write("#!/bin/sh\ncat >/dev/null\nexit 0\n")
                os.chmod(os.path.join(hooks, hook), 0o755)
        elif self.setup == "agentguard":
            subprocess.run([AGENTGUARD, "install", *install_args], cwd=self.path, env=self.env, check=True,
                           capture_output=True)
        elif self.setup == "pre-commit":
            self.write(".pre-commit-config.yaml", PRE_COMMIT_CONFIG)
            self.git("add", ".pre-commit-config.yaml")
            for step in ("install", "install-hooks"):
                subprocess.run([PRE_COMMIT, step], cwd=self.path, env=self.env, check=True, capture_output=True)
            self.git("commit", "-q", "-m", "pre-commit config")


# -- workloads: each returns the measured function, or (function, reset run after each measurement) --

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
    return (lambda: repo.git("fetch", "-q", "origin")), (lambda: repo.git("update-ref", "--stdin", stdin=drop))


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


def table(sizes):
    return [("%d commits on a feature branch" % sizes["commits"], lambda r: w_commits(r, sizes["commits"])),
            ("%d-commit rebase" % sizes["rebase"], lambda r: w_rebase(r, sizes["rebase"])),
            ("fetch creating %d refs" % sizes["fetch"], lambda r: w_fetch(r, sizes["fetch"])),
            ("update-ref --stdin, %d updates" % sizes["update_ref"],
             lambda r: w_update_ref(r, sizes["update_ref"])),
            ("refused commit on main", w_refused)]


def measure(repos, runs, make):
    """{setup: CPU-time summary} of one workload, the set-ups alternating."""
    return alternate({setup: make(repo) for setup, repo in repos.items()}, runs)


def sweep(repos, runs, quick):
    """Cost against the number of refs in one update-ref transaction."""
    return {n: measure(repos, runs, lambda r, n=n: w_update_ref(r, n))
            for n in ((10, 100, 1000) if quick else (10, 100, 1000, 10000))}
