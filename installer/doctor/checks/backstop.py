"""The installation: the install record, where git reads hooks (in every worktree), and each hook
install wrote: present, executable, unmodified, with the hook it chained."""
import os

from ....hooks.textsafe import safe
from ...setup import manifest
from ...errors import AgentguardError
from ...fsops import read_regular, sha256_bytes
from ...setup.hookscripts import CHAINED_SUFFIX, HOOK_NAMES, is_ours
from .base import FIX_ALL, REINSTALL


def check_manifest(ctx):
    if ctx.record is None:
        ctx.add("install.manifest", "fail", "agentguard is not installed in this repository "
                "(no %s)" % ctx.info.display(os.path.join(ctx.info.ag_home, manifest.NAME)),
                "agentguard install", repair=REINSTALL)
    elif manifest.interrupted(ctx.record):
        ctx.add("install.manifest", "fail", "an install was interrupted before it finished; some files may "
                "still be the old ones", "agentguard install   # completes it", repair=REINSTALL)
    else:
        ctx.add("install.manifest", "pass", "installed by agentguard %s" % ctx.record.get("version", "?"))


# -- hooks --------------------------------------------------------------------------------------
def check_hooks_location(ctx):
    if ctx.record is None:
        return
    info = ctx.info
    recorded = os.path.realpath(ctx.record.get("hooks_dir", ""))
    if recorded != info.hooks_dir:
        ctx.add("hooks.location", "fail", "git reads hooks from %s but agentguard installed them in %s"
                % (info.display(info.hooks_dir), info.display(recorded)),
                "agentguard install   # writes the hooks where git reads them now", repair=REINSTALL)
    else:
        ctx.add("hooks.location", "pass", "git reads hooks from %s" % info.display(info.hooks_dir))


def check_worktrees(ctx):
    """Every worktree git lists reads the hooks install wrote (a relative core.hooksPath resolves per
    worktree); those that cannot be used now (bare, prunable, gone) are named and skipped."""
    if ctx.record is None:
        return
    bad = []
    found, skipped = ctx.worktrees()
    for other in found.values():
        if other.top != ctx.info.top and other.hooks_dir != ctx.info.hooks_dir:
            bad.append(other.top)
    note = "; skipped %s" % ", ".join("%s (%s)" % (safe(p, 200), why) for p, why in skipped if why != "bare") \
        if any(why != "bare" for _, why in skipped) else ""
    if bad:
        ctx.add("hooks.worktrees", "fail", "linked worktree %s reads hooks from elsewhere (a relative "
                "core.hooksPath resolves per worktree)%s" % (safe(bad[0], 200), note),
                "agentguard install %s" % safe(bad[0], 200), repair=REINSTALL)
    else:
        ctx.add("hooks.worktrees", "pass", "every worktree reads the same hooks (%d worktree%s)%s"
                % (len(found), "" if len(found) == 1 else "s", note))


def check_hook_files(ctx):
    """Every agentguard hook present, executable, byte-identical to what install wrote; chained hooks there."""
    if ctx.record is None:
        return
    recorded = ctx.record.get("hooks", {})
    for hook in HOOK_NAMES:
        _check_hook(ctx, hook, recorded.get(hook) or {})


def _check_hook(ctx, hook, rec):
    info = ctx.info
    path = os.path.join(info.hooks_dir, hook)
    cid = "hooks." + hook
    try:
        data = read_regular(path)
    except AgentguardError as exc:
        ctx.add(cid, "fail", str(exc), FIX_ALL, repair=REINSTALL)
        return
    where = info.display(path)
    if data is not None and not is_ours(data):
        legacy = read_regular(path + ".legacy") if os.path.lexists(path + ".legacy") else None
        if legacy is not None and is_ours(legacy) and b"pre-commit" in data[:2000]:
            data, path, where = legacy, path + ".legacy", where + ".legacy (run by the pre-commit framework)"
        else:
            ctx.add(cid, "fail", "%s is not agentguard's hook (something replaced it)" % where,
                    FIX_ALL + "   # chains the new hook and puts agentguard's back", repair=REINSTALL)
            return
    if data is None:
        ctx.add(cid, "fail", "%s is missing" % where, FIX_ALL, repair=REINSTALL)
    elif not os.access(path, os.X_OK):
        ctx.add(cid, "fail", "%s is not executable, so git ignores it" % where, FIX_ALL, repair=REINSTALL)
    elif rec.get("sha256") and sha256_bytes(data) != rec["sha256"]:
        ctx.add(cid, "fail", "%s differs from what agentguard install wrote" % where, FIX_ALL, repair=REINSTALL)
    else:
        ctx.add(cid, "pass", "%s is in place, executable and unmodified" % where)
    if rec.get("chained"):
        chained = os.path.join(info.hooks_dir, hook + CHAINED_SUFFIX)
        if not os.path.lexists(chained):
            ctx.add(cid + ".chained", "fail", "your own %s hook, chained at install, is gone from %s"
                    % (hook, info.display(chained)), "restore it there, or: agentguard install")
        else:
            runs = os.access(chained, os.X_OK)
            ctx.add(cid + ".chained", "pass" if runs else "warn", "your own %s hook runs after agentguard's (%s)%s"
                    % (hook, info.display(chained), "" if runs else ", but it is not executable"))


