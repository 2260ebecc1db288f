"""Live probes: the real hooks, run as git runs them in a sandbox (``probes.Sandbox``), refuse a
protected ref and accept a harmless one; the push guard's probe comes from ``pushcheck``."""
import os

from ....hooks import audit
from ....hooks.policy import Policy
from ....hooks.textsafe import safe
from .. import probes, probeshare
from .push import probe_push_guard
from .base import FIX_ALL, REINSTALL
from .policy import remotes_now


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
    shared = ctx.shared
    key = probeshare.fingerprint(ctx.info, ctx.record, remotes_now(ctx)) if shared is not None else None
    known = shared.lookup(key) if shared is not None else None
    taken = known[1] if known else {}
    guard = probes.AuditGuard(os.path.join(ctx.info.ag_home, audit.LOG_NAME))
    box = probes.Sandbox(ctx.info, shared.commit if shared is not None else None, ctx.git)
    try:
        refs = ctx.refs()
        results = [("probe.reference-transaction", probes.reference_transaction(box, branch, True, refs),
                    probes.reference_transaction(box, harmless, False, refs))]
        for hook, fn in (("pre-push", probes.pre_push), ("pre-commit", probes.pre_commit)):
            path = os.path.join(ctx.info.hooks_dir, hook)
            if not os.access(path, os.X_OK):
                results.append(("probe." + hook, probes.ProbeResult(False, "%s hook is not there" % hook), None))
            elif "probe." + hook not in taken:
                results.append(("probe." + hook, fn(box, path, branch, True), fn(box, path, harmless, False)))
        if (ctx.record or {}).get("transport") is not False and "probe.push-guard" not in taken:
            results.append(("probe.push-guard", *probe_push_guard(ctx, box, branch, harmless)))
        markers = [m for m in (box.commit, "doctor") if m]
    finally:
        box.close()
    guard.restore(markers)
    outcome = []
    for cid, refuse, accept in results:
        bad = [r for r in (refuse, accept) if r is not None and not r.ok]
        detail = "; ".join(r.detail for r in (refuse, accept) if r is not None)
        outcome.append((cid, not bad, detail))
    for cid, detail in taken.items():
        if not any(cid == c for c, _, _ in outcome):
            outcome.append((cid, True, "%s (probed in %s, whose hooks, runtime, policy and grants are byte-identical)"
                            % (detail, safe(known[0], 200))))
    order = ["probe.reference-transaction"] + list(probeshare.SHARED)
    for cid, ok, detail in sorted(outcome, key=lambda o: order.index(o[0])):
        ctx.add(cid, "pass" if ok else "fail", detail, None if ok else FIX_ALL, repair=REINSTALL)
    if shared is not None and not known and key == probeshare.fingerprint(ctx.info, ctx.record, remotes_now(ctx)):
        shared.learnt(key, ctx.info.top, outcome)  # nothing changed while it was probed
