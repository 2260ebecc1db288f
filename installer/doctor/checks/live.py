"""Live probes: the real hooks, run as git runs them in a sandbox (``probes.Sandbox``), refuse a
protected ref and accept a harmless one; the push guard's probe comes from ``pushcheck``."""
import os

from ....hooks import audit
from ....hooks.policy import Policy
from .. import probes
from .push import probe_push_guard
from .base import FIX_ALL, REINSTALL


def check_probes(ctx):
    """The real hooks, run as git runs them in a sandbox, refuse a protected ref and accept a harmless one."""
    if not ctx.live:
        ctx.add("probe.skipped", "warn", "live probes skipped (the doctor runs inside a hook or a probe)",
                "agentguard doctor", repair=REINSTALL)
        return
    policy = ctx.policy or Policy(["main", "master"])
    branch = probes.protected_probe_name(policy)
    if branch is None:
        ctx.add("probe.reference-transaction", "warn", "no branch name to probe the policy with", repair=REINSTALL)
        return
    harmless = "%s-%d" % (probes.PROBE_PREFIX, os.getpid())
    guard = probes.AuditGuard(os.path.join(ctx.info.ag_home, audit.LOG_NAME))
    box = probes.Sandbox(ctx.info)
    try:
        results = [("probe.reference-transaction", probes.reference_transaction(box, branch, True),
                    probes.reference_transaction(box, harmless, False))]
        for hook, fn in (("pre-push", probes.pre_push), ("pre-commit", probes.pre_commit)):
            path = os.path.join(ctx.info.hooks_dir, hook)
            if not os.access(path, os.X_OK):
                results.append(("probe." + hook, probes.ProbeResult(False, "%s hook is not there" % hook), None))
                continue
            results.append(("probe." + hook, fn(box, path, branch, True), fn(box, path, harmless, False)))
        if (ctx.record or {}).get("transport") is not False:
            results.append(("probe.push-guard", *probe_push_guard(ctx, box, branch, harmless)))
        markers = [m for m in (box.commit, "doctor") if m]
    finally:
        box.close()
    guard.restore(markers)
    for cid, refuse, accept in results:
        bad = [r for r in (refuse, accept) if r is not None and not r.ok]
        detail = "; ".join(r.detail for r in (refuse, accept) if r is not None)
        ctx.add(cid, "fail" if bad else "pass", detail, FIX_ALL if bad else None, repair=REINSTALL)


