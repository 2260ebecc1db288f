"""Audit log: the refusals recorded, and the break-glass grants a person made (information only)."""
from ....hooks import audit
from ....hooks.textsafe import safe


def check_audit(ctx):
    entries = [e for e in audit.read(ctx.info.ag_home) if not str(e.get("rule")).startswith("break-glass-")]
    if not entries:
        ctx.add("audit.recent", "pass", "no refusals recorded")
        return
    by_hook = {}
    for e in entries:
        by_hook[str(e.get("hook"))] = by_hook.get(str(e.get("hook")), 0) + 1
    last = ["%s %s %s (%s)" % (safe(e.get("time"), 30), safe(e.get("hook"), 30), safe(e.get("rule"), 40),
                               safe(e.get("command"), 80)) for e in entries[-3:]]
    ctx.add("audit.recent", "pass", "%d refusals (%s); last: %s"
            % (len(entries), ", ".join("%s %d" % (safe(k, 30), v) for k, v in sorted(by_hook.items())),
               " | ".join(last)))


def check_grants(ctx):
    """The break-glass grants a person made (``agentguard allow``) that are usable now: information."""
    from ...allow import describe
    lines = describe(ctx.info.ag_home)
    uses = [e for e in audit.read(ctx.info.ag_home) if e.get("rule") == "break-glass-use"]
    last = "; last used %s by %s (%s)" % (safe(uses[-1].get("time"), 30), safe(uses[-1].get("hook"), 30),
                                          safe(uses[-1].get("command"), 80)) if uses else ""
    if lines:
        ctx.add("audit.grants", "pass", "break-glass: %s (agentguard allow --revoke <branch> takes one back)%s"
                % ("; ".join(lines), last))
    else:
        ctx.add("audit.grants", "pass", "no break-glass grant is usable now%s" % last)


