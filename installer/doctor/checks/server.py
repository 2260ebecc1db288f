"""The server doctor's checks (``agentguard doctor --server BARE_REPO``), per group in
``SERVER_GROUPS``, over a ``ServerContext``: the install record, where git reads hooks
(core.hooksPath), the hook (present, executable: git skips a hook that is not, with only a warning
to the pusher; unmodified), the chained hook, the runtime copy, the server policy, and live probes:
the installed hook run as receive-pack runs it (in the repository, the probe's objects in a
temporary object directory as in receive-pack's quarantine) on made-up input. Nothing in the
repository changes: no ref is written, the probes' objects are thrown away and their lines are cut
from the audit log again. A person mends what they find (``install --server`` again): no repairs."""
import os

from ....hooks import audit
from ....hooks.gitmodel.refnames import ZERO_OID
from ....hooks.policy import PolicyError
from ....hooks.server import identity, serverpolicy
from ....hooks.textsafe import safe
from ...setup import manifest
from .. import probes
from ...errors import AgentguardError
from ...fsops import read_regular, sha256_bytes
from ...setup.hookscripts import CHAINED_SUFFIX, is_ours
from ...setup.server import HOOK, discover_bare, fix_command, hook_file, is_dispatcher
from .base import Results
from .runtime import runtime_check


class ServerContext(Results):
    """What the server's checks read, and where they record what they found."""

    def __init__(self, info, live):
        super().__init__()
        self.info = info  # server.discover_bare's Layout
        self.live = live  # False: no probes
        self.fix = fix_command(info)  # what mends every failure: install --server again
        self.record = manifest.load(info.ag_home) or {}
        self.installed = True  # False: no server install record, so nothing else is checked
        self.hook_path = None  # set by check_location
        self.runs = False  # set by check_hook: git runs the hook
        self.server = None  # the server policy, set by check_policy


def check_manifest(ctx):
    if not ctx.record or not ctx.record.get("server"):
        ctx.add("install.manifest", "fail", "agentguard's server guard is not installed here (no record in %s)"
                % ctx.info.display(os.path.join(ctx.info.ag_home, manifest.NAME)), ctx.fix)
        ctx.installed = False
    elif manifest.interrupted(ctx.record):
        ctx.add("install.manifest", "fail", "the last install --server was interrupted", ctx.fix)
    else:
        ctx.add("install.manifest", "pass", "installed by agentguard %s" % safe(ctx.record.get("version"), 40))


def check_location(ctx):
    """Where git reads hooks now (core.hooksPath) is where install put agentguard's; sets ``ctx.hook_path``."""
    hook = hook_file(ctx.record)
    recorded = ctx.record.get("hooks_dir")
    try:
        now = discover_bare(ctx.info.top).hooks_dir
    except AgentguardError as exc:
        ctx.add("hooks.location", "fail", str(exc), ctx.fix)
        ctx.hook_path = os.path.join(recorded or ctx.info.hooks_dir, hook)
        return
    if recorded and now != recorded:
        ctx.add("hooks.location", "fail", "git reads hooks from %s (core.hooksPath), not from %s where "
                 "agentguard's hook is: pushes skip it" % (ctx.info.display(now), ctx.info.display(recorded)),
                 "git -C %s config --unset core.hooksPath   # or: %s" % (ctx.info.top, ctx.fix))
    else:
        ctx.add("hooks.location", "pass", "git reads hooks from %s" % ctx.info.display(now))
    ctx.hook_path = os.path.join(now, hook)

def _check_dispatcher(ctx, path):
    """For a hook in pre-receive.d: the dispatcher that runs it is still there."""
    hooks_dir = os.path.dirname(os.path.dirname(path))
    where = ctx.info.display(os.path.join(hooks_dir, HOOK))
    if is_dispatcher(hooks_dir) and os.access(os.path.join(hooks_dir, HOOK), os.X_OK):
        ctx.add("hooks.dispatcher", "pass", "%s runs the programs in %s.d, agentguard's among them"
                 % (where, HOOK))
        return True
    ctx.add("hooks.dispatcher", "fail", "%s no longer runs the programs in %s.d: agentguard's hook there is not "
             "run" % (where, HOOK), "let Gitea/Forgejo resynchronise its hooks (site administration), then: "
             + ctx.fix)
    return False

def check_hook(ctx):
    """The hook: present, agentguard's, executable, unmodified, with the hook it chained; sets
    ``ctx.runs``: True when git runs it."""
    ctx.runs = _check_hook(ctx, ctx.hook_path, (ctx.record.get("hooks") or {}).get(HOOK) or {})


def _check_hook(ctx, path, rec):
    """True when git runs the hook (present, agentguard's, executable)."""
    cid = "hooks.pre-receive"
    if os.path.basename(os.path.dirname(path)).endswith(".d") and not _check_dispatcher(ctx, path):
        return False
    where = ctx.info.display(path)
    try:
        data = read_regular(path)
    except AgentguardError as exc:
        ctx.add(cid, "fail", str(exc), ctx.fix)
        return False
    runs = False
    if data is None:
        ctx.add(cid, "fail", "%s is missing: pushes are not checked" % where, ctx.fix)
    elif not is_ours(data):
        ctx.add(cid, "fail", "%s is not agentguard's hook (something replaced it)" % where,
                 ctx.fix + "   # chains the new hook and puts agentguard's back")
    elif not os.access(path, os.X_OK):
        ctx.add(cid, "fail", "%s is not executable: git skips it (with only a hint to the pusher) and "
                 "every push lands" % where, "chmod +x %s   # or: %s" % (path, ctx.fix))
    elif rec.get("sha256") and sha256_bytes(data) != rec["sha256"]:
        ctx.add(cid, "fail", "%s differs from what agentguard install wrote" % where, ctx.fix)
        runs = True
    else:
        ctx.add(cid, "pass", "%s is in place, executable and unmodified" % where)
        runs = True
    if rec.get("chained"):
        chained = path + CHAINED_SUFFIX
        if not os.path.lexists(chained):
            ctx.add(cid + ".chained", "fail", "your own pre-receive hook, chained at install, is gone from %s"
                     % ctx.info.display(chained), "restore it there, or: %s" % ctx.fix)
        else:
            ok = os.access(chained, os.X_OK)
            ctx.add(cid + ".chained", "pass" if ok else "warn", "your own pre-receive hook runs after "
                     "agentguard's (%s)%s" % (ctx.info.display(chained),
                                              "" if ok else ", but it is not executable"))
    return runs

def check_runtime(ctx):
    runtime_check(ctx.info, ctx.record, ctx.add, ctx.fix)

def check_policy(ctx):
    """The server policy parses and is what install recorded; sets ``ctx.server``."""
    ctx.server = _server_policy(ctx)


def _server_policy(ctx):
    try:
        server = serverpolicy.load(ctx.info.ag_home)
    except PolicyError as exc:
        ctx.add("policy.snapshot", "fail", str(exc), ctx.fix)
        return None
    if server.to_json() != ctx.record.get("server_policy"):
        ctx.add("policy.snapshot", "fail", "the server policy differs from what install recorded (edited by "
                 "hand?)", ctx.fix)
    else:
        ctx.add("policy.snapshot", "pass", "protected: %s (%s); allowed pushers: %s"
                 % (", ".join(server.policy.branches), server.policy.source, ", ".join(server.pushers) or "nobody"))
    return server

def check_probes(ctx):
    """The installed hook, run as receive-pack runs it on made-up input, refuses and accepts as the
    policy says; nothing in the repository changes."""
    if not ctx.live:
        ctx.add("probe.skipped", "warn", "live probes skipped", "agentguard doctor --server %s" % ctx.info.top)
    elif ctx.server is not None:
        _probe(ctx, ctx.hook_path, ctx.runs, ctx.server)


def _probe(ctx, hook_path, runs, server):
    branch = probes.protected_probe_name(server.policy)
    if branch is None:
        ctx.add("probe.pre-receive", "warn", "no branch name to probe the policy with")
        return
    guard = probes.AuditGuard(os.path.join(ctx.info.ag_home, audit.LOG_NAME))
    box = probes.Sandbox(ctx.info)
    for var in identity.SOURCES:
        box.env.pop(var, None)
    results = []
    try:
        commit = box.probe_commit()
        tip = _tip(ctx, box, branch)
        if commit is None:
            results.append(probes.ProbeResult(False, "could not make a probe commit"))
        elif not runs:
            results.append(probes.ProbeResult(False, "git would not run the hook, so a push to %s by anyone "
                                               "lands" % branch))
        else:
            zero = ZERO_OID if len(commit) == 40 else "0" * len(commit)
            update = "%s %s refs/heads/%s\n" % (tip or zero, commit, branch)
            results.append(_run(ctx, box, hook_path, update, box.env, "server-push-protected",
                                     "an update of %s by no known pusher" % branch))
            harmless = "%s %s refs/heads/%s-%d\n" % (zero, commit, probes.PROBE_PREFIX, os.getpid())
            results.append(_run(ctx, box, hook_path, harmless, box.env, None, "a new feature branch"))
            if server.pushers and tip:
                env = dict(box.env, AGENTGUARD_PUSHER=server.pushers[0])
                child = _child(ctx, box, tip)
                if child:
                    results.append(_run(ctx, box, hook_path, "%s %s refs/heads/%s\n" % (tip, child, branch), env,
                                             None, "a fast-forward of %s by %s" % (branch, server.pushers[0])))
                results.append(_run(ctx, box, hook_path, update, env, "server-rewrite-protected",
                                         "a rewrite of %s by %s" % (branch, server.pushers[0])))
        markers = [m for m in (box.commit,) if m]
    finally:
        box.close()
    guard.restore(markers)
    bad = [r for r in results if not r.ok]
    ctx.add("probe.pre-receive", "fail" if bad else "pass", "; ".join(r.detail for r in results),
             ctx.fix if bad else None)

def _run(ctx, box, hook_path, stdin, env, rule, what):
    path, note = (hook_path, "") if rule else probes.own_copy(box, hook_path)
    rc, _, err = probes.run([path], ctx.info.top, env, stdin.encode())
    result = probes.judge(rc, err, bool(rule), what + note)
    if result.ok and rule and ("[rule: %s]" % rule).encode() not in err:
        return probes.ProbeResult(False, "%s: refused, but not by rule %s" % (what, rule))
    return result

def _tip(ctx, box, branch):
    rc, out, _ = probes.run(["git", "rev-parse", "-q", "--verify", "refs/heads/%s^{commit}" % branch],
                             ctx.info.top, box.env)
    return out.decode().strip() if rc == 0 else None

def _child(ctx, box, tip):
    """A commit on top of ``tip``, in the probe's temporary object directory."""
    rc, out, _ = probes.run(["git", "commit-tree", tip + "^{tree}", "-p", tip, "-m", "agentguard doctor probe"],
                             ctx.info.top, box.env)
    return out.decode().strip() if rc == 0 else None


SERVER_GROUPS = [
    ("install", [check_manifest]),
    ("hooks", [check_location, check_hook]),
    ("runtime", [check_runtime]),
    ("policy", [check_policy]),
    ("probe", [check_probes]),
]
