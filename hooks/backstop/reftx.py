"""reference-transaction: the backstop every ref update passes through.

Only the ``prepared`` state can still abort a transaction, so that is where we decide;
``committed``/``aborted``/``preparing`` pass. Any other (future) state is decided like
``prepared``: refusing there costs nothing if git ignores it, and fails closed if it does not.
"""
import os

from .. import rules
from . import casefold, fastforward, heldrefs
from .reflines import Malformed, is_oid, is_symref_value, is_zero, parse_reftx
from ..gitmodel import lsremote, refnames, remotes
from ..textsafe import safe

PASS_STATES = ("committed", "aborted", "preparing")
REMOTE_WRITERS = ("fetch", "pull", "push", "clone", "remote")
_BRANCH_RENAME = ("-m", "-M", "--move", "-c", "-C", "--copy")


def transaction_refusal(state, policy, data, call, hook_state="prepared", caller=None, argv=None):
    """Return a Refusal, or None when every update in the transaction may proceed.

    ``caller`` is the pid of the git process; when its argv is unknown (``call`` None), branch
    deletions are held (``heldrefs``) and put back if a later transaction of it is refused."""
    if hook_state in PASS_STATES:
        return None
    items = parse_reftx(data)
    refusal = _decide(state, policy, items, call, argv)
    if refusal is not None:
        fastforward.undo(state, refusal, call)
    if call is not None or not caller:
        return refusal
    if refusal is None:
        heldrefs.hold(state.ag_home, caller, [(i.ref, i.old) for i in items if not isinstance(i, Malformed)
                                              and i.ref.startswith("refs/heads/") and is_zero(i.new)
                                              and is_oid(i.old) and not is_zero(i.old)])
        return None
    kept = heldrefs.restore(state.ag_home, caller, state.cwd)
    if kept:
        refusal.why += "; put back what this command had deleted before: %s" % ", ".join(
            safe(r[len("refs/heads/"):], 80) for r in kept)
    return refusal


def _decide(state, policy, items, call, argv=None):
    pending: dict = {}  # remote-tracking updates that this same transaction makes legitimately
    for item in items:
        if isinstance(item, Malformed):
            if any(policy.classify(w) or w.startswith("refs/heads/") for w in item.words):
                return rules.Refusal("unreadable-input", "a ref update agentguard cannot read",
                                     "the line %r is not '<old> <new> <ref>'; refusing on doubt" % safe(item.text, 120),
                                     ["agentguard doctor        # check the installation and your git version"])
            continue
        refusal = casefold.refusal(state, policy, item, _cmd(call))
        if refusal:
            return refusal
        kind = policy.classify(item.ref)
        if kind and kind[0] == "remote":
            refusal = _remote_tracking(state, item, kind, call)
            if refusal:
                return refusal
            if is_oid(item.new) and not is_zero(item.new) and state.follows(kind[1]):
                pending.setdefault(kind[2], []).append(item.new)
    moves = []  # (refusal, branch, item): moves a person's break-glass grant may let through
    for item in items:
        if isinstance(item, Malformed):
            continue
        kind = policy.classify(item.ref)
        if kind and kind[0] == "local":
            refusal = _local(state, item, kind[1], call, pending)
            if refusal is not None and refusal.rule == "protected-move":
                moves.append((refusal, kind[1], item))
                continue
        elif kind is None and item.ref.startswith("refs/heads/") and is_zero(item.new):
            refusal = _rename_source(policy, item, call)
        else:
            refusal = None
        if refusal:
            return refusal
    if moves:
        from .. import grant  # only where a refusal is at stake: a rebase's hundreds of runs never load it
        if not grant.consume(state.ag_home, [(b, i.ref, i.old, i.new) for _, b, i in moves], grant.MOVE_HOOK, argv):
            return moves[0][0]
    return None


def _cmd(call):
    """How a message names the command: ``git commit``; ``git`` when its argv is unknown."""
    return "git " + call.cmd if call is not None and call.cmd else "git"


UNKNOWN_STEP = "git status   # says which operation is in progress and how to abort it"


def _local(state, item, branch, call, pending):
    b = safe(branch, 80)
    if is_symref_value(item.new) or not is_oid(item.new):
        return rules.Refusal("protected-symref", "changing protected branch '%s' into %s" % (b, safe(item.new, 80)),
                             "a protected branch must stay a plain branch", rules.branch_work_steps(), [item])
    if is_zero(item.new):
        # A deletion is harmless only when the ref keeps resolving to the same commit: the
        # prune step of `git pack-refs`/`git gc` removes a loose ref that is already packed
        # (and, unlike a real deletion, does not hold packed-refs.lock).
        packed = state.packed_refs().get(item.ref)
        if not is_zero(item.old) and packed == item.old and not state.packed_refs_locked():
            return None
        return rules.Refusal("protected-delete", "deleting protected branch '%s' (%s)" % (b, safe(_cmd(call), 40)),
                             "protected branches are changed on the server, through pull requests",
                             ["git branch %s %s   # to rename: copy it to a new name instead"
                          % (rules.NEW_BRANCH, b)], [item])
    current = state.current(item.ref)
    if item.new == current:
        return None  # not a move: reset, stash, pull on an up-to-date branch
    if state.on_counterpart(item.new, branch, pending.get(branch, ())):
        return None
    if current is None and state.is_empty():
        return None  # the first commit of an empty repository (see docs/policy.md: "Empty repositories")
    if _fetch_of_same_branch(state, call, branch):
        return None
    if call is None and any(state.remote_advertises(r, branch) == item.new for r in state.remotes()
                            if state.fetches_recorded(r)):
        return None  # argv unknown: `git fetch origin main:main` brings exactly the remote's main
    cmd = call.cmd if call is not None else None
    why = "'%s' may only move to commits already on its remote counterpart (<remote>/%s)" % (b, b)
    if cmd == "commit":
        steps = rules.keep_commit_steps(item.new)
    elif cmd in rules.ABORT_STEP:
        steps = [rules.ABORT_STEP[cmd]] + rules.branch_work_steps()
    elif cmd is None:
        steps = [UNKNOWN_STEP] + rules.keep_commit_steps(item.new)
    else:
        steps = ["git branch %s %s   # keep that commit on a new branch instead"
                 % (rules.NEW_BRANCH, safe(item.new, 80)),
                 "git push -u origin %s   # then open a pull request" % rules.NEW_BRANCH]
    return rules.Refusal("protected-move", "moving protected branch '%s' to new local work (%s)"
                         % (b, safe(_cmd(call), 40)), why, steps, [item])


def _remote_tracking(state, item, kind, call):
    _, remote, branch = kind
    if is_symref_value(item.new) or not is_oid(item.new):
        return rules.Refusal("remote-tracking-forge", "turning remote-tracking ref '%s' into %s (%s)"
                             % (safe(item.ref, 120), safe(item.new, 80), safe(_cmd(call), 40)),
                             "it decides where '%s' may move, so it stays a plain ref that fetch writes"
                             % safe(branch, 80),
                             ["git fetch %s        # brings the remote's real %s"
                              % (safe(remote, 60), safe(branch, 80))],
                             [item])
    if is_zero(item.new) or item.new == state.current(item.ref):
        return None  # dropping or re-stating a remote-tracking ref unlocks nothing
    if state.programs_swapped():
        return rules.Refusal("remote-tracking-forge", "updating remote-tracking ref '%s' through programs the caller "
                             "chose (%s)" % (safe(item.ref, 120), safe(_cmd(call), 40)),
                             "git ran its transport programs from GIT_EXEC_PATH, not from its own install, so what "
                             "it wrote is not known to be the remote's '%s'" % safe(branch, 80),
                             ["env -u GIT_EXEC_PATH git fetch %s   # with git's own programs" % safe(remote, 60)],
                             [item])
    recorded = state.recorded_remotes()
    if recorded is not None and remote in recorded and not state.fetches_recorded(remote):
        return _moved_remote(remote, branch, recorded[remote], item, call)
    if call is not None and call.cmd in REMOTE_WRITERS and all(_source_is_remote(state, call, r, b)
                                                              for r, b in _readings(state, item.ref, kind)):
        return None
    if call is None:
        # The command is unknown (no argv on this system): git itself says whether this is the
        # remote's real branch. A fetch, pull or push writes exactly what the remote advertises.
        if _advertised(state, item.ref, item.new):
            return None
        why = "it decides where '%s' may move, and the remote does not have that commit there" % safe(branch, 80)
    else:
        why = "it decides where '%s' may move, so only fetch and push update it" % safe(branch, 80)
    return rules.Refusal("remote-tracking-forge",
                         "writing remote-tracking ref '%s' by hand (%s)" % (safe(item.ref, 120), safe(_cmd(call), 40)),
                         why,
                         ["git fetch %s        # brings the remote's real %s" % (safe(remote, 60), safe(branch, 80))],
                         [item])


def _moved_remote(remote, branch, recorded, item, call):
    r = safe(remote, 60)
    return rules.Refusal("remote-config",
                         "updating remote-tracking ref '%s' from a remote that changed since install (%s)"
                     % (safe(item.ref, 120), safe(_cmd(call), 40)),
                     "'%s' does not fetch from %s any more, as recorded at install, and its tracking refs decide "
                     "where '%s' may move" % (r, safe(recorded, 200), safe(branch, 80)),
                     ["git remote -v        # where it fetches from now: put it back, or, if the change is intended:",
                      "agentguard install   # (the user) records the remote as it is now"], [item])


def _advertised(state, tracking, new):
    """True when a configured remote whose name prefixes ``tracking`` (refs/remotes/<name>/<branch>)
    advertises ``new`` for its refs/heads/<branch> now."""
    rest = tracking[len("refs/remotes/"):]
    return any(rest.startswith(name + "/") and
               state.remote_advertises(name, rest[len(name) + 1:]) == new
               for name in state.remotes())


def _readings(state, ref, kind):
    """[(remote, branch)] ``ref`` (``refs/remotes/<remote>/<branch>``) is the tracking ref of, for each
    configured remote whose name prefixes it (``refs/remotes/origin/feature/main`` is origin's
    ``feature/main``, not the ``main`` of a remote ``origin/feature``), or the policy's reading ``kind``."""
    rest = ref[len("refs/remotes/"):]
    found = [(name, rest[len(name) + 1:]) for name in state.remotes() if rest.startswith(name + "/")
             and len(rest) > len(name) + 1]
    return found or [kind[1:]]


def _reads_remote(call):
    """True when nothing on the command line makes the remote it names answer from elsewhere
    (``--upload-pack``, ``-c``/``GIT_CONFIG_*`` of ``remotes.SOURCE_KEYS``): the one test of "the
    source is really that remote" every rule below starts from."""
    return not remotes.swaps_source(call, os.environ)


def _source_is_remote(state, call, remote, branch):
    """True when a fetch/pull/push/clone/remote really writes ``branch`` of ``remote`` into its
    remote-tracking ref (no spoofed source: another remote, another branch, a tag of that name, a
    bare commit id, another upload-pack)."""
    if call.cmd == "clone":
        # A clone writes its tracking refs into a repository that has no branch yet, in the same
        # run that makes main from the same advertisement: nothing there for them to unlock.
        return not state.has_branches()
    if not _reads_remote(call) or not _configured_sources_only(state, remote, branch):
        return False
    if call.cmd == "remote":
        return True
    names = state.remotes()
    words = call.words()
    if call.cmd == "push":
        # git writes the tracking ref the pushed remote's fetch refspecs map the pushed ref to; only
        # ``remote``'s own refs/heads/<branch> maps to this one (``_configured_sources_only``).
        target = call.value("--repo") or (words[0] if words else None)
        return target is None or remote in remotes.resolve(target, names, state.cwd)
    if call.has("--all", "--multiple") or (call.cmd == "fetch" and call.has("--stdin")):
        return not words or all(w in names for w in words)
    if not words:
        return True  # the default remote, with its configured refspecs
    if remote not in remotes.resolve(words[0], names, state.cwd):
        return False
    tracking = "refs/remotes/%s/%s" % (remote, branch)
    for text in words[1:]:
        for src in refnames.fetch_sources_of(refnames.Refspec(text), tracking):
            if not lsremote.source_is_branch(state, words[0], src, branch):
                return False  # another ref, or a commit id (see docs/how-it-is-built.md: "CI checkouts")
    return True


def _configured_sources_only(state, remote, branch):
    """No remote's configured fetch refspec writes ``refs/remotes/<remote>/<branch>`` from anything
    but that remote's own ``branch`` (``remote.origin.fetch=+refs/heads/feat:refs/remotes/origin/main``
    would, on a plain `git fetch`; so would another remote's)."""
    tracking = "refs/remotes/%s/%s" % (remote, branch)
    return all(name == remote and lsremote.source_is_branch(state, remote, src, branch)
               for name, specs in state.fetch_refspecs().items() for text in specs
               for src in refnames.fetch_sources_of(refnames.Refspec(text), tracking))


def _fetch_of_same_branch(state, call, branch):
    """`git fetch <remote> main:main`: the remote's own branch into the local one of that name."""
    if call is None or call.cmd != "fetch" or not _reads_remote(call):
        return False
    words = call.words()
    if len(words) < 2 or not any(state.fetches_recorded(r) for r in remotes.resolve(words[0], state.remotes(),
                                                                                     state.cwd)):
        return False
    local = "refs/heads/" + branch
    sources = [src for text in words[1:] for src in refnames.fetch_sources_of(refnames.Refspec(text), local)]
    return bool(sources) and all(lsremote.source_is_branch(state, words[0], src, branch) for src in sources)


def _rename_source(policy, item, call):
    """`git branch -M feat main` deletes `feat` before main is touched: refuse at that step."""
    if call is None or call.cmd != "branch" or not call.has(*_BRANCH_RENAME):
        return None
    words = call.words()
    if not words:
        return None
    target = words[-1]
    if not policy.is_protected(target):
        return None
    return rules.Refusal("rename-onto-protected",
                         "renaming or copying a branch onto protected branch '%s'" % safe(target, 80),
                         "the branch being renamed is kept; protected branches change through pull requests",
                         ["git push -u origin %s   # push it as it is and open a pull request"
                      % safe(item.ref[len("refs/heads/"):], 80)], [item])
