"""``agentguard allow``: a person grants one push or move of a protected branch (the break-glass).

The grant's format, where it lives and how it is spent are the runtime's (``hooks/grant.py``); this
module only asks the person at the terminal and writes it. No terminal on stdin, no grant: an agent's
tool call usually has none, and where a harness gives it one, ``agentguard check`` blocks the command
and ``check --after`` removes a grant that appeared during the call."""
import os
import time

from ..hooks import audit, grant
from ..hooks.policy import PolicyError, load_policy
from ..hooks.textsafe import safe
from .errors import AgentguardError
from .fsops import atomic_write
from .gitaccess.gitenv import git_ok
from .gitaccess.repo import discover


class UsageError(AgentguardError):
    """A command line the person can correct (exit 2)."""


def _installed(path):
    info = discover(path)
    try:
        policy = load_policy(info.ag_home)
    except PolicyError:
        raise AgentguardError("agentguard is not installed in %s (no policy snapshot): nothing needs a grant"
                              % safe(info.top, 300))
    return info, policy


def _branch(info, policy, name):
    branch = name[len("refs/heads/"):] if name.startswith("refs/heads/") else name
    if not branch or not git_ok(["check-ref-format", "refs/heads/" + branch], cwd=info.top):
        raise UsageError("%r is not a branch name" % safe(name, 120))
    if not policy.is_protected(branch):
        raise AgentguardError("'%s' is not a protected branch here (protected: %s): it needs no grant"
                              % (safe(branch, 120), ", ".join(safe(p, 80) for p in policy.branches)))
    return branch


def grant_branch(path, name, minutes, stdin_fd=0, prompt=None, answer=None):
    """Ask the person at the terminal on ``stdin_fd`` to type the branch name, then write the grant.
    ``prompt(text)`` shows text, ``answer()`` reads one line. Returns the lines to print."""
    if not os.isatty(stdin_fd):
        raise AgentguardError("no terminal on stdin: a person grants this by typing the branch name; "
                              "nothing was granted")
    if not 1 <= minutes <= grant.MAX_MINUTES:
        raise UsageError("--minutes must be between 1 and %d" % grant.MAX_MINUTES)
    info, policy = _installed(path)
    branch = _branch(info, policy, name)
    b = safe(branch, 120)
    prompt("agentguard: allow ONE push or move of protected branch '%s' in %s within %d minute%s.\n"
           "Type the branch name to confirm: " % (b, safe(info.top, 300), minutes, "" if minutes == 1 else "s"))
    typed = answer()
    if typed is None or typed.rstrip("\r\n") != branch:
        raise AgentguardError("what was typed is not '%s': nothing was granted" % b)
    try:
        tty = os.ttyname(stdin_fd)
    except OSError:
        tty = None
    data, raw = grant.make(branch, minutes, tty=tty)
    atomic_write(grant.path_for(info.ag_home, branch), raw, 0o600)
    audit.record(info.ag_home, "allow", "break-glass-grant", [("refs/heads/" + branch, "", "")],
                 ["agentguard", "allow", branch, "--minutes", str(minutes)])
    until = time.strftime("%H:%M:%S", time.localtime(data["expires"]))
    return ["agentguard: granted one push or move of '%s' until %s (agentguard allow --revoke %s takes it back)"
            % (b, until, b)]


def revoke(path, name):
    info, policy = _installed(path)
    branch = _branch(info, policy, name)
    target = grant.path_for(info.ag_home, branch)
    if not os.path.lexists(target):
        return ["agentguard: no grant for '%s'" % safe(branch, 120)]
    os.unlink(target)
    audit.record(info.ag_home, "allow", "break-glass-revoke", [("refs/heads/" + branch, "", "")],
                 ["agentguard", "allow", "--revoke", branch])
    return ["agentguard: revoked the grant for '%s'" % safe(branch, 120)]


def describe(ag_home, now=None):
    """One line per active grant: the doctor and ``allow --list`` say the same."""
    return ["'%s': one push or move, %s left" % (safe(branch, 120), _left(seconds))
            for branch, seconds in grant.active(ag_home, now)]


def listing(path):
    info = discover(path)
    lines = describe(info.ag_home)
    return lines or ["agentguard: no break-glass grant in %s" % safe(info.top, 300)]


def _left(seconds):
    minutes, sec = divmod(max(0, int(seconds)), 60)
    return "%d min %02d s" % (minutes, sec)
