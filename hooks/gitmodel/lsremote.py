"""Which ref of a remote a fetch source names, asked of the remote itself.

git resolves a fetch source such as ``main`` against the remote's advertisement with its rev-parse
rules (``refnames.best_match``): a tag ``main`` there is picked before the branch ``main``. Only the
remote can say what it has, so this asks it (``git ls-remote``) on the rare path where a short name
is fetched into a protected ref; ``refs/heads/<branch>`` written out needs no question.
"""
from .. import gitio
from . import refnames


def advertised(cwd, remote, names):
    """[full ref names] ``remote`` (a configured remote's name, a URL or a path) advertises whose
    names end in one of ``names`` (``git ls-remote`` matches the tail), or None when it cannot be
    asked. Asked with the repository's own configuration (not the caller's ``-c``, which could send
    the question elsewhere), no terminal prompt, the runtime's time limit."""
    env = gitio.without_command_line_config()
    env["GIT_TERMINAL_PROMPT"] = "0"
    try:
        rc, out = gitio.run(["ls-remote", "--", remote] + list(names), cwd=cwd, env=env)
    except gitio.GitError:
        return None
    if rc != 0:
        return None
    refs = []
    for line in out.decode("utf-8", "surrogateescape").splitlines():
        oid, _, ref = line.partition("\t")
        if refnames.is_full_oid(oid) and ref:
            refs.append(ref[:-3] if ref.endswith("^{}") else ref)
    return refs


def source_is_branch(state, remote, src, branch):
    """True when a fetch of ``src`` from ``remote`` reads the remote's ``refs/heads/<branch>``:
    written out, or a short name that the remote resolves to nothing before that branch. False on
    doubt (another ref first, or a remote that cannot be asked). ``state``: the RepoState whose
    directory git runs in and whose cache keeps the answer for this run."""
    if refnames.is_branch(src, branch):
        return True
    if not refnames.names_branch(src, branch) or not remote:
        return False

    def ask():
        refs = advertised(state.cwd, remote, [src])
        return None if refs is None else refnames.best_match(src, refs)
    return refnames.is_branch(state._memo(("lsremote", remote, src), ask) or "", branch)
