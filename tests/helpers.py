"""Helpers for driving real git repositories, a real bare remote and the real CLI."""
import os
import shutil
import subprocess
import sys

BIN = os.path.dirname(sys.executable)
AGENTGUARD = shutil.which("agentguard", path=BIN) or shutil.which("agentguard")
ZERO = "0" * 40


def _base_env(home):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT", "HUSKY"))}
    env.update({
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "t@example.com",
        "GIT_EDITOR": "true", "GIT_SEQUENCE_EDITOR": "true", "GIT_MERGE_AUTOEDIT": "no",
        "LC_ALL": "C",
    })
    env["PATH"] = BIN + os.pathsep + env.get("PATH", "")
    return env


class Git:
    """A working repository driven by the real git binary."""

    def __init__(self, path, env):
        self.path = path
        self.env = env

    def run(self, *args, check=True, input=None, cwd=None, env=None):
        proc = subprocess.run(["git", *args], cwd=cwd or self.path, env=env or self.env, input=input,
                              capture_output=True, text=True, timeout=120)
        if check and proc.returncode != 0:
            raise AssertionError("git %s failed (%d):\n%s%s" % (" ".join(args), proc.returncode,
                                                               proc.stdout, proc.stderr))
        return proc

    def sh(self, script, check=False, cwd=None):
        return subprocess.run(["sh", "-c", script], cwd=cwd or self.path, env=self.env, capture_output=True,
                              text=True, timeout=120)

    def rev(self, ref):
        proc = self.run("rev-parse", "-q", "--verify", ref, check=False)
        return proc.stdout.strip() or None

    def commit(self, msg, path=None, content=None):
        name = path or (msg.replace(" ", "_") + ".txt")
        with open(os.path.join(self.path, name), "w") as fh:
            fh.write(content if content is not None else msg + "\n")
        self.run("add", name)
        return self.run("commit", "-q", "-m", msg)

    def agentguard(self, *args, check=True, cwd=None, env=None):
        return agentguard(*args, cwd=cwd or self.path, env=env or self.env, check=check)

    def staged(self):
        return self.run("diff", "--cached", "--name-only").stdout.split()

    def branches(self):
        return self.run("for-each-ref", "--format=%(refname:short)", "refs/heads/").stdout.split()


def agentguard(*args, cwd, env, check=True, input=None):
    proc = subprocess.run([AGENTGUARD, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120, input=input)
    if check and proc.returncode != 0:
        raise AssertionError("agentguard %s failed (%d):\n%s%s" % (" ".join(args), proc.returncode,
                                                                  proc.stdout, proc.stderr))
    return proc


def refused(proc):
    """The command failed and agentguard said so."""
    out = proc.stdout + proc.stderr
    return proc.returncode != 0 and "agentguard: refused" in out


def upstream_advance(bare, env, tmp_path, msg="upstream"):
    """Another clone pushes a commit to the remote's main; returns its sha."""
    other = tmp_path / ("other-" + msg.replace(" ", "_"))
    subprocess.run(["git", "clone", "-q", bare.path, str(other)], env=env, check=True)
    clone = Git(str(other), env)
    clone.commit(msg)
    clone.run("push", "-q", "origin", "main")
    return clone.rev("HEAD")
