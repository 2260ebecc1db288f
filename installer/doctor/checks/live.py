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

REFTX = "probe.reference-transaction"


def check_probes(ctx):
    """The real hooks, run as git runs them in a sandbox, refuse a protected ref and accept a harmless one."""
    if not ctx.live:
        ctx.add("probe.skipped", "warn", "live probes skipped (the doctor runs inside a hook or a probe)",
                "agentguard doctor", repair=REINSTALL)
        return
    policy = ctx.policy or Policy(["main", "master"])
    branch = probes.protected_probe_name(policy)
    if branch is None:
        ctx.add(REFTX, "warn", "no branch name to probe the policy with", repair=REINSTALL)
        return
    harmless = "%s-%d" % (probes.PROBE_PREFIX, os.getpid())
    shared = ctx.shared
    key = probeshare.fingerprint(ctx.info, ctx.record, remotes_now(ctx)) if shared is not None else None
    known = shared.lookup(key) if shared is not None else None
    taken = known[1] if known else {}
    rkey = probeshare.reftx_fingerprint(key, ctx.info, ctx.config().entries, ctx.refs()) if key else None
    refused = shared.lookup(rkey) if shared is not None else None
    guard = probes.AuditGuard(os.path.join(ctx.info.ag_home, audit.LOG_NAME))
    box = probes.Sandbox(ctx.info, shared.commit if shared is not None else None, ctx.git)
    try:
        refs = ctx.refs()
        refusal, accepted, ran = probes.reference_transactions(box, None if refused else branch, harmless, refs,
                                                               trace=bool(refused))
        if refused and ran:
            refusal = probes.ProbeResult(True, "%s (probed in %s, whose hook, runtime, policy, grants, config and "
                                         "refs are byte-identical; git here runs that hook)"
                                         % (refused[1][REFTX], safe(refused[0], 200)))
        elif refused:  # git was not seen running the hook: the refusal is tried here
            refusal, accepted, _ = probes.reference_transactions(box, branch, harmless, refs)
        results = [(REFTX, refusal, accepted)]
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
    order = [REFTX] + list(probeshare.SHARED)
    for cid, ok, detail in sorted(outcome, key=lambda o: order.index(o[0])):
        ctx.add(cid, "pass" if ok else "fail", detail, None if ok else FIX_ALL, repair=REINSTALL)
    if shared is None or (known and refused):
        return
    # what a repository probed in full learnt, offered if nothing changed while it was probed
    again = probeshare.fingerprint(ctx.info, ctx.record, remotes_now(ctx))
    if key != again:
        return
    if not known:
        shared.learnt(key, ctx.info.top, outcome)
    if not refused and refusal is not None and refusal.ok \
            and rkey == probeshare.reftx_fingerprint(again, ctx.info, ctx.config().entries, ctx.refs()):
        shared.learnt(rkey, ctx.info.top, [(REFTX, True, refusal.detail)], (REFTX,))
