"""What the command analyser reads of a repository (lazily, once per directory)."""
import os

from .. import gitio, layout
from ..guardpaths import Guarded, real
from ..policy import DEFAULT_BRANCHES, Policy, PolicyError, load_policy
from ..repostate import RepoState, fetch_urls

UNKNOWN = object()  # a branch we cannot know (after `git checkout -`, or `cd $DIR`)


class RepoView:
    """The analyser's questions to the repository at ``layout`` (a ``layout.Layout``)."""

    def __init__(self, where):
        self.layout = where
        self.state = RepoState.of(where)
        self._guarded = None
        self._config = None
        self._policy = None
        self._refs = None
        # () -> the policy of the guarded repository the check belongs to (or None), for a repository
        # with no installation of its own (set by the analyser)
        self.guard_policy = None

    @classmethod
    def at(cls, cwd, git_dir=None):
        """The repository containing ``cwd`` (a bare one too), or the one whose git directory is
        ``git_dir`` (``--git-dir``, ``GIT_DIR``); None when there is none."""
        found = layout.at(cwd, git_dir) if os.path.isdir(cwd) else None
        return cls(found) if found is not None else None

    # where it is: the layout's (``view.top`` is ``view.layout.top``)
    top = property(lambda self: self.layout.top)
    git_dir = property(lambda self: self.layout.git_dir)
    common_dir = property(lambda self: self.layout.common_dir)
    hooks_dir = property(lambda self: self.layout.hooks_dir)
    ag_home = property(lambda self: self.layout.ag_home)

    @property
    def guarded(self):
        """The guard's paths here (``guardpaths.Guarded``), resolved when first asked for: a command that
        writes no file (``git commit``) never resolves the ~100 paths of every harness."""
        if self._guarded is None:
            self._guarded = Guarded(self.layout)
        return self._guarded

    @property
    def installed(self):
        """agentguard was installed here (its record exists, whatever state the rest is in)."""
        return os.path.isfile(os.path.join(self.ag_home, "manifest.json"))

    @property
    def policy(self):
        if self._policy is None:
            try:
                self._policy = load_policy(self.ag_home)
            except PolicyError:
                guard = self.guard_policy() if self.guard_policy is not None and not self.installed else None
                self._policy = guard or Policy(DEFAULT_BRANCHES, "default (no snapshot)")
        return self._policy

    def protected(self, branch):
        return branch is UNKNOWN or (branch is not None and self.policy.is_protected(branch))

    def head_branch(self):
        return self.state.head_branch()

    def unborn_repo(self):
        """An empty repository (``repostate.is_empty``): the first commit may create a protected branch."""
        return self.state.is_empty()

    def config(self):
        """{lower-cased key: [values]} of the repository's effective config."""
        if self._config is None:  # (the listing the snapshot reads too: one git per ``check``)
            from ..guardconfig import listing, parse_listing
            config: dict = {}
            for _, _, key, value in parse_listing(listing(self.top)[1], self.top):
                config.setdefault(config_key(key), []).append("" if value is None else value)
            self._config = config
        return self._config

    def get(self, key, default=None):
        values = self.config().get(key)
        return values[-1] if values else default

    def alias(self, name):
        return self.get("alias." + name.lower())

    def refs(self):
        if self._refs is None:
            _, out = gitio.run(["for-each-ref", "--format=%(refname)", "refs/heads/", "refs/remotes/"],
                               cwd=self.top)
            self._refs = set(out.decode("utf-8", "surrogateescape").split())
        return self._refs

    def local_branches(self):
        return {r[len("refs/heads/"):] for r in self.refs() if r.startswith("refs/heads/")}

    def remote_urls(self):
        """{name: the URL `git fetch <name>` reads} of the configured remotes (``repostate.fetch_urls``)."""
        return fetch_urls([(k, v) for k, values in self.config().items() for v in values])

    def remote_names(self):
        return set(self.remote_urls())

    def follows(self, name):
        """True when protected branches follow remote ``name`` now: recorded at install and still
        fetched from the recorded URL (``RepoState.follows``); any configured remote for a snapshot
        from before remotes were recorded."""
        recorded = self.policy.remotes
        if recorded is None:
            return name in self.remote_names()
        return name in recorded and self.remote_urls().get(name) == recorded[name]

    def is_counterpart_name(self, rev, branch):
        """``origin/main``, ``refs/remotes/origin/main``, ``@{u}``: names of a counterpart of ``branch``
        on a remote protected branches follow."""
        if rev in ("@{u}", "@{upstream}", "%s@{u}" % branch, "%s@{upstream}" % branch):
            remote = self.get("branch.%s.remote" % branch)
            return self.get("branch.%s.merge" % branch) == "refs/heads/" + branch and self.follows(remote)
        name = rev[len("refs/remotes/"):] if rev.startswith("refs/remotes/") else rev
        remote, _, rest = name.partition("/")
        return rest == branch and self.follows(remote)

    def rev_on_counterpart(self, rev, branch):
        """True when ``rev`` resolves to a commit already on a counterpart of ``branch``."""
        if self.is_counterpart_name(rev, branch):
            return True
        rc, out = gitio.run(["rev-parse", "-q", "--verify", rev + "^{commit}"], cwd=self.top)
        oid = out.decode("ascii", "replace").strip()
        return rc == 0 and self.state.on_counterpart(oid, branch)


def follows_remote(repo, name):
    """True when ``name`` is a remote protected branches follow by the install's record (whatever its
    URL is now), so changing its URL or fetch configuration changes what they may move to. A
    snapshot from before remotes were recorded: any configured remote."""
    recorded = repo.policy.remotes
    return name in (repo.remote_names() if recorded is None else recorded)


def parse_config_list(out):
    """{lower-cased key: [values]} of ``git config -z --list``'s output."""
    cfg: dict = {}
    for item in out.decode("utf-8", "surrogateescape").split("\0"):
        key, _, value = item.partition("\n")
        if key:
            cfg.setdefault(config_key(key), []).append(value)
    return cfg


def config_key(key):
    """``key`` as the analyser looks it up: section and variable lower-cased, a subsection as given."""
    return key.lower() if key.count(".") < 2 else _lower_outer(key)


def _lower_outer(key):
    section, _, rest = key.partition(".")
    sub, _, var = rest.rpartition(".")
    return "%s.%s.%s" % (section.lower(), sub, var.lower())


def user_config_files(environ=None):
    """The user- and system-level git config files git reads with ``environ`` (default: ours),
    guarded like .git/config."""
    env = os.environ if environ is None else environ
    home = env.get("HOME") or os.path.expanduser("~")
    xdg = env.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    files = [os.path.join(home, ".gitconfig"), os.path.join(xdg, "git", "config"), "/etc/gitconfig"]
    files += [env[name] for name in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM") if env.get(name)]
    return [real(f) for f in files]
