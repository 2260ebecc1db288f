"""What the runtime asks of the repository, each answer read at most once per hook run."""
import os

from . import gitio, layout
from .gitmodel.refnames import is_full_oid as is_oid
from .policy import PolicyError, load_policy
from .saferead import read_regular

MAX_PACKED_REFS = 1 << 30

# The config that says where `git fetch <remote>` reads and what it writes, asked in one call.
REMOTE_KEYS = r"^(remote\..+\.(url|fetch|uploadpack|vcs)|url\..+\.insteadof)$"
# what else makes `git fetch <remote>` read elsewhere at the same URL (the last value counts)
TRANSPORT_KEYS = ("uploadpack", "vcs")


class RepoState:
    """Lazy, cached views of a repository, from inside a hook (cwd = the worktree or git dir)."""

    def __init__(self, ag_home, cwd=None, caller=None):
        self.cwd = cwd
        self.caller = caller  # the pid of the git process that runs the hook, when known
        self._cache = {}
        self.ag_home = ag_home  # a hook knows the repository by its runtime's home (no git process)
        self.common_dir = layout.common_dir_of(ag_home)

    @classmethod
    def of(cls, where):
        """The state of the repository at ``where`` (a ``layout.Layout``), git run in its work tree."""
        return cls(where.ag_home, cwd=where.top)

    def _memo(self, key, fn):
        if key not in self._cache:
            self._cache[key] = fn()
        return self._cache[key]

    def current(self, ref):
        """The object a ref points at now (before the transaction), or None when there is no such
        ref. A git that fails otherwise raises GitError: never taken for a missing ref."""
        def find():
            rc, out = gitio.run(["rev-parse", "-q", "--verify", ref], cwd=self.cwd)
            value = out.decode("ascii", "replace").strip()
            if rc == 0 and is_oid(value):
                return value
            if rc == 1 and not value:
                return None
            raise gitio.GitError("git cannot read %s" % ref[:200])
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
            data = read_regular(os.path.join(self.common_dir, "packed-refs"), MAX_PACKED_REFS) or b""
            for line in data.decode("utf-8", "surrogateescape").splitlines():
                if not line or line[0] in "#^":
                    continue
                oid, _, ref = line.partition(" ")
                refs[ref] = oid
            return refs
        return self._memo("packed", read)

    def packed_refs_locked(self):
        return os.path.exists(os.path.join(self.common_dir, "packed-refs.lock"))

    def remote_tracking(self):
        """[(ref, oid)] of every plain ref under refs/remotes/ (a symbolic ref, such as
        ``refs/remotes/origin/HEAD``, only points at another ref: it is never a counterpart)."""
        def read():
            _, out = gitio.run(["for-each-ref", "--format=%(objectname) %(refname) %(symref)", "refs/remotes/"],
                               cwd=self.cwd)
            pairs = []
            for line in out.decode("utf-8", "surrogateescape").splitlines():
                oid, ref, symref = (line.split(" ", 2) + ["", ""])[:3]
                if is_oid(oid) and not symref:
                    pairs.append((ref, oid))
            return pairs
        return self._memo("remotes-refs", read)

    def has_branches(self):
        """True when any local branch exists; raises GitError when git cannot list them (a failing
        git is never "no branches")."""
        def read():
            rc, out = gitio.run(["for-each-ref", "--count=1", "--format=x", "refs/heads/"], cwd=self.cwd)
            if rc != 0:
                raise gitio.GitError("git cannot read this repository's branches")
            return bool(out.strip())
        return self._memo("has-branches", read)

    def is_empty(self):
        """True for a repository with nothing in it yet (``is_empty``): its first commit may create a
        protected branch."""
        return self._memo("empty", lambda: is_empty(self.common_dir, self.cwd))

    def _remote_config(self, own):
        """[(key, value)] of REMOTE_KEYS in git's order. ``own``: the repository's own config, without
        the caller's ``-c``/``GIT_CONFIG_COUNT`` overrides (one read when there are none)."""
        env = gitio.without_command_line_config()
        own = own and len(env) != len(os.environ)

        def read():
            _, out = gitio.run(["config", "-z", "--get-regexp", REMOTE_KEYS], cwd=self.cwd,
                               env=env if own else None)
            return config_pairs(out.decode("utf-8", "surrogateescape"))
        return self._memo(("remote-config", own), read)

    def remotes(self):
        """{name: the URL `git fetch <name>` reads} of the configured remotes, as this git process
        sees them (``-c`` included)."""
        return self._memo(("fetch-urls", False), lambda: fetch_urls(self._remote_config(False)))

    def fetch_refspecs(self):
        """{name: [configured fetch refspecs]} of the remotes (``-c`` included)."""
        found: dict = {}
        for key, value in self._remote_config(False):
            if key.startswith("remote.") and key.endswith(".fetch"):
                found.setdefault(key[len("remote."):-len(".fetch")], []).append(value)
        return found

    def fetch_url(self, name, own=True):
        """The URL `git fetch <name>` reads from (``own``: by the repository's own config), or None."""
        if not own:
            return self.remotes().get(name)
        return self._memo(("fetch-urls", True), lambda: fetch_urls(self._remote_config(True))).get(name)

    def recorded_remotes(self):
        """{name: fetch URL} the policy recorded at install, or None (no policy file, or one
        from before remotes were recorded: then every remote counts, as it used to)."""
        def read():
            try:
                return load_policy(self.ag_home).remotes
            except PolicyError:
                return None
        return self._memo("recorded-remotes", read)

    def follows(self, name):
        """True when protected branches follow remote ``name``: it was recorded at install and the
        repository's own config still fetches it from the recorded URL."""
        recorded = self.recorded_remotes()
        if recorded is None:
            return True
        return name in recorded and self.fetch_url(name) == recorded[name]

    def fetches_recorded(self, name):
        """``follows(name)``, and a fetch run now (``-c`` and ``GIT_CONFIG_*`` included) reads the
        recorded URL too, with git's own programs: what a fetch into a followed remote's tracking refs
        must satisfy."""
        recorded = self.recorded_remotes()
        return self.follows(name) and (recorded is None or self.fetch_url(name, own=False) == recorded[name]) \
            and not self.programs_swapped()

    def programs_swapped(self):
        """The caller's git runs its transport programs (``git-upload-pack`` for a local remote, the
        remote helpers) from a ``GIT_EXEC_PATH`` that is not the exec path of the git install recorded:
        what such a fetch brings is not what the remote holds. Costs a git start only when the
        variable is not the one install recorded (an upgraded git's is asked)."""
        def ask():
            given = os.environ.get(gitio.EXEC_PATH_ENV)
            if given is None or given == os.environ.get(gitio.OWN_EXEC_PATH_ENV):
                return False  # git's own (it sets the variable for its hooks): no process
            # an upgraded git, or another git than the recorded one running this hook (an IDE's):
            # each has its own, which it says when the variable is not set
            from .gitmodel.procargv import executable
            running = executable(self.caller) if self.caller else None
            for git in [None] + ([running] if running and os.path.isabs(running) else []):
                try:
                    rc, out = gitio.run(["--exec-path"], git=git)
                except gitio.GitError:
                    continue
                own = out.decode("utf-8", "surrogateescape").strip()
                if rc == 0 and own and os.path.realpath(given) == os.path.realpath(own):
                    return False
            return True
        return self._memo("programs-swapped", ask)

    def remote_heads(self, remote, branches):
        """{branch: oid} that ``remote`` (a configured remote's name) advertises now for each of
        ``branches``, or None when it cannot be asked. Asked with the repository's own configuration
        (not the caller's ``-c`` overrides, which could point the name elsewhere), no terminal prompt,
        and the runtime's time limit."""
        def ask():
            env = gitio.without_command_line_config()
            env["GIT_TERMINAL_PROMPT"] = "0"
            refs = ["refs/heads/" + b for b in branches]
            try:
                rc, out = gitio.run(["ls-remote", "--", remote] + refs, cwd=self.cwd, env=env)
            except gitio.GitError:
                return None
            if rc != 0:
                return None
            found = {}
            for line in out.decode("utf-8", "surrogateescape").splitlines():
                oid, _, ref = line.partition("\t")
                if ref in refs and is_oid(oid):
                    found[ref[len("refs/heads/"):]] = oid
            return found
        return self._memo(("heads", remote, tuple(branches)), ask)

    def remote_advertises(self, remote, branch):
        """The object ``remote`` advertises for its branch ``branch`` now, or None (``remote_heads``)."""
        return (self.remote_heads(remote, [branch]) or {}).get(branch)

    def config_bool(self, key):
        rc, out = gitio.run(["config", "--type=bool", "--get", key], cwd=self.cwd)
        return rc == 0 and out.strip() == b"true"

    def on_counterpart(self, oid, branch, extra=()):
        """True when ``oid`` is already on ``refs/remotes/<remote>/<branch>`` of a remote protected
        branches follow (``follows``), or on one of ``extra``."""
        targets = []
        for ref, tip in self.remote_tracking():
            remote = _tracks(ref, branch)
            if remote is not None and self.follows(remote):
                targets.append(tip)
        return any(self.is_ancestor(oid, t) for t in targets + list(extra))

    def is_ancestor(self, commit, of):
        if commit == of:
            return True
        rc, _ = gitio.run(["merge-base", "--is-ancestor", commit, of], cwd=self.cwd)
        return rc == 0


def is_empty(common_dir, cwd=None, env=None):
    """True when the repository whose common git dir is ``common_dir`` holds nothing that history
    came from (docs/policy.md, "Empty repositories"): no ref of any kind, loose or packed (branches,
    tags, remote-tracking refs, notes, the stash), no pack in its object store, no HEAD reflog and no
    ``shallow`` file. What a clone or any past commit leaves behind is one of these, and the refs an
    agent can delete with git are not all of them. Raises GitError when git cannot list the refs."""
    rc, out = gitio.run(["for-each-ref", "--count=1", "--format=x"], cwd=cwd, env=env)
    if rc != 0:
        raise gitio.GitError("git cannot read this repository's refs")
    if out.strip():
        return False
    for rel in ("shallow", os.path.join("logs", "HEAD")):
        try:
            if os.path.getsize(os.path.join(common_dir, rel)) > 0:
                return False
        except OSError:
            pass
    try:
        packs = os.listdir(os.path.join(common_dir, "objects", "pack"))
    except OSError:
        packs = []
    return not any(name.endswith(".pack") for name in packs)


def _tracks(ref, branch):
    """The remote whose tracking ref of ``branch`` ``ref`` is (``refs/remotes/<remote>/<branch>``), or None."""
    prefix = "refs/remotes/"
    if ref.startswith(prefix) and ref.endswith("/" + branch) and len(ref) > len(prefix) + len(branch) + 1:
        return ref[len(prefix):-len(branch) - 1]
    return None


def config_pairs(text):
    """[(key, value)] of `git config -z --get-regexp` output."""
    return [tuple(item.partition("\n")[::2]) for item in text.split("\0") if item]


def _remote_urls(pairs):
    """{name: [its remote.<name>.url values]}; an empty value clears the list, as git 2.46+ reads it."""
    urls: dict = {}
    for key, value in pairs:
        low = key.lower()
        if low.startswith("remote.") and low.endswith(".url"):
            name = key[len("remote."):-len(".url")]
            urls[name] = urls.get(name, []) + [value] if value else []
    return urls


def fetch_urls(pairs):
    """{remote name: where `git fetch <name>` reads} from config ``pairs`` [(key, value)] in git's
    order: the first ``remote.<name>.url``, rewritten by the longest matching ``url.<base>.insteadOf``,
    followed by `` (uploadpack: <program>)`` / `` (vcs: <helper>)`` when the remote configures one."""
    rewrites = [(value, key[len("url."):-len(".insteadof")]) for key, value in pairs
                if key.lower().startswith("url.") and key.lower().endswith(".insteadof") and value]
    transport: dict = {}
    for key, value in pairs:
        section, _, rest = key.partition(".")
        name, _, var = rest.rpartition(".")
        if section.lower() == "remote" and var.lower() in TRANSPORT_KEYS:
            transport.setdefault(name, {})[var.lower()] = value
    found = {}
    for name, urls in _remote_urls(pairs).items():
        if urls:
            url = urls[0]
            prefix, base = max(((p, b) for p, b in rewrites if url.startswith(p)), key=lambda r: len(r[0]),
                               default=("", ""))
            found[name] = base + url[len(prefix):] + "".join(
                " (%s: %s)" % (k, v) for k, v in sorted(transport.get(name, {}).items()) if v)
    return found
