"""pre-receive in a guarded bare repository: protected branches move only by allowed pushers, and
then only forward.

git runs the hook once per push with ``<old> SP <new> SP <ref>`` lines on stdin, the new objects
still in a quarantine directory (``GIT_QUARANTINE_PATH``, ``GIT_OBJECT_DIRECTORY``,
``GIT_ALTERNATE_OBJECT_DIRECTORIES``: kept for ``git merge-base``, which must see them). A non-zero
exit rejects every ref of the push, and what the hook prints reaches the client as ``remote:`` lines.
Whatever goes wrong in here ends in a refusal: the shell script only starts Python when a protected
branch may be at stake.

A pushed ref that is a symbolic ref is judged as the ref it ends at: receive-pack updates (or deletes)
that one through it, and pre-receive sees only the name pushed.
"""
import os
import sys

from .. import audit
from .. import rules
from ..backstop.reflines import Malformed, is_oid, is_zero, parse_reftx
from ..gitio import GitError, read_bounded, run as git_run
from ..policy import PolicyError
from ..saferead import read_regular
from ..textsafe import safe
from . import identity, serverpolicy

HOOK = "pre-receive"
MAX_STDIN = 16 * 1024 * 1024
REMOTE = "origin"  # how the client most likely names this repository, for the steps we print


def _sane_ref(ref):
    return ref.startswith("refs/") and ".." not in ref and not ref.endswith(("/", ".lock"))


def parse(data):
    """(updates, unreadable lines) of receive-pack's input."""
    updates, bad = [], []
    for item in parse_reftx(data):
        if isinstance(item, Malformed):
            bad.append(item.text)
        elif not (is_oid(item.old) and is_oid(item.new) and len(item.old) == len(item.new) and _sane_ref(item.ref)):
            bad.append(" ".join(item))
        else:
            updates.append(item)
    return updates, bad


def is_ancestor(old, new):
    """True/False: is ``old`` an ancestor of ``new`` (asked of git in the quarantine); None: git
    could not tell (not commits, objects missing)."""
    rc, _ = git_run(["merge-base", "--is-ancestor", old, new])
    return {0: True, 1: False}.get(rc)


def may_be_symref(git_dir, ref):
    """Whether ``ref`` may be a symbolic ref, without a process: the files backend stores one only as
    a loose file starting ``ref:`` or a symbolic link (never in packed-refs); under reftable, any may be."""
    if os.path.isdir(os.path.join(git_dir, "reftable")):
        return True
    path = os.path.join(git_dir, ref)
    if os.path.islink(path):
        return True
    return read_regular(path, 4) == b"ref:"  # None: no loose file (packed, or new), or no file at all


def symref_target(ref):
    """The ref ``ref`` ends at when it is a symbolic ref (however deep, dangling or not), asked of
    git; None when it is not one. Raises GitError when git cannot tell."""
    rc, out = git_run(["symbolic-ref", "-q", ref])
    if rc == 1:
        return None
    target = out.decode("utf-8", "surrogateescape").strip()
    if rc != 0 or not _sane_ref(target):
        raise GitError("git cannot say where the symbolic ref %s points" % safe(ref, 80))
    return target


def effective_ref(policy, ref, git_dir):
    """The ref an update of ``ref`` writes: ``ref``, or the ref it points to when it is a symbolic one."""
    if policy.classify(ref) or not may_be_symref(git_dir, ref):
        return ref
    return symref_target(ref) or ref


def receive_refusal(server, data, environ, ancestor=is_ancestor):
    """The refusal for this push, or None to accept it."""
    updates, bad = parse(data)
    total = len(updates) + len(bad)
    whole = ("the server rejected the whole push: none of its %d refs was updated" % total if total > 1
             else "nothing was updated")
    if bad:
        return rules.Refusal("unreadable-input", "a push agentguard cannot read",
                             "the line %r is not what git sends to pre-receive; %s" % (safe(bad[0], 120), whole),
                             ["agentguard doctor --server <this repository>   # on the server"])
    policy = server.policy
    git_dir = environ.get("GIT_DIR") or "."
    hits = []
    for update in updates:
        ref = effective_ref(policy, update.ref, git_dir)
        # another letter case of a protected name: the same loose ref file where the file system
        # ignores case; judged as that branch everywhere (no branch is worth a name only case sets apart)
        kind = policy.classify(ref) or policy.classify(ref, fold=True)
        if kind and kind[0] == "local":
            hits.append((update, kind[1]))
    if not hits:
        return None
    who = identity.pusher(environ)
    if not server.allowed(who.name):
        return _not_allowed(who, hits, whole, total)
    for update, branch in hits:
        if is_zero(update.new):
            return _rewrite(who, update, branch, "deleting protected branch %s" % _named(update, branch), whole,
                            ["(a protected branch is deleted by the server's administrator, not by a push)"])
        if is_zero(update.old):
            continue  # creating it: nothing to lose
        forward = ancestor(update.old, update.new)
        if forward is not True:
            what = ("a non-fast-forward update of protected branch %s" if forward is False else
                    "an update of protected branch %s that git cannot show to be a fast-forward")
            b = safe(branch, 80)
            return _rewrite(who, update, branch, what % _named(update, branch), whole, [
                "git pull --rebase %s %s   # then push again: a fast-forward" % (REMOTE, b),
                "git push -u %s HEAD:refs/heads/%s   # or push it to a new branch and open a pull request"
                % (REMOTE, rules.NEW_BRANCH)])
    return None


def _not_allowed(who, hits, whole, total):
    update, branch = hits[0]
    b = safe(branch, 80)
    more = " (and %d more protected)" % (len(hits) - 1) if len(hits) > 1 else ""
    if who.name is None:
        by = "by an unknown pusher (%s)" % safe(who.problem, 200)
    else:
        by = "by %s (from %s), who is not an allowed pusher" % (safe(who.name, 80), safe(who.source, 80))
    verb = "deleting" if is_zero(update.new) else "pushing to"
    steps = ["git push -u %s HEAD:refs/heads/%s   # push the work to a new branch" % (REMOTE, rules.NEW_BRANCH),
             "then open a pull request into '%s'" % b]
    if total > len(hits):
        steps.append("push the other refs again on their own: they were rejected with it")
    return rules.Refusal("server-push-protected",
                         "%s protected branch %s%s %s" % (verb, _named(update, branch), more, by),
                     "protected branches change on this server only through allowed pushers; %s" % whole,
                     steps, [u for u, _ in hits], branch=branch)


def _named(update, branch):
    """'main', or 'main' (through the symbolic ref refs/heads/trunk)."""
    if update.ref == "refs/heads/" + branch:
        via = ""
    elif update.ref.lower() == ("refs/heads/" + branch).lower():
        via = " (spelt %s)" % safe(update.ref, 80)
    else:
        via = " (through the symbolic ref %s)" % safe(update.ref, 80)
    return "'%s'%s" % (safe(branch, 80), via)


def _rewrite(who, update, branch, what, whole, steps):
    return rules.Refusal("server-rewrite-protected", "%s by %s" % (what, safe(who.describe(), 80)),
                         "protected branches only move forward here, even for allowed pushers; %s" % whole,
                         steps, [update], branch=branch)


def broken(reason):
    return rules.Refusal("guard-broken", "this push: agentguard could not check it",
                         "%s; a protected branch may be at stake, so the whole push is refused" % safe(reason, 200),
                         ["agentguard doctor --server <this repository>    # on the server: names the gap",
                      "agentguard install --server <this repository>   # repairs the installation"])


def main(argv, ag_home, environ=None, stdin=None, stderr=None):
    """Run the hook; the exit status (0 accept, 1 refuse)."""
    environ = os.environ if environ is None else environ
    stderr = stderr or sys.stderr
    try:
        if list(argv[:1]) != [HOOK]:
            raise ValueError("unknown hook %r" % safe(" ".join(argv), 60))
        data = read_bounded(stdin if stdin is not None else sys.stdin.buffer, MAX_STDIN)
        refusal = receive_refusal(serverpolicy.load(ag_home), data, environ)
    except (PolicyError, GitError, ValueError, OSError, RecursionError, MemoryError) as exc:
        refusal = broken(str(exc))
    except Exception as exc:  # a bug must still fail closed, and must not print a traceback
        refusal = broken("internal error (%s)" % type(exc).__name__)
    if refusal is None:
        return 0
    who = identity.pusher(environ)
    return audit.refuse(stderr, ag_home, HOOK, refusal, ["git-receive-pack"],
                        pusher="%s (%s)" % (who.name, who.source) if who.name is not None else "(unknown)")
