"""Harness adapters: each adapter install wrote is in place and unmodified, and its harness will load
it (per harness, what that harness itself reads: its install descriptor's ``enabled``); in every other
worktree too (what post-checkout writes there on ``git worktree add``; ``doctor --fix`` writes them again)."""

from ....hooks.textsafe import safe
from ...harness import adapters, settingsplan
from ...setup import manifest, worktrees
from ...harness import settingsfile
from ...errors import AgentguardError
from ...fsops import read_contained, sha256_bytes
from ...harness import registry
from .base import FIX_ALL, REINSTALL, Repair


def check_adapters(ctx):
    """Each adapter install wrote is in place and unmodified, and its harness will load it; in every
    other worktree too (what post-checkout writes there on `git worktree add`)."""
    if ctx.record is None:
        return
    own = worktrees.view(ctx.record, worktrees.key_of(ctx.info))
    skipped = own.get("skipped") if isinstance(own.get("skipped"), dict) else {}
    for harness in own.get("harnesses") or []:
        if harness in skipped:
            said, how = settingsplan.left_alone(harness, safe(str(skipped[harness]), 200))
            ctx.add("adapters." + harness, "warn", said, how, repair=REINSTALL)
            continue
        problems = _harness_problems(ctx.info.top, harness, own)
        if problems:
            ctx.add("adapters." + harness, "fail", "; ".join(problems[:3]), FIX_ALL, repair=REINSTALL)
        else:
            ctx.add("adapters." + harness, "pass", "%s adapter in place and unmodified" % harness)
        status, summary, fix_ = registry.HARNESSES[harness].enabled(ctx)
        if status == "warn" and not settingsfile.in_use_signs(harness, ctx.info.top):
            # a harness nobody runs here (the plugin harnesses: a plain install writes their adapters for
            # everyone): what it would need is said, not warned about
            status, fix_ = "pass", None
            summary = "%s is not in use here (no user configuration, not on PATH); once it is: %s" % (harness, summary)
        ctx.add("adapters.%s.enabled" % harness, status, summary, fix_)
    others = [(k, i) for k, i in ctx.worktrees()[0].items() if i.top != ctx.info.top]
    if not others:
        return
    missing = worktrees_missing_adapters(ctx.record, others)
    if missing:
        top, problems = missing[0]
        more = " (and %d more worktree%s)" % (len(missing) - 1, "" if len(missing) == 2 else "s") \
            if len(missing) > 1 else ""
        ctx.add("adapters.worktrees", "fail", "worktree %s: %s%s" % (safe(top, 200), "; ".join(problems[:2]), more),
                "agentguard install %s   # or: agentguard doctor --fix" % safe(top, 200), repair=WORKTREES)
    else:
        ctx.add("adapters.worktrees", "pass", "the adapters are in place in the other worktree%s (%s)"
                % ("" if len(others) == 1 else "s", ", ".join(safe(i.top, 120) for _, i in others[:3])))


def worktrees_missing_adapters(record, places):
    """[(worktree top, problems)] of the worktrees (``places``: [(key, Layout)]) whose adapters,
    as its record (or, with none yet, the main worktree's harnesses) has them, are not all in place."""
    out = []
    for key, where in places:
        rec = worktrees.view(record, key)
        problems = [p for harness in rec.get("harnesses") or []
                    for p in _harness_problems(where.top, harness, rec)
                    if harness not in (rec.get("skipped") or {})]
        if problems:
            out.append((where.top, problems))
    return out


def _harness_problems(top, harness, rec):
    """What is wrong with ``harness``'s adapter in the work tree ``top`` ([] when nothing); ``rec``:
    that worktree's view of the install record."""
    problems: list = []
    recorded = rec.get("adapters") or {}
    for rel, _, _ in adapters.FILES[harness]:
        found = read_contained(top, rel, problems)
        if found is None:
            continue
        data = found[1]
        if data is None:
            problems.append("%s is missing" % rel)
        elif rel in recorded and sha256_bytes(data) != recorded[rel]:
            problems.append("%s was modified" % rel)
    if harness in settingsfile.SETTINGS:
        rel = settingsplan.recorded_rel(rec, harness)
        path, data = read_contained(top, rel, problems) or (None, None)
        missing = settingsfile.missing_events(data, harness)
        if missing:
            problems.append("%s does not hold agentguard's %s hook as install wrote it"
                            % (rel, "/".join(missing)))
        else:
            problems += registry.HARNESSES[harness].problems(top, path, settingsfile.placed_groups(data, harness))
    else:
        problems += registry.HARNESSES[harness].problems(top, None, [])
    return problems


def _repair_worktrees(doctor):
    """Write the adapters again in every other worktree missing them (as post-checkout would)."""
    from ...setup.install import apply_install, plan_install
    record = manifest.load(doctor.info.ag_home) or {}
    found, _ = worktrees.live(doctor.info)
    others = [(k, i) for k, i in found.items() if i.top != doctor.info.top]
    for top, _ in worktrees_missing_adapters(record, others):
        key = next(k for k, i in others if i.top == top)
        try:
            apply_install(plan_install(top, policy=manifest.recorded_policy(record),
                                       harnesses=worktrees.view(record, key).get("harnesses")))
            doctor.notes.append("wrote the harness adapters again in the worktree %s" % safe(top, 200))
        except (AgentguardError, OSError) as exc:
            doctor.notes.append("could not repair the worktree %s: %s (agentguard install %s)"
                                % (safe(top, 200), safe(str(exc), 200), safe(top, 200)))


WORKTREES = Repair("worktrees", 1, _repair_worktrees)
