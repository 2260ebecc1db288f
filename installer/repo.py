"""Find the repository to guard and where git really reads its hooks."""
import os
from dataclasses import dataclass

from ..hooks.textsafe import safe
from .errors import AgentguardError
from .gitenv import TIMEOUT, run, git


@dataclass
class RepoInfo:
    top: str  # the worktree root
    git_dir: str  # this worktree's git dir
    common_dir: str  # shared by all worktrees: the snapshot and runtime live here
    hooks_dir: str  # `git rev-parse --git-path hooks`: honours core.hooksPath

    @property
    def ag_home(self):
        return os.path.join(self.common_dir, "agentguard")

    def display(self, path):
        """``path`` relative to the worktree when inside it, for messages."""
        rel = os.path.relpath(path, self.top)
        return safe(path if rel.startswith("..") else rel, 300)


def discover(path):
    """The repository around ``path``, asked of git itself in one ``rev-parse`` (two from inside a
    git dir, where git has no work tree to name)."""
    path = os.path.abspath(path or ".")
    if not os.path.isdir(path):
        raise AgentguardError("%s is not a directory" % safe(path, 300))
    rc, out, err = run(["rev-parse", "--show-toplevel", "--git-dir", "--git-common-dir", "--git-path", "hooks"],
                        path, TIMEOUT)
    lines = out.decode("utf-8", "surrogateescape").split("\n")
    if rc == 0 and len(lines) >= 4 and lines[0]:
        top = os.path.realpath(lines[0])
        git_dir, common_dir, hooks_dir = (os.path.realpath(os.path.join(path, p)) for p in lines[1:4])
        return RepoInfo(top=top, git_dir=git_dir, common_dir=common_dir, hooks_dir=hooks_dir)
    rc, out, _ = run(["rev-parse", "--is-bare-repository", "--is-inside-git-dir", "--absolute-git-dir"], path,
                      TIMEOUT)
    answer = out.decode("utf-8", "surrogateescape").split("\n")
    if rc != 0 or len(answer) < 3:
        raise AgentguardError("%s is not inside a git repository" % safe(path, 300))
    if answer[0] == "true":
        raise AgentguardError(
            "%s is a bare repository: guard the repository a team pushes to with "
            "`agentguard install --server %s`" % (safe(path, 300), safe(path, 300)))
    if answer[1] == "true" and os.path.realpath(answer[2]) != os.path.realpath(os.path.dirname(answer[2])):
        return discover(os.path.dirname(answer[2]))  # inside .git: the work tree around it
    raise AgentguardError("cannot read the repository: %s" % safe(err.decode("utf-8", "replace").strip(), 200))


def remote_head_branches(info):
    """Branches the remotes' HEADs point at (``refs/remotes/<remote>/HEAD``), when known."""
    out = git(["for-each-ref", "--format=%(refname)%00%(symref)", "refs/remotes/"], cwd=info.top)
    found = []
    for line in out.splitlines():
        ref, _, target = line.partition("\0")
        if not ref.endswith("/HEAD") or not target:
            continue
        remote = ref[len("refs/remotes/"):-len("/HEAD")]
        prefix = "refs/remotes/%s/" % remote
        if target.startswith(prefix) and target[len(prefix):] not in found:
            found.append(target[len(prefix):])
    return found


def branch_refs(info):
    """Every local branch and remote-tracking ref, as full names."""
    return git(["for-each-ref", "--format=%(refname)", "refs/heads/", "refs/remotes/"], cwd=info.top).split()


def is_reftable(info):
    """True when the repository keeps its refs in reftable storage (git 2.45+)."""
    return git(["config", "--get", "extensions.refstorage"], cwd=info.top, check=False).strip().lower() == "reftable"
