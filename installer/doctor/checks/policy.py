"""The policy in force: the snapshot parses and is what install recorded, it matches the
configuration (``.agentguard.toml`` or the default), and the remotes protected branches follow are
those install recorded. Sets ``ctx.policy`` for the groups after it."""
from ....hooks.policy import PolicyError, load_policy
from ....hooks.textsafe import safe
from ...committedconfig import configured_remotes, effective_policy, remote_changes
from ...errors import AgentguardError
from ...setup.manifest import recorded_policy
from ...gitaccess.repo import remote_head_branches
from .base import FIX_ALL, REINSTALL


def check_policy_snapshot(ctx):
    """The snapshot in force parses and is what install recorded; sets ``ctx.policy``."""
    try:
        ctx.policy = load_policy(ctx.info.ag_home)
    except PolicyError as exc:
        ctx.add("policy.snapshot", "fail", str(exc), FIX_ALL if ctx.record else "agentguard install", repair=REINSTALL)
        ctx.policy = recorded_policy(ctx.record)
        return
    ctx.add("policy.snapshot", "pass", "protected: %s (from %s)" % (", ".join(ctx.policy.branches), ctx.policy.source))
    rec = recorded_policy(ctx.record)
    if rec is not None and rec.to_json() != ctx.policy.to_json():
        ctx.add("policy.recorded", "fail", "the policy snapshot differs from what install recorded "
                "(edited by hand?)", FIX_ALL, repair=REINSTALL)


def check_policy_config(ctx):
    """Drift between ``.agentguard.toml`` (or the default) and the snapshot in force, both ways."""
    try:
        wanted, _ = effective_policy(ctx.info, None, remote_head_branches(ctx.info, [(r, t) for r, _, t in ctx.refs()]))
    except AgentguardError as exc:
        ctx.add("policy.config", "fail", str(exc), "fix .agentguard.toml, then: agentguard install")
        return
    policy = ctx.policy
    if policy is None:
        return
    if wanted.branches != policy.branches:
        ctx.add("policy.config", "warn", "drift: %s says protect %s, the snapshot in force protects %s"
                % (wanted.source, ", ".join(wanted.branches), ", ".join(policy.branches)),
                "agentguard install   # applies %s" % wanted.source)
    elif policy.source == "--protect":
        ctx.add("policy.config", "pass", "the snapshot comes from --protect at install")
    else:
        ctx.add("policy.config", "pass", "the snapshot matches %s" % wanted.source)


def check_remotes(ctx):
    """The remotes protected branches follow, as recorded at install, against those configured now."""
    if ctx.policy is None or ctx.record is None:
        return
    recorded = ctx.policy.remotes
    now = remotes_now(ctx)
    if recorded is None:
        if now:  # installed before the first remote was added (a new project), or by an old version
            ctx.add("policy.remotes", "warn", "install recorded no remote, so protected branches follow every remote "
                    "configured now (%s), one added or re-pointed later too" % ", ".join(safe(n, 60) for n in now),
                    "agentguard install   # records the remotes protected branches follow")
        else:
            ctx.add("policy.remotes", "pass", "no remote yet: protected branches will follow the remotes added "
                    "until agentguard install records them")
        return
    changes = remote_changes(recorded, now)
    if not changes:
        ctx.add("policy.remotes", "pass", "protected branches follow %s, as recorded at install"
                % ", ".join(safe(n, 60) for n in recorded))
        return
    moved = any(n in now and now[n] != url for n, url in recorded.items())
    ctx.add("policy.remotes", "fail" if moved else "warn", "remotes changed since install: %s; protected branches "
            "follow only a remote recorded at install, fetching from where it did then" % "; ".join(changes),
            "git remote -v   # check each URL is the repository you mean; then: agentguard install")


def remotes_now(ctx):
    """{name: fetch URL} of the remotes the repository's config has now, asked once per run."""
    return ctx.memo("remotes-now", lambda: configured_remotes(ctx.info, ctx.git)[0])
