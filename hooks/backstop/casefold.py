"""Ref names on a file system that ignores letter case (macOS, Windows, ext4 ``casefold``).

With the files backend a ref is a file: there ``refs/heads/MAIN`` *is* ``refs/heads/main``'s loose
file, so an update of one moves the other, and every name check is case-sensitive. Such a spelling
of a protected name is refused outright, only where the repository ignores case: git's own
``core.ignorecase`` (which ``git init`` sets after probing the file system; read from the repository's
own config, not a caller's ``-c``) or the file system itself, probed without git. Asked only for a
name that matches a protected one in another letter case, so ordinary updates cost nothing. Reftable
(git 2.45+ ``--ref-format=reftable``) keeps names case-sensitive even there: refusing there too
costs only such a spelling.
"""
import os

from .. import gitio
from .. import rules
from ..textsafe import safe


def ignores_case(state):
    def ask():
        refs = os.path.join(state.common_dir, "refs")
        if folds(refs) or folds(os.path.join(refs, "heads")):
            return True
        rc, out = gitio.run(["config", "--type=bool", "--get", "core.ignorecase"], cwd=state.cwd,
                            env=gitio.without_command_line_config())
        return rc == 0 and out.strip() == b"true"
    return state._memo("ignores-case", ask)


def folds(path):
    """True when the directory ``path`` is on a file system that ignores letter case (its name in
    upper case is the same directory); False when it is not, or cannot be looked at."""
    path = path.rstrip(os.sep) or os.sep
    swapped = os.path.join(os.path.dirname(path), os.path.basename(path).upper())
    if swapped == path:
        return False
    try:
        return os.path.samefile(path, swapped)
    except OSError:
        return False


def remote_ignores_case(url, cwd=None):
    """Whether the remote at ``url`` may take another letter case of a ref name for the name itself:
    a repository on a local path is asked of its file system (its ``refs`` directory); any other
    remote's file system cannot be told from here, so it may (on doubt: a push of `MAIN` is judged as
    `main`; a server guarded by agentguard refuses it there too)."""
    from ..gitmodel.remotes import entered_repo, local_path
    path = local_path(url, cwd) if url else None
    if path is None:
        return True
    repo = entered_repo(path)
    if repo is None:
        return True
    return folds(os.path.join(repo, "refs")) or folds(os.path.join(repo, "refs", "heads"))


def refusal(state, policy, item, call_text):
    """A Refusal when ``item`` names a protected ref in another letter case and the repository ignores
    case, else None."""
    if policy.classify(item.ref) is not None:
        return None
    kind = policy.classify(item.ref, fold=True)
    if kind is None or not ignores_case(state):
        return None
    return rules.Refusal("protected-move", "updating '%s' (%s)" % (safe(item.ref, 120), safe(call_text, 40)),
                         "this repository's file system ignores letter case, so it is the same file as protected "
                         "'%s'" % safe(kind[-1], 80),
                         ["git branch %s   # name branches so that no letter case makes them a protected one"
                      % rules.NEW_BRANCH], [item])
