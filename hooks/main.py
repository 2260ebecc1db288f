"""Entry point of the runtime: ``run.py <hook> <git-pid> [hook args...]``.

The hook scripts call this only when their POSIX-sh fast path could not decide. Whatever goes
wrong in here (a bad policy file, git not answering, a bug) ends in a refusal with a message, never a
traceback and never a silent pass: the scripts only come here when a protected ref may be at
stake.
"""
import sys

from . import audit
from . import rules
from .backstop import HOOKS, branchhooks, prepush, reftx
from .gitmodel import cli, procargv
from .policy import TEMPLATE_MARK, PolicyError, load_policy
from .repostate import RepoState
from . import gitio, layout
from .gitio import GitError

MAX_STDIN = 64 * 1024 * 1024


def unclaimed_bare(state):
    """A bare repository (a mirror, a server) that git made from agentguard's template and nobody
    installed agentguard into: the client backstop has no branch to guard there (install refuses
    bare repositories; a server is guarded with ``install --server``). Costs nothing elsewhere.

    Bare by what its own config says (not the caller's ``git -c core.bare=true``), and with nothing a
    work tree leaves in its git dir: an index, HEAD's reflog (a clone, a commit). A work tree's
    separate git dir (``clone --separate-git-dir``) is guarded like ``.git``; on doubt, guard."""
    import os
    home = state.ag_home
    if not os.path.isfile(os.path.join(home, TEMPLATE_MARK)) or os.path.lexists(os.path.join(home, "manifest.json")):
        return False
    git_dir = state.common_dir
    if os.path.basename(git_dir) == ".git":
        return False  # a work tree's git dir, whatever core.bare says: `git config core.bare true` is no way out
    if any(os.path.lexists(os.path.join(git_dir, rel)) for rel in ("index", os.path.join("logs", "HEAD"))):
        return False
    try:
        where = layout.at(os.getcwd(), env=gitio.without_command_line_config())
    except OSError:  # a working directory that is gone: git cannot answer there either
        return False
    return where is not None and where.bare


def _read_stdin():
    stream = getattr(sys.stdin, "buffer", None)
    return b"" if stream is None else gitio.read_bounded(stream, MAX_STDIN)


def hook_refusal(hook, args, state, policy, call, data, caller=None, argv=None):
    """The Refusal for one hook invocation, or None when it may go on (shared by the runtime copy and the package);
    ``caller`` is the pid of the git process that runs the hook, ``argv`` its command line."""
    if hook == "reference-transaction":
        return reftx.transaction_refusal(state, policy, data, call, args[0] if args else "", caller, argv)
    if hook == "pre-push":
        return prepush.push_refusal(state, policy, data, call, args[0] if args else None,
                                    args[1] if len(args) > 1 else None, argv)
    if hook in ("pre-commit", "pre-merge-commit"):
        return branchhooks.decide_commit(state, policy, hook)
    if hook == "pre-rebase":
        return branchhooks.decide_rebase(state, policy, args)
    return None


def run_hook(argv, ag_home, stderr=None, stdin_data=None, policy=None):
    """Run one hook. ``argv`` = [hook, git-pid, *hook-args]. Returns the exit status. (``run.py check``
    never comes here: the launcher starts the decision command itself.)"""
    stderr = stderr or sys.stderr
    hook = argv[0] if argv else ""
    state = RepoState(ag_home)
    call = raw_argv = None
    try:
        if hook not in HOOKS:
            raise ValueError("unknown hook")
        if unclaimed_bare(state):
            return 0
        pid = argv[1] if len(argv) > 1 else ""
        state.caller = int(pid) if pid.isdigit() else None
        args = argv[2:]
        raw_argv = procargv.read_process_argv(pid) if pid.isdigit() else None
        call = cli.parse(raw_argv, state.ag_home) if raw_argv else None
        if stdin_data is not None:
            data = stdin_data
        else:
            data = _read_stdin() if hook in ("reference-transaction", "pre-push") else b""
        if policy is None:
            policy = load_policy(state.ag_home)
        refusal = hook_refusal(hook, args, state, policy, call, data, int(pid) if pid.isdigit() else None, raw_argv)
    except (PolicyError, GitError, ValueError, OSError, RecursionError, MemoryError) as exc:
        refusal = rules.guard_broken(str(exc))
    except Exception as exc:  # a bug must still fail closed, and must not print a traceback
        refusal = rules.guard_broken("internal error (%s)" % type(exc).__name__)
    if refusal is None:
        return 0
    try:
        home = state.ag_home
    except Exception:
        home = None
    return audit.refuse(stderr, home, hook, refusal, raw_argv)

