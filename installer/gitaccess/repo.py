"""Find the repository to guard and where git really reads its hooks."""
import os

from ...hooks import layout
from ...hooks.layout import Layout
from ...hooks.textsafe import safe
from ..errors import AgentguardError
from .gitenv import TIMEOUT, run, clean_env, environment, git, gitpython


def discover(path) -> Layout:
    """The ``Layout`` of the repository around ``path``: found by ``git.Repo`` (search upwards, bare or not, from inside
    a git dir the work tree around it), its paths asked of git itself in one ``rev-parse`` (which
    honours ``core.hooksPath`` and ``safe.directory``)."""
    path = os.path.abspath(path or ".")
    if not os.path.isdir(path):
        raise AgentguardError("%s is not a directory" % safe(path, 300))
    gp = gitpython()
    try:
        with environment(clean_env()):
            repo = gp.Repo(path, search_parent_directories=True, expand_vars=False)
    except gp.NoSuchPathError:
        raise AgentguardError("%s is not a directory" % safe(path, 300))
    except gp.InvalidGitRepositoryError:
        raise AgentguardError("%s is not inside a git repository" % safe(path, 300))
    if repo.bare:
        raise AgentguardError(
            "%s is a bare repository: guard the repository a team pushes to with "
            "`agentguard install --server %s`" % (safe(path, 300), safe(path, 300)))
    git_dir = os.path.realpath(repo.git_dir)
    if os.path.commonpath([git_dir, os.path.realpath(path)]) == git_dir and repo.working_tree_dir:
        path = str(repo.working_tree_dir)  # inside .git: the work tree around it
    rc, out, err = run(layout.REV_PARSE, path, TIMEOUT)
    found = layout.parse(path, rc, out)
    if rc != 0 or found is None or found.bare:
        raise AgentguardError("cannot read the repository: %s" % safe(err.decode("utf-8", "replace").strip(), 200))
    return found


REF_FORMAT = "--format=%(refname)%00%(symref)"


def remote_head_branches(info):
    """Branches the remotes' HEADs point at (``refs/remotes/<remote>/HEAD``), when known."""
    return _remote_heads(git(["for-each-ref", REF_FORMAT, "refs/remotes/"], cwd=info.top))


def heads_and_refs(info):
    """(``remote_head_branches``, ``branch_refs``) from one ``for-each-ref``."""
    out = git(["for-each-ref", REF_FORMAT, "refs/heads/", "refs/remotes/"], cwd=info.top)
    return _remote_heads(out), [line.partition("\0")[0] for line in out.splitlines()]


def _remote_heads(out):
    found = []
    for line in out.splitlines():
        ref, _, target = line.partition("\0")
        if not ref.startswith("refs/remotes/") or not ref.endswith("/HEAD") or not target:
            continue
        remote = ref[len("refs/remotes/"):-len("/HEAD")]
        prefix = "refs/remotes/%s/" % remote
        if target.startswith(prefix) and target[len(prefix):] not in found:
            found.append(target[len(prefix):])
    return found


def is_reftable(info, ask=None):
    """True when the repository keeps its refs in reftable storage (git 2.45+); ``ask(args)``: how to put
    the config question (the doctor's one listing; default: git itself)."""
    args = ["config", "--get", "extensions.refstorage"]
    out = ask(args) if ask is not None else git(args, cwd=info.top, check=False)
    return out.strip().lower() == "reftable"
