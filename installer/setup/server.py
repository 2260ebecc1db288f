"""``agentguard install|uninstall|doctor --server BARE_REPO``: guard a repository people push to.

What install writes into the bare repository: the ``pre-receive`` hook where git reads hooks
(``git rev-parse --git-path hooks``, so core.hooksPath counts; a pre-receive that was there is kept
as ``pre-receive.agentguard-chained`` and runs after ours with the same input), and under
``<bare>/agentguard``: the runtime copy, ``server.json`` (protected patterns, allowed pushers) and
the manifest that uninstall and the doctor trust. The same plan/apply/manifest steps as a client
install (``install.py``); the hook's decision: ``hooks/server/prereceive.py``.
"""
import os
import re
import shlex
import shutil

from ...hooks import audit, layout
from ...hooks.guardpaths import inside
from ...hooks.layout import Layout
from ...hooks.policy import DEFAULT_BRANCHES, Policy, PolicyError, pattern_problem
from ...hooks.server import serverpolicy
from ...hooks.textsafe import safe
from ...hooks.version import VERSION
from . import manifest
from ..errors import AgentguardError
from ..fsops import InstallLock, read_regular, remove_stale_temps, sha256_bytes
from ..gitaccess.gitenv import TIMEOUT, run, git
from .hookscripts import is_ours, render
from .hookscripts import tools
from .uninstall import uninstall_hook
from .install import (HOOK_MODE, Action, Plan, plan_hook, describe, interpreter, want_runtime,
                      wanting, write_plan)
from .runtime_files import RUNTIME_DIR, runtime_files

HOOK = "pre-receive"
# Gitea's and Forgejo's generated pre-receive is a dispatcher that runs every program in
# hooks/pre-receive.d/ (and finds that folder by its own name, so it cannot be chained: renamed, it
# would run nothing); they regenerate it. There agentguard's hook is one program in that folder.
DISPATCHED = HOOK + ".d/agentguard"


def is_dispatcher(hooks_dir):
    """True when ``hooks_dir/pre-receive`` (not agentguard's) runs the programs in ``pre-receive.d/``."""
    folder = os.path.join(hooks_dir, HOOK + ".d")
    if os.path.islink(folder) or not os.path.isdir(folder):
        return False
    try:
        data = read_regular(os.path.join(hooks_dir, HOOK))
    except AgentguardError:
        return False
    return data is not None and not is_ours(data) and re.search(rb"""\.d["']?/""", data) is not None


def hook_file(record):
    """Where install put the hook, relative to the hooks directory (from its record)."""
    return DISPATCHED if (record or {}).get("hook_file") == DISPATCHED else HOOK


def discover_bare(path):
    """The bare repository at ``path`` and where git reads its hooks, asked of git in one call."""
    path = os.path.abspath(path or ".")
    if not os.path.isdir(path):
        raise AgentguardError("%s is not a directory" % safe(path, 300))
    rc, out, err = run(layout.REV_PARSE, path, TIMEOUT)
    found = layout.parse(path, rc, out)
    if layout.says_bare(out) is False:
        raise AgentguardError("%s is not a bare repository: --server guards the repository a team pushes to; "
                              "in a working repository run `agentguard install`" % safe(path, 300))
    if found is None:
        raise AgentguardError("%s is not a git repository (%s)"
                              % (safe(path, 300), safe(err.decode("utf-8", "replace").strip(), 200)))
    return found


def fix_command(info):
    return "agentguard install --server %s" % shlex.quote(info.top)


def _server_policy(info, protect, pushers, previous):
    """--protect and --allow-pusher as given; each one not given: as the last install recorded it,
    else main, master and the branch HEAD names / nobody."""
    before = None
    try:
        before = serverpolicy.ServerPolicy.from_json(previous.get("server_policy")) if previous else None
    except PolicyError:
        before = None
    warnings = []
    if protect:
        branches, source = list(protect), "--protect"
    elif before is not None:
        branches, source = before.policy.branches, before.policy.source
    else:
        branches, source = list(DEFAULT_BRANCHES), "default"
        head = git(["symbolic-ref", "-q", "HEAD"], cwd=info.top, check=False)
        name = head[len("refs/heads/"):] if head.startswith("refs/heads/") else ""
        if name and pattern_problem(name):
            warnings.append("HEAD's branch %r cannot be used as a pattern; protect it with --protect"
                            % safe(name, 80))
        elif name and name not in branches:
            branches.append(name)
    if not pushers and before is not None:
        pushers = before.pushers
    try:
        server = serverpolicy.ServerPolicy(Policy(branches, source), list(pushers or []))
    except PolicyError as exc:
        raise AgentguardError(str(exc))
    if not server.pushers:
        warnings.append("no allowed pusher: nobody can update a protected branch here (--allow-pusher NAME lets "
                        "someone fast-forward them)")
    return server, warnings


def plan_server(bare, protect=None, pushers=None):
    info = discover_bare(bare)
    if not inside(info.hooks_dir, info.common_dir):
        raise AgentguardError("git reads this repository's hooks from %s (core.hooksPath), outside it; agentguard "
                              "will not write there. Unset core.hooksPath (git -C %s config --unset core.hooksPath) "
                              "or point it inside the repository"
                              % (safe(info.hooks_dir, 200), shlex.quote(info.top)))
    previous = manifest.load(info.ag_home) or {}
    if previous and not previous.get("server"):
        raise AgentguardError("%s holds a client install's record (agentguard/%s); remove it first"
                              % (safe(info.top, 300), manifest.NAME))
    server, warnings = _server_policy(info, protect, pushers, previous)
    plan = Plan(info, server.policy, warnings=warnings, request=(bare, protect, pushers), previous=previous)
    python = interpreter()
    want, owned = wanting(plan)
    runtime_record = want_runtime(want, info.ag_home)
    want(os.path.join(info.ag_home, serverpolicy.NAME), server.dumps().encode())
    if is_dispatcher(info.hooks_dir):
        script, chained, rel = render(HOOK, server.policy, python, None, False), False, DISPATCHED
        note = "run by the pre-receive that runs every program in %s.d (Gitea, Forgejo)" % HOOK
    else:
        script, chained = plan_hook(plan, HOOK, python)
        rel, note = HOOK, "chains the hook that was here" if chained else ""
    want(os.path.join(info.hooks_dir, rel), script, HOOK_MODE, note)
    plan.record = {"version": VERSION, "server": True, "python": python, "tools": tools(), "hooks_dir": info.hooks_dir,
                   "hook_file": rel,
                   "hooks": {HOOK: {"sha256": sha256_bytes(script), "chained": chained}},
                   "runtime": runtime_record, "server_policy": server.to_json(), "owned": owned}
    if plan.actions or previous != dict(plan.record, format=manifest.FORMAT):
        plan.actions.append(Action("write", os.path.join(info.ag_home, manifest.NAME), note="manifest"))
    return plan, server


def _write_dirs(info):
    dirs = {info.hooks_dir, info.ag_home}
    for rel in runtime_files():
        dirs.add(os.path.dirname(os.path.join(info.ag_home, RUNTIME_DIR, rel)))
    return sorted(dirs)


def _describe(plan):
    """install's lines, the runtime copy's files as one."""
    runtime = os.path.join(plan.info.ag_home, RUNTIME_DIR) + os.sep
    files = [a for a in plan.actions if a.kind == "write" and a.path.startswith(runtime)]
    rest = Plan(plan.info, plan.policy, actions=[a for a in plan.actions if a not in files])
    lines = ["write the runtime copy in %s (%d files)" % (plan.info.display(runtime), len(files))] if files else []
    return lines + describe(rest)


def install_server(bare, protect, allow_pushers, dry_run=False):
    """Lines to print; raises AgentguardError."""
    plan, server = plan_server(bare, protect, allow_pushers)
    info = plan.info
    where = safe(info.top, 300)
    lines = ["agentguard: warning: %s" % w for w in plan.warnings]
    summary = ["  protected branches: %s (%s)" % (", ".join(safe(b, 80) for b in server.policy.branches),
                                                  server.policy.source),
               "  allowed pushers (fast-forward only): %s" % (", ".join(safe(p, 80) for p in server.pushers)
                                                              or "nobody")]
    if not plan.actions:
        return lines + ["agentguard: already installed in %s; nothing changed" % where] + summary
    if dry_run:
        return lines + ["agentguard: dry run in %s; would:" % where] + ["  " + x for x in _describe(plan)] + summary
    with InstallLock(info.ag_home):
        plan, server = plan_server(bare, protect, allow_pushers)  # again under the lock
        write_plan(plan, _write_dirs(info), manifest.intent(plan.record, plan.previous))
    return (lines + ["agentguard: installed the server guard in %s" % where] + ["  " + x for x in _describe(plan)]
            + summary + ["  check it: agentguard doctor --server %s" % shlex.quote(info.top)])


def uninstall_server(bare):
    """Remove what install --server wrote and put back the pre-receive that was there. (lines, warnings)"""
    info = discover_bare(bare)
    home = info.ag_home
    done: list = []
    warnings: list = []
    with InstallLock(home):
        record = manifest.load(home) or {}
        if record and not record.get("server"):
            raise AgentguardError("%s holds a client install's record, not a server one" % safe(info.top, 300))
        for directory in _write_dirs(info):
            remove_stale_temps(directory)
        rel = hook_file(record)
        where = Layout(info.top, info.git_dir, info.common_dir, os.path.dirname(os.path.join(info.hooks_dir, rel)),
                       info.bare)
        uninstall_hook(where, os.path.basename(rel), manifest.accepted(record, "hooks", HOOK), done, warnings)
        shutil.rmtree(os.path.join(home, RUNTIME_DIR), ignore_errors=True)
        for name in (serverpolicy.NAME, manifest.NAME):
            try:
                os.unlink(os.path.join(home, name))
                done.append("removed %s" % info.display(os.path.join(home, name)))
            except FileNotFoundError:
                pass
    try:
        os.unlink(os.path.join(home, "lock"))
        os.rmdir(home)  # kept when the audit log (or anything else) is in it
    except OSError:
        pass
    if os.path.exists(os.path.join(home, audit.LOG_NAME)):
        done.append("kept the audit log %s" % info.display(os.path.join(home, audit.LOG_NAME)))
    if not done:
        return ["agentguard: not installed in %s; nothing to remove" % safe(info.top, 300)], warnings
    return ["agentguard: uninstalled from %s" % safe(info.top, 300)] + ["  " + x for x in done], warnings


__all__ = ["discover_bare", "install_server", "uninstall_server"]
