"""The guard's own files, and whether a path an agent touches is one of them.

One list, used by the command analyser (rm, mv, chmod, redirections, ...) and by
``agentguard check --write`` (the harnesses' file tools). Paths are compared after resolving
``./``, ``..``, the working directory and symlinks, with path semantics: ``docs/.git-tips.md`` is
not ``.git/``, ``/tmp/repo-other`` is not below ``/tmp/repo``.
"""
import os

from .harness import registry
from .globmatch import fnmatchcase
from .layout import HOME

# Relative to the work tree: the committed policy, the harness adapters, and whatever could
# switch an adapter off or outrank it (settings that disable hooks; another extension or plugin
# loaded before ours can approve or rewrite a call), so the plugin folders are guarded whole.
# A ``*`` matches within one path component. Each harness names its own (``harness/<name>.py``).
def worktree_files():
    """``WORKTREE_FILES``: the committed policy and every harness's files."""
    return (".agentguard.toml",) + registry.worktree_files()


def __getattr__(attr):
    if attr == "WORKTREE_FILES":  # every harness imported only when asked for (not on a call's common path)
        globals()[attr] = value = worktree_files()
        return value
    raise AttributeError(attr)


def user_files(environ=None):
    """The harnesses' user-level files that can switch their hooks off or stop trusting ours
    (``disableAllHooks``, per-hook trust, folder trust), where this environment puts them."""
    return registry.user_files(environ)


# Relative to the git common dir: the runtime, the snapshot, refs written by hand, the config
# (core.hooksPath), and the default hooks directory.
COMMON_FILES = (HOME, "hooks", "refs", "packed-refs", "config")


def real(path):
    """``path`` with symlinks resolved as far as it exists, the rest normalised lexically. A ``..``
    after a symlink climbs from the symlink's target, as the OS does (``link/../x``), never lexically."""
    path = os.path.realpath(path) if os.sep + ".." in path else os.path.normpath(path)
    head, tail = path, []
    while head and not os.path.lexists(head):
        head, part = os.path.split(head)
        tail.append(part)
        if not part:
            break
    base = os.path.realpath(head) if head else ""
    return os.path.normpath(os.path.join(base, *reversed(tail))) if tail else base


def inside(path, root):
    """True when ``path`` is ``root`` or below it (both already resolved)."""
    if plain(path) and plain(root):  # what relpath would say, without its normalising (per file, per call)
        return path == root or path.startswith(root + "/") or root == "/"
    rel = os.path.relpath(path, root)
    return rel == "." or not (rel == ".." or rel.startswith(".." + os.sep) or os.path.isabs(rel))


def plain(path):
    """An absolute POSIX path already in normal form (no ``.``, ``..``, doubled or trailing ``/``)."""
    return os.sep == "/" and isinstance(path, str) and path.startswith("/") and "//" not in path and \
        "/./" not in path and "/../" not in path and not path.endswith(("/", "/.", "/..")) or path == "/"


class Guarded:
    """The guarded paths of one repository (at ``where``, a ``layout.Layout``)."""

    def __init__(self, where):
        paths = [os.path.join(where.top, *p.split("/")) for p in worktree_files()] + user_files()
        paths += [os.path.join(where.common_dir, p) for p in COMMON_FILES]
        paths += [where.hooks_dir, os.path.join(where.git_dir, "refs"), os.path.join(where.git_dir, "config.worktree")]
        from .outcome.remotelist import known
        paths += known(where.ag_home)  # the git directories of the remotes reached by a local path
        self.patterns = sorted({_real_pattern(p) for p in paths if "*" in p})
        self.paths = sorted({real(p) for p in paths if "*" not in p})

    def hit(self, path):
        """The guarded path that writing/removing ``path`` would affect, or None.

        Affected means: the same path, a path below a guarded directory, or a directory that
        contains a guarded path (``rm -rf .git``).
        """
        target = real(path)
        for guarded in self.paths:
            if inside(target, guarded) or inside(guarded, target):
                return guarded
        for directory, name in self.patterns:
            if inside(directory, target):
                return os.path.join(directory, name)  # ``rm -rf`` of the folder of a ``dir/name*`` pattern
            first = os.path.relpath(target, directory).split(os.sep)[0]
            if inside(target, directory) and fnmatchcase(first, name):
                return os.path.join(directory, first)
        return None


def _real_pattern(path):
    """(resolved directory, name pattern) of a guarded ``dir/name*`` path."""
    directory, name = os.path.split(path)
    return real(directory), name
