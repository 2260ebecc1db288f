"""The analyser's repository lookup: which repository git works on in a directory (or with
``--git-dir``/``GIT_DIR``), the repositories the command line itself creates, the config git reads
outside any repository, and the policy of the guarded repository the check belongs to."""
import os

from ..guardpaths import real

# ``gitrules`` and ``repoview`` (git's model, the repository state) load when a command needs them

_UNSET = object()


class RepositoryLookup:
    """The repositories one analysis sees, each looked up once. ``launcher_home``: the agentguard
    installation whose decision command runs this analysis (see ``Analyser``)."""

    start: object  # the directory the command starts in (the Analyser sets it)

    def __init__(self, launcher_home=None):
        self._views = {}
        self._made = {}  # path -> view of a repository the command line creates (worktree, clone, init)
        self._user_configs = None
        self._base_config = None
        self._guard = _UNSET
        self.launcher_home = launcher_home

    def user_configs(self):
        """``user_config_files()`` of this process's environment, resolved once per analysis."""
        if self._user_configs is None:
            from .repoview import user_config_files
            self._user_configs = user_config_files()
        return self._user_configs

    def base_config(self):
        """{key: [values]} of the config git reads outside any repository (system and user)."""
        if self._base_config is None:
            from .. import gitio
            from .repoview import parse_config_list
            env = dict(os.environ, GIT_DIR=os.path.join(os.sep, "nonexistent", "agentguard-no-repository"))
            _, out = gitio.run(["config", "-z", "--list"], cwd=os.sep, env=env)
            self._base_config = parse_config_list(out)
        return self._base_config

    def guard_policy(self):
        """The policy of the guarded repository this check belongs to: the one the command starts
        in, or, when that has no installation (a harness whose shell moved elsewhere), the one whose
        decision command runs; None when neither has a recorded policy."""
        if self._guard is _UNSET:
            from ..policy import PolicyError, load_policy
            self._guard = None
            start = self.repo_at(self.start) if self.start else None
            homes = [start.ag_home] if start is not None else []
            for home in homes + ([self.launcher_home] if self.launcher_home else []):
                try:
                    self._guard = load_policy(home)
                    break
                except PolicyError:
                    continue
        return self._guard

    def local_remote(self, view):
        """True when ``view`` is a remote the guarded repository reaches by a local path (as its last
        snapshot found them: ``outcome.localremotes.known``)."""
        from ..outcome.remotelist import known
        start = self.repo_at(self.start) if self.start else None
        return start is not None and start is not view and real(view.common_dir) in known(start.ag_home)

    def add_repository(self, path, view):
        """A repository the command line creates at ``path`` (``git worktree add``, ``git clone``,
        ``git init``): commands that later run there are judged on ``view``."""
        self._made[real(path)] = view

    def repo_at(self, cwd, git_dir=None):
        """The repository git works on in ``cwd`` (with ``git_dir``: ``--git-dir``/``GIT_DIR``)."""
        if cwd is None:
            return None
        cwd = os.path.realpath(cwd)
        if git_dir is not None:
            return self._repo_of_git_dir(real(os.path.join(cwd, git_dir)))
        for path, view in self._made.items():
            if cwd == path or cwd.startswith(path + os.sep):
                return view
        if cwd not in self._views:
            parts = cwd.split(os.sep)
            if ".git" in parts:  # inside a git dir: the repository is the one around it
                cwd = os.sep.join(parts[:len(parts) - parts[::-1].index(".git") - 1]) or os.sep
            probe = cwd
            while probe and not os.path.isdir(probe):
                probe = os.path.dirname(probe)
            from .repoview import RepoView
            self._views[cwd] = self._adopt(RepoView.at(probe) if probe else None)
        return self._views[cwd]

    def _repo_of_git_dir(self, path):
        from . import gitrules
        from .repoview import RepoView
        for view in self._made.values():
            if isinstance(view, gitrules.context.NewRepository) and path == view.git_dir:
                return view
        key = ("git-dir", path)
        if key not in self._views:
            probe = os.path.dirname(path) if os.path.basename(path) == ".git" else path
            view = self._adopt(RepoView.at(probe)) if os.path.isdir(probe) else None
            self._views[key] = view if view is not None and view.git_dir == path else None
        return self._views[key]

    def _adopt(self, view):
        if view is not None:
            view.guard_policy = self.guard_policy
        return view

    def context_at(self, state, cwd, git_dir=None):
        sub = state.copy()
        sub.branches = state.branches  # branch switches made with -C still count
        sub.aliases = state.aliases
        sub.cwd = cwd
        sub.scoped = state.scoped
        from . import gitrules
        return gitrules.GitContext(self, sub, self.repo_at(cwd, git_dir))
