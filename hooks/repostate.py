"""What the runtime asks of the repository, each answer read at most once per hook run."""
import os

from . import gitio
from .gitmodel.refnames import is_full_oid as is_oid


class RepoState:
    """Lazy, cached views of a repository, from inside a hook (cwd = the worktree or git dir)."""

    def __init__(self, ag_home=None, cwd=None):
        self.cwd = cwd
        self._cache = {}
        self._ag_home = ag_home

    def _memo(self, key, fn):
        if key not in self._cache:
            self._cache[key] = fn()
        return self._cache[key]

    @property
    def common_dir(self):
        def find():
            if self._ag_home:
                return os.path.dirname(os.path.abspath(self._ag_home))
            path = gitio.out_text(["rev-parse", "--git-common-dir"], cwd=self.cwd)
            return os.path.abspath(os.path.join(self.cwd or os.getcwd(), path))
        return self._memo("common", find)

    @property
    def ag_home(self):
        return self._ag_home or os.path.join(self.common_dir, "agentguard")

    def current(self, ref):
        """The object a ref points at now (before the transaction), or None."""
        def find():
            rc, out = gitio.run(["rev-parse", "-q", "--verify", ref], cwd=self.cwd)
            value = out.decode("ascii", "replace").strip()
            return value if rc == 0 and is_oid(value) else None
        return self._memo(("current", ref), find)

    def head_branch(self):
        """The branch HEAD points at (``main``), or None when detached."""
        def find():
            rc, out = gitio.run(["symbolic-ref", "-q", "HEAD"], cwd=self.cwd)
            ref = out.decode("utf-8", "surrogateescape").strip()
            return ref[len("refs/heads/"):] if rc == 0 and ref.startswith("refs/heads/") else None
        return self._memo("head", find)

    def packed_refs(self):
        """{ref: oid} of the committed ``packed-refs`` file (files backend)."""
        def read():
            refs = {}
            try:
                with open(os.path.join(self.common_dir, "packed-refs"), "rb") as fh:
                    for raw in fh:
                        line = raw.decode("utf-8", "surrogateescape").rstrip("\n")
                        if not line or line[0] in "#^":
                            continue
                        oid, _, ref = line.partition(" ")
                        refs[ref] = oid
            except OSError:
                pass
            return refs
        return self._memo("packed", read)

    def packed_refs_locked(self):
        return os.path.exists(os.path.join(self.common_dir, "packed-refs.lock"))

    def remote_tracking(self):
        """[(ref, oid)] of every ref under refs/remotes/."""
        def read():
            _, out = gitio.run(["for-each-ref", "--format=%(objectname) %(refname)", "refs/remotes/"],
                               cwd=self.cwd)
            pairs = []
            for line in out.decode("utf-8", "surrogateescape").splitlines():
                oid, _, ref = line.partition(" ")
                if is_oid(oid):
                    pairs.append((ref, oid))
            return pairs
        return self._memo("remotes-refs", read)

    def has_branches(self):
        def read():
            _, out = gitio.run(["for-each-ref", "--count=1", "--format=x", "refs/heads/"], cwd=self.cwd)
            return bool(out.strip())
        return self._memo("has-branches", read)

    def remotes(self):
        """{name: url} of the configured remotes."""
        def read():
            _, out = gitio.run(["config", "-z", "--get-regexp", r"^remote\..*\.url$"], cwd=self.cwd)
            found = {}
            for item in out.decode("utf-8", "surrogateescape").split("\0"):
                key, _, url = item.partition("\n")
                if key.startswith("remote.") and key.endswith(".url"):
                    found[key[len("remote."):-len(".url")]] = url
            return found
        return self._memo("remotes", read)

    def remote_advertises(self, remote, ref):
        """The object ``remote`` (a configured remote's name) advertises for ``ref`` now, or None.

        Asked with the repository's own configuration (not the caller's ``-c`` overrides, which
        could point the name elsewhere), no terminal prompt, and the runtime's time limit."""
        def ask():
            env = gitio.without_command_line_config()
            env["GIT_TERMINAL_PROMPT"] = "0"
            try:
                rc, out = gitio.run(["ls-remote", "--", remote, ref], cwd=self.cwd, env=env)
            except gitio.GitError:
                return None
            for line in out.decode("utf-8", "surrogateescape").splitlines():
                oid, _, name = line.partition("\t")
                if rc == 0 and name == ref and is_oid(oid):
                    return oid
            return None
        return self._memo(("advertises", remote, ref), ask)

    def config_bool(self, key):
        rc, out = gitio.run(["config", "--type=bool", "--get", key], cwd=self.cwd)
        return rc == 0 and out.strip() == b"true"

    def on_counterpart(self, oid, branch, extra=()):
        """True when ``oid`` is already on a remote-tracking ``refs/remotes/<any>/<branch>``."""
        targets = [o for ref, o in self.remote_tracking() if _tracks(ref, branch)] + list(extra)
        return any(self.is_ancestor(oid, t) for t in targets)

    def is_ancestor(self, commit, of):
        if commit == of:
            return True
        rc, _ = gitio.run(["merge-base", "--is-ancestor", commit, of], cwd=self.cwd)
        return rc == 0


def _tracks(ref, branch):
    prefix = "refs/remotes/"
    return ref.startswith(prefix) and ref.endswith("/" + branch) and len(ref) > len(prefix) + len(branch) + 1
