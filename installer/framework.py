"""The pre-commit framework's entry points (``.pre-commit-hooks.yaml``): the same runtime, the
same policy, messages and audit log as the native hooks, called in-process.

The framework hands a pre-push hook only the first ref with something to push (through
``PRE_COMMIT_*`` variables) and skips deletions. The ``git push`` that started it is an ancestor
process, though, and its argv (``procargv``: /proc or sysctl, parsed the way git dispatches it) says
every destination, so ``git push origin a:main b:dev`` is still refused. Where no argv can be read,
only the ref the framework hands over is judged (docs/platforms.md; the native pre-push sees all).
"""
import os
import shlex

from ..hooks.gitmodel import cli as gitargv, procargv
from ..hooks.gitmodel.refnames import ZERO_OID as ZERO, Refspec, names_branch
from ..hooks.analyser.check import analyse
from ..hooks.main import run_hook
from ..hooks.policy import PolicyError, load_policy
from .committedconfig import effective_policy
from .errors import AgentguardError
from .gitaccess.repo import discover, remote_head_branches



def policy_for(info):
    """The installed policy when there is one, else the committed config (or the default)."""
    try:
        return load_policy(info.ag_home)
    except PolicyError:
        policy, _ = effective_policy(info, None, remote_head_branches(info))
        return policy


def _home(info):
    os.makedirs(info.ag_home, exist_ok=True)  # the audit log lives there
    return info.ag_home


def commit():
    info = discover(".")
    return run_hook(["pre-commit", str(os.getppid())], ag_home=_home(info), policy=policy_for(info))


def push():
    info = discover(".")
    policy = policy_for(info)
    env = os.environ
    lines = []
    remote_branch = env.get("PRE_COMMIT_REMOTE_BRANCH")
    if remote_branch:
        lines.append("%s %s %s %s" % (env.get("PRE_COMMIT_LOCAL_BRANCH") or "HEAD",
                                      _oid(info.top, env.get("PRE_COMMIT_TO_REF")), remote_branch,
                                      _oid(info.top, env.get("PRE_COMMIT_FROM_REF"))))
    git_pid, argv = push_ancestor()
    if argv is not None:
        head = _head_oid(info.top)
        for dst in protected_destinations(argv, info.top, policy):
            deleting = _deletes(argv, dst)
            lines.append("%s %s refs/heads/%s %s" % ("(delete)" if deleting else "HEAD", ZERO if deleting else head,
                                                     dst, ZERO))
    data = ("\n".join(lines) + "\n").encode() if lines else b""
    remote = env.get("PRE_COMMIT_REMOTE_NAME") or "origin"
    return run_hook(["pre-push", str(git_pid or os.getppid()), remote, env.get("PRE_COMMIT_REMOTE_URL", "")],
                    ag_home=_home(info), stdin_data=data, policy=policy)


def _head_oid(top):
    return _oid(top, "HEAD") if _oid(top, "HEAD") != ZERO else "f" * 40


def _oid(top, rev):
    """The object ``rev`` names (the framework passes oids; `try-repo` users may pass names)."""
    from .gitaccess.gitenv import git
    if not rev:
        return ZERO
    return git(["rev-parse", "-q", "--verify", rev + "^{object}"], cwd=top, check=False).strip() or ZERO


def _deletes(argv, dst):
    call = gitargv.parse(argv)
    if call.has("--delete"):
        return True
    specs = (Refspec(a) for a in call.words()[1:])
    return any(s.src == "" and s.dst is not None and names_branch(s.dst, dst) for s in specs)


def push_ancestor():
    """(pid, argv) of the `git push` this hook runs under (walking up the process tree), or
    (None, None)."""
    pid = os.getppid()
    for _ in range(32):
        if pid is None or pid <= 1:
            return None, None
        argv = procargv.read_process_argv(pid)
        if argv:
            call = gitargv.parse(argv)
            if call.cmd == "push" and os.path.basename(argv[0]).startswith("git"):
                return pid, argv
        pid = procargv.parent_pid(pid)
    return None, None


def protected_destinations(argv, cwd, policy):
    """Protected branches the `git push` ``argv`` would update, decided by the command analyser:
    the branch its refusal names (data, not text), or the first protected pattern when it cannot
    name one (a variable decides, or the analysis failed)."""
    call = gitargv.parse(argv)
    command = "git " + " ".join(shlex.quote(w) for w in call.globals + [call.cmd] + call.args)
    block = analyse(command=command, cwd=cwd)
    if block is None or block.rule not in ("push-protected", "push-mirror", "unanalysable", "guard-error"):
        return []
    if block.branch and policy.is_protected(block.branch):
        return [block.branch]
    return [policy.branches[0]]


def doctor(install=False):
    """Pass when the full backstop is installed in this clone (optionally install it)."""
    from .doctor import runner as doc
    d = doc.Doctor(".")
    d.run(live=False)  # runs on every commit; and the probes would run this hook again
    missing = [c for c in d.checks if c.status == "fail" and c.id.startswith(("install.", "hooks.", "runtime."))
               and not c.id.endswith(".chained")]
    if not missing:
        return 0
    if install:
        from .setup.install import apply_install, plan_install
        apply_install(plan_install(d.info.top))
        print("agentguard: installed the full backstop (reference-transaction and friends) in this clone")
        return 0
    print("agentguard: the full backstop is not installed in this clone (%s); pre-commit cannot install a "
          "reference-transaction hook, so --no-verify and plumbing get past it. Run: agentguard install"
          % missing[0].summary)
    return 1


def run(name, args):
    try:
        if name == "commit":
            return commit()
        if name == "push":
            return push()
        if name == "doctor":
            return doctor(install="--install" in args)
    except AgentguardError as exc:
        print("agentguard: %s" % exc)
        return 1
    print("agentguard: unknown hook %s" % name)
    return 2
