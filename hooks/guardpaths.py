"""The guard's own files, and whether a path an agent touches is one of them.

One list, used by the command analyser (rm, mv, chmod, redirections, ...) and by
``agentguard check --write`` (the harnesses' file tools). Paths are compared after resolving
``./``, ``..``, the working directory and symlinks, with path semantics: ``docs/.git-tips.md`` is
not ``.git/``, ``/tmp/repo-other`` is not below ``/tmp/repo``.
"""
import os

# Relative to the work tree: the committed policy, the harness adapters, and whatever could
# switch an adapter off or outrank it (pi's settings; another extension or plugin loaded before
# ours can approve or rewrite a call), so the plugin folders are guarded whole.
WORKTREE_FILES = (
    ".agentguard.toml",
    "gptme.toml",
    "gptme.local.toml",
    os.path.join(".pi", "extensions"),
    os.path.join(".pi", "settings.json"),
    os.path.join(".hermes", "plugins"),
    os.path.join(".gptme", "plugins"),
    os.path.join(".gptme", "verify-completion.sh"),
)
# Relative to the git common dir: the runtime, the snapshot, refs written by hand, the config
# (core.hooksPath), and the default hooks directory.
COMMON_FILES = ("agentguard", "hooks", "refs", "packed-refs", "config")


def real(path):
    """``path`` with symlinks resolved as far as it exists, the rest normalised lexically."""
    path = os.path.normpath(path)
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
    rel = os.path.relpath(path, root)
    return rel == "." or not (rel == ".." or rel.startswith(".." + os.sep) or os.path.isabs(rel))


class Guarded:
    """The guarded paths of one repository."""

    def __init__(self, top, git_dir, common_dir, hooks_dir):
        paths = [os.path.join(top, p) for p in WORKTREE_FILES]
        paths += [os.path.join(common_dir, p) for p in COMMON_FILES]
        paths += [hooks_dir, os.path.join(git_dir, "refs"), os.path.join(git_dir, "config.worktree")]
        self.paths = sorted({real(p) for p in paths})

    def hit(self, path):
        """The guarded path that writing/removing ``path`` would affect, or None.

        Affected means: the same path, a path below a guarded directory, or a directory that
        contains a guarded path (``rm -rf .git``).
        """
        target = real(path)
        for guarded in self.paths:
            if inside(target, guarded) or inside(guarded, target):
                return guarded
        return None
