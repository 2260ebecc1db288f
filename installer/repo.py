"""Find the repository to guard and where git really reads its hooks."""
import os
from dataclasses import dataclass

import git as gitpython

from ..hooks.textsafe import safe
from .errors import AgentguardError
from .gitenv import git


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
    path = os.path.abspath(path or ".")
    if not os.path.isdir(path):
        raise AgentguardError("%s is not a directory" % safe(path, 300))
    try:
        repo = gitpython.Repo(path, search_parent_directories=True)
    except (gitpython.InvalidGitRepositoryError, gitpython.NoSuchPathError):
        raise AgentguardError("%s is not inside a git repository" % safe(path, 300))
    except gitpython.GitError as exc:
        raise AgentguardError("cannot read the repository: %s" % safe(str(exc), 200))
    if repo.bare or repo.working_tree_dir is None:
        raise AgentguardError(
            "%s is a bare repository: agentguard guards working repositories; protect branches of a "
            "server-side repository with the server's branch protection" % safe(path, 300))
    top = os.path.realpath(repo.working_tree_dir)
    lines = git(["rev-parse", "--git-dir", "--git-common-dir", "--git-path", "hooks"], cwd=top).split("\n")
    if len(lines) != 3:
        raise AgentguardError("unexpected answer from git rev-parse")
    git_dir, common_dir, hooks_dir = (os.path.realpath(os.path.join(top, p)) for p in lines)
    return RepoInfo(top=top, git_dir=git_dir, common_dir=common_dir, hooks_dir=hooks_dir)


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
