"""What the analyser hands the git rules."""
from ..repoview import UNKNOWN, RepoView
from ...layout import Layout
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
        return self.repo.ag_home if self.repo is not None else None

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


class NewRepository(RepoView):
    """A repository that the command line itself creates (``git clone``, ``git init``): it does not
    exist while the command is judged, and it has no agentguard installation, so it is judged with
    the policy of the guarded repository the check belongs to (``policy``). What git will write
    into it is known from the command: the branch it checks out (UNKNOWN when the remote decides),
    its remote and the ``--config`` entries; the rest of its config is the user's and the system's."""

    def __init__(self, path, bare, policy, branch, config, cloned, base_config):
        RepoView.__init__(self, Layout.new(path, bare))
        self._policy = policy
        self._branch = branch
        self._local = config  # {lower-cased key: [values]} git writes into the new repository
        self._cloned = cloned  # the remote's branches come along (clone) or there are none (init)
        self._base_config = base_config  # () -> the config git reads outside any repository

    def head_branch(self):
        return self._branch

    def unborn_repo(self):
        return not self._cloned

    def config(self):
        if self._config is None:
            cfg = {k: list(v) for k, v in self._base_config().items()}
            for key, values in self._local.items():
                cfg.setdefault(key, []).extend(values)
            self._config = cfg
        return self._config

    def refs(self):
        if self._refs is None:
            branch = self._branch if isinstance(self._branch, str) and self._cloned else None
            self._refs = {"refs/heads/" + branch} if branch else set()
        return self._refs

    def rev_on_counterpart(self, rev, branch):
        return self.is_counterpart_name(rev, branch)  # nothing can be asked of a repository not made yet

