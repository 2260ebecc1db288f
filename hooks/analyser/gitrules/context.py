"""What the analyser hands the git rules."""
import os

from ..repoview import UNKNOWN
from ...rules import Block


class GitContext:
    """The view of the repository at ``cwd`` and the state a command line builds up (branch
    switches, aliases it defines)."""

    def __init__(self, analyser, state, repo):
        self.analyser = analyser
        self.state = state
        self.repo = repo

    @property
    def ag_home(self):
        return os.path.join(self.repo.common_dir, "agentguard") if self.repo is not None else None

    @property
    def branch(self):
        return self.state.branch_of(self.repo)

    def set_branch(self, name):
        self.state.set_branch(self.repo, name)

    def branch_or_block(self, what):
        branch = self.branch
        if branch is UNKNOWN:
            raise Block("unanalysable", "which branch %s runs on is not known" % what)
        return branch

    def sync_only(self, branch, revs):
        """Every rev in ``revs`` names the remote counterpart of ``branch`` (or FETCH_HEAD)."""
        return all(self.repo.is_counterpart_name(r, branch) or r == "FETCH_HEAD" for r in revs)


class NewWorktree:
    """A linked worktree that the command line itself creates (``git worktree add <path> <branch>``):
    the same repository as ``repo`` seen from ``path``, with that branch checked out."""

    def __init__(self, repo, path, branch):
        self._repo = repo
        self.top = path
        self._branch = branch

    def head_branch(self):
        return self._branch

    def __getattr__(self, name):
        return getattr(self._repo, name)
