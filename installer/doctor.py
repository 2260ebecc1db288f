"""``agentguard doctor``: establish by experiment that the protection works; name every gap.

Each check has a stable id and ends as pass, warn or fail, with the exact command that fixes a
problem. Without ``--fix`` nothing in the repository changes (the probes run in a sandbox).

The checks are plain functions ``check_*(ctx)`` listed per group in ``GROUPS`` (below them, above
``Doctor``), run in that order. Each one reads a ``Context`` (the repository, the install record,
the policy in force, whether probes may run) and records its results with ``ctx.add``. Where a
check judges a bypass or a protected branch, it asks the rule the runtime itself decides with
(``hooks/bypass.py`` for aliases and the environment, ``RepoState.on_counterpart`` for "already on
a remote counterpart"), so the analyser, the backstop and the doctor cannot disagree.
"""
import json
import os
import re
import sys
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import Optional

from ..hooks import audit, grant
from ..hooks.gitmodel import procargv
from ..hooks.bypass import alias_skips_hooks, env_skips_hooks
from ..hooks.policy import Policy, PolicyError, load_snapshot
from ..hooks.gitio import GitError, scrubbed_env
from ..hooks.repostate import RepoState
from ..hooks.textsafe import safe
from . import adapters, harnesstrust, settingsplan, worktrees
from . import harnesses as harness_mod
from . import gitoptions
from . import manifest as manifest_mod
from . import probes
from .pushcheck import check_push_guard
from .config import configured_remotes, effective_policy, remote_changes
from .errors import AgentguardError
from .fsops import read_contained, read_regular, sha256_bytes
from .hookscripts import tool_problems
from .gitenv import git, git_ok
from .hookscripts import CHAINED_SUFFIX, HOOK_NAMES, is_ours
from .repo import discover, is_reftable, remote_head_branches
from .runtime_files import RUNTIME_DIR

MIN_GIT = (2, 28)
FIX_ALL = "agentguard doctor --fix"


@dataclass
class Check:
    id: str
    status: str  # pass | warn | fail
    summary: str
    fix: Optional[str] = None

    @property
    def group(self):
        return self.id.split(".", 1)[0]


class Context:
    """What every check reads, and where it records what it found."""

    def __init__(self, info, record, live):
        self.info = info  # hooks.layout.Layout: top, hooks_dir, ag_home, ...
        self.record = record  # the install manifest, or None when agentguard is not installed
        self.live = live  # False: no probes (the doctor runs inside a hook or a probe)
        self.policy = None  # the policy in force, set by the policy group (probes and branches read it)
        self.checks = []
        self._memo = {}

    def add(self, id_, status, summary, fix=None):
        self.checks.append(Check(id_, status, safe(summary, 600), fix))

    def git(self, args, check=False):
        return git(args, cwd=self.info.top, check=check)

    def memo(self, key, fn):
        """``fn()``, asked once per run (for facts two checks share)."""
        if key not in self._memo:
            self._memo[key] = fn()
        return self._memo[key]


# -- git ----------------------------------------------------------------------------------------
def _git_version(ctx):
    return ctx.memo("git --version", lambda: git(["--version"], cwd=ctx.info.top).strip())


def check_version(ctx):
    text = _git_version(ctx)
    match = re.search(r"(\d+)\.(\d+)", text)
    version = tuple(int(x) for x in match.groups()) if match else (0, 0)
    if version < MIN_GIT:
        ctx.add("git.version", "fail", "%s: reference-transaction needs git 2.28 or newer" % text,
                "install git 2.28 or newer")
    else:
        ctx.add("git.version", "pass", text)


def check_ref_storage(ctx):
    if is_reftable(ctx.info):
        ctx.add("git.ref-storage", "warn", "reftable storage: branch renames and copies reach the hook only "
                "as a HEAD line, so `git branch -m/-M/-c/-C` onto a protected name is not stopped by git",
                "use the harness adapters, or the files backend (git refs migrate --ref-format=files)")
    else:
        ctx.add("git.ref-storage", "pass", "files ref storage")


def check_git_options(ctx):
    """The option table install snapshotted (``gitoptions.json``) comes from the git on PATH now."""
    path = os.path.join(ctx.info.ag_home, gitoptions.SNAPSHOT_NAME)
    where = ctx.info.display(path)
    try:
        data = read_regular(path)
    except AgentguardError as exc:
        ctx.add("git.options", "fail", str(exc), "agentguard install")
        return
    if data is None:
        if ctx.record is not None:  # not installed: install.manifest says so
            ctx.add("git.options", "fail", "the snapshot of git's option table (%s) is missing, so the analyser "
                    "reads options with the table agentguard ships" % where, "agentguard install")
        return
    try:
        snapshot = json.loads(data.decode("utf-8"))
        taken = snapshot["git"]
        if not isinstance(taken, str):
            raise TypeError(taken)
    except (UnicodeDecodeError, ValueError, TypeError, KeyError):
        ctx.add("git.options", "fail", "the snapshot of git's option table (%s) cannot be read" % where,
                "agentguard install")
        return
    now = _git_version(ctx)
    if taken.strip() == now:
        ctx.add("git.options", "pass", "option table snapshot taken from the git on PATH (%s)" % now)
    else:
        ctx.add("git.options", "warn", "git was upgraded since install (snapshot: %s, now: %s): option tables may "
                "be stale" % (safe(taken, 100), now), "agentguard install")


def check_caller_argv(ctx):
    """Whether the hooks can read the argv of the git command that runs them on this system."""
    how = procargv.readable()
    if how:
        ctx.add("platform.argv", "pass", "hooks read the calling git command from %s"
                % ("/proc" if how == "proc" else "sysctl (%s)" % sys.platform))
        return
    weaker = "; ".join("[%s] %s" % pair for pair in procargv.WITHOUT_ARGV)
    ctx.add("platform.argv", "warn", "no /proc or sysctl argv here: weaker fallbacks (SECURITY.md): " + weaker,
            "run where /proc is mounted (a container: do not mask /proc), and install the harness adapters")


# -- installation -------------------------------------------------------------------------------
def check_manifest(ctx):
    if ctx.record is None:
        ctx.add("install.manifest", "fail", "agentguard is not installed in this repository "
                "(no %s)" % ctx.info.display(os.path.join(ctx.info.ag_home, manifest_mod.NAME)),
                "agentguard install")
    elif manifest_mod.interrupted(ctx.record):
        ctx.add("install.manifest", "fail", "an install was interrupted before it finished; some files may "
                "still be the old ones", "agentguard install   # completes it")
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
                "agentguard install   # writes the hooks where git reads them now")
    else:
        ctx.add("hooks.location", "pass", "git reads hooks from %s" % info.display(info.hooks_dir))


def check_worktrees(ctx):
    """Every worktree git lists reads the hooks install wrote (a relative core.hooksPath resolves per
    worktree); those that cannot be used now (bare, prunable, gone) are named and skipped."""
    if ctx.record is None:
        return
    bad = []
    found, skipped = _worktrees(ctx)
    for other in found.values():
        if other.top != ctx.info.top and other.hooks_dir != ctx.info.hooks_dir:
            bad.append(other.top)
    note = "; skipped %s" % ", ".join("%s (%s)" % (safe(p, 200), why) for p, why in skipped if why != "bare") \
        if any(why != "bare" for _, why in skipped) else ""
    if bad:
        ctx.add("hooks.worktrees", "fail", "linked worktree %s reads hooks from elsewhere (a relative "
                "core.hooksPath resolves per worktree)%s" % (safe(bad[0], 200), note),
                "agentguard install %s" % safe(bad[0], 200))
    else:
        ctx.add("hooks.worktrees", "pass", "every worktree reads the same hooks (%d worktree%s)%s"
                % (len(found), "" if len(found) == 1 else "s", note))


def _worktrees(ctx):
    """({key: Layout} of the usable worktrees, [(path, why)] of the skipped ones), asked once."""
    return ctx.memo("worktrees", lambda: worktrees.live(ctx.info))


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
        ctx.add(cid, "fail", str(exc), FIX_ALL)
        return
    where = info.display(path)
    if data is not None and not is_ours(data):
        legacy = read_regular(path + ".legacy") if os.path.lexists(path + ".legacy") else None
        if legacy is not None and is_ours(legacy) and b"pre-commit" in data[:2000]:
            data, path, where = legacy, path + ".legacy", where + ".legacy (run by the pre-commit framework)"
        else:
            ctx.add(cid, "fail", "%s is not agentguard's hook (something replaced it)" % where,
                    FIX_ALL + "   # chains the new hook and puts agentguard's back")
            return
    if data is None:
        ctx.add(cid, "fail", "%s is missing" % where, FIX_ALL)
    elif not os.access(path, os.X_OK):
        ctx.add(cid, "fail", "%s is not executable, so git ignores it" % where, FIX_ALL)
    elif rec.get("sha256") and sha256_bytes(data) != rec["sha256"]:
        ctx.add(cid, "fail", "%s differs from what agentguard install wrote" % where, FIX_ALL)
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


# -- runtime ------------------------------------------------------------------------------------
def check_runtime(ctx):
    if ctx.record is None:
        return
    runtime_check(ctx.info, ctx.record, ctx.add, FIX_ALL)


def runtime_check(info, record, add, fix_):
    """The runtime copy install recorded, byte for byte, and the Python that runs it (this doctor's and
    the server's)."""
    home = os.path.join(info.ag_home, RUNTIME_DIR)
    problems = []
    for rel, digest in sorted((record.get("runtime") or {}).items()):
        try:
            data = read_regular(os.path.join(home, rel))
        except AgentguardError:
            data = None
        if data is None:
            problems.append("%s is missing" % rel)
        elif sha256_bytes(data) != digest:
            problems.append("%s was modified" % rel)
    hook = os.path.join(info.ag_home, harness_mod.HOOK_FILE)  # what every settings entry runs
    owned = (record.get("owned") or {}).get(hook)
    if isinstance(owned, list) and owned:
        try:
            data = read_regular(hook)
        except AgentguardError:
            data = None
        if data is None or sha256_bytes(data) != owned[0]:
            problems.append("%s is %s" % (info.display(hook), "missing" if data is None else "modified"))
    python = record.get("python") or ""
    if not (python and os.path.isfile(python) and os.access(python, os.X_OK)):
        problems.append("the Python the hooks run (%s) is gone" % safe(python, 200))
    problems += [safe(p, 300) for p in tool_problems(record.get("tools"))]
    if problems:
        add("runtime.files", "fail", "runtime in %s: %s" % (info.display(home), "; ".join(problems[:3])), fix_)
    else:
        add("runtime.files", "pass", "runtime copy intact; hooks run %s -I -S -B" % safe(python, 200))


# -- policy -------------------------------------------------------------------------------------
def check_policy_snapshot(ctx):
    """The snapshot in force parses and is what install recorded; sets ``ctx.policy``."""
    try:
        ctx.policy = load_snapshot(ctx.info.ag_home)
    except PolicyError as exc:
        ctx.add("policy.snapshot", "fail", str(exc), FIX_ALL if ctx.record else "agentguard install")
        ctx.policy = recorded_policy(ctx.record)
        return
    ctx.add("policy.snapshot", "pass", "protected: %s (from %s)" % (", ".join(ctx.policy.branches), ctx.policy.source))
    rec = recorded_policy(ctx.record)
    if rec is not None and rec.to_json() != ctx.policy.to_json():
        ctx.add("policy.recorded", "fail", "the policy snapshot differs from what install recorded "
                "(edited by hand?)", FIX_ALL)


def check_policy_config(ctx):
    """Drift between ``.agentguard.toml`` (or the default) and the snapshot in force, both ways."""
    try:
        wanted, _ = effective_policy(ctx.info, None, remote_head_branches(ctx.info))
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
    now, _ = configured_remotes(ctx.info)
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


# -- live probes --------------------------------------------------------------------------------
def check_probes(ctx):
    """The real hooks, run as git runs them in a sandbox, refuse a protected ref and accept a harmless one."""
    if not ctx.live:
        ctx.add("probe.skipped", "warn", "live probes skipped (the doctor runs inside a hook or a probe)",
                "agentguard doctor")
        return
    policy = ctx.policy or Policy(["main", "master"])
    branch = probes.protected_probe_name(policy)
    if branch is None:
        ctx.add("probe.reference-transaction", "warn", "no branch name to probe the policy with")
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
            from .pushcheck import probe_push_guard
            results.append(("probe.push-guard", *probe_push_guard(ctx, box, branch, harmless)))
        markers = [m for m in (box.commit, "doctor") if m]
    finally:
        box.close()
    guard.restore(markers)
    for cid, refuse, accept in results:
        bad = [r for r in (refuse, accept) if r is not None and not r.ok]
        detail = "; ".join(r.detail for r in (refuse, accept) if r is not None)
        ctx.add(cid, "fail" if bad else "pass", detail, FIX_ALL if bad else None)


# -- bypass set-ups -----------------------------------------------------------------------------
def check_aliases(ctx):
    """Aliases the analyser would block (``hooks/bypass.alias_skips_hooks``)."""
    risky = []
    for item in ctx.git(["config", "-z", "--get-regexp", r"^alias\."]).split("\0"):
        key, _, value = item.partition("\n")
        if key and alias_skips_hooks(value):
            risky.append(key)
    if risky:
        ctx.add("bypass.aliases", "fail", "aliases that skip or redirect hooks: %s"
                % ", ".join(safe(k, 60) for k in risky[:5]), "git config --unset %s" % safe(risky[0], 60))
    else:
        ctx.add("bypass.aliases", "pass", "no alias skips or redirects hooks")


def check_env(ctx):
    """This shell's environment, judged by the analyser's rule (``hooks/bypass.env_skips_hooks``)."""
    env = os.environ
    names = [k for k in env if k.startswith("GIT_CONFIG_") and k != "GIT_CONFIG_NOSYSTEM"]
    found = {k: env_skips_hooks(k, env[k]) for k in env}
    hooks = [k for k, r in found.items() if r and r[0] == "hooks-path"]
    husky = [k for k, r in found.items() if r and r[1] == "HUSKY=0"]
    if hooks:
        ctx.add("bypass.env", "fail", "%s in this environment redirects git's hooks" % ", ".join(hooks[:3]),
                "unset %s" % " ".join(hooks[:3]))
    elif husky:
        ctx.add("bypass.env", "warn", "HUSKY=0 is set: husky's hooks are off (agentguard's still run)",
                "unset HUSKY")
    elif names:
        ctx.add("bypass.env", "warn", "%s set in this environment" % ", ".join(names[:3]),
                "unset %s" % " ".join(names[:3]))
    else:
        ctx.add("bypass.env", "pass", "no GIT_CONFIG_* or HUSKY=0 in this environment")


def check_hooks_path(ctx):
    scoped = ctx.git(["config", "--show-scope", "--get-all", "core.hooksPath"])
    foreign = [line for line in scoped.splitlines() if line.split("\t", 1)[0] in ("global", "system")]
    if foreign:
        scope, _, value = foreign[0].partition("\t")
        ctx.add("bypass.hooks-path", "warn", "core.hooksPath is set in %s config (%s): every repository "
                "depends on it" % (scope, safe(value, 200)),
                "git config --%s --unset core.hooksPath   # then: agentguard install" % scope)
    else:
        ctx.add("bypass.hooks-path", "pass", "no global or system core.hooksPath")


def check_includes(ctx):
    """Config files the repository's own config includes: what they say can switch hooks off later,
    and nothing in .git/config shows it (user- and system-level hooksPath: ``bypass.hooks-path``)."""
    found = ctx.git(["config", "--show-scope", "--get-regexp", r"^include(if\..*)?\.path$"])
    local = [line.split("\t", 1)[1] for line in found.splitlines() if line.startswith("local\t")]
    if local:
        key, _, path = local[0].partition(" ")
        ctx.add("bypass.include", "warn", "the repository's config includes %s (%s): a file outside .git/config "
                "that can switch hooks off" % (safe(path, 200), safe(key, 100)),
                "git config --local --unset-all %s   # if you did not add it" % safe(key, 100))
    else:
        ctx.add("bypass.include", "pass", "the repository's config includes no other file")


def check_config_hooks(ctx):
    hooks_cfg = ctx.git(["config", "--get-regexp", r"^hook\..*\.(command|event)$"])
    if hooks_cfg.strip():
        ctx.add("bypass.config-hooks", "warn", "hooks are also defined in config (git 2.54+ runs them in "
                "addition): %s" % safe(hooks_cfg.splitlines()[0], 200), "git config --get-regexp '^hook\\.'")


def check_template_dir(ctx):
    """init.templateDir: agentguard's own template (``install --template``) passes when it is what
    this agentguard would write now; any other template gives new clones its hooks, not agentguard's."""
    from .template import expand, read_mark, template_problem
    template = ctx.git(["config", "--get", "init.templateDir"])
    if not template.strip():
        return
    path = expand(template)
    if read_mark(path) is None:
        ctx.add("bypass.template-dir", "warn", "init.templateDir=%s: new clones get those hooks, not "
                "agentguard's" % safe(template, 200), "agentguard install   # in each new clone")
        return
    problem = template_problem(path)
    if problem:
        ctx.add("bypass.template-dir", "warn", problem + ": new repositories get its old hooks",
                "agentguard install --template   # rewrites it")
    else:
        ctx.add("bypass.template-dir", "pass", "init.templateDir is agentguard's template (%s): every new git init "
                "and git clone starts guarded" % safe(path, 200))


# -- protected branches -------------------------------------------------------------------------
@contextmanager
def _clean_git_env():
    """``RepoState`` runs git with this process's environment; the doctor's must not name another
    repository (``GIT_DIR``, ``GIT_OBJECT_DIRECTORY``, ...), as ``gitenv.clean_env`` ensures for the rest."""
    saved = {k: os.environ.pop(k) for k in os.environ.keys() - scrubbed_env().keys()}
    try:
        yield
    finally:
        os.environ.update(saved)


def _protected_branches(ctx):
    """({protected local branch: oid}, {protected branch: {remote: oid of its tracking ref}})."""
    def read():
        out = git(["for-each-ref", "--format=%(refname)%00%(objectname)", "refs/heads/", "refs/remotes/"],
                  cwd=ctx.info.top)
        local, tracking = {}, {}
        for line in out.splitlines():
            ref, _, oid = line.partition("\0")
            kind = ctx.policy.classify(ref)
            if kind and kind[0] == "local":
                local[kind[1]] = oid
            elif kind and kind[0] == "remote":
                tracking.setdefault(kind[2], {})[kind[1]] = oid
        return local, tracking
    return ctx.memo("protected-branches", read)


def _ask(ctx, question):
    """``question(state)``: the runtime's own answer (a ``RepoState``), in the doctor's clean environment."""
    state = ctx.memo("state", lambda: RepoState.of(ctx.info))
    try:
        with _clean_git_env():
            return question(state)
    except GitError as exc:
        raise AgentguardError(str(exc))


def _followed(ctx):
    """{protected branch: {remote: tracking oid}} of the remotes protected branches follow now."""
    _, tracking = _protected_branches(ctx)
    return ctx.memo("followed", lambda: _ask(ctx, lambda state: {
        b: {r: oid for r, oid in refs.items() if state.follows(r)} for b, refs in tracking.items()}))


def check_ahead(ctx):
    """A protected branch whose commit is not on a remote counterpart: what the backstop refuses to
    create (``RepoState.on_counterpart``), left behind by a bypass."""
    if ctx.policy is None:
        return
    local, _ = _protected_branches(ctx)
    followed = _followed(ctx)
    ahead = _ask(ctx, lambda state: [b for b, oid in sorted(local.items())
                                     if followed.get(b) and not state.on_counterpart(oid, b)
                                     and not grant.moved_by_grant(ctx.info.ag_home, b, oid)])
    if ahead:
        b = safe(ahead[0], 80)
        r = safe(sorted(followed[ahead[0]])[0], 60)
        ctx.add("branches.ahead", "fail", "protected branch %s holds commits its remote counterpart does not "
                "have (left by `git branch -C`, a hand-written ref or an earlier bypass)"
                % ", ".join(safe(a, 80) for a in ahead),
                "agentguard doctor --fix   # or by hand: git branch <new-branch> %s && git switch -C %s %s/%s"
                % (b, b, r, b))
    else:
        ctx.add("branches.ahead", "pass", "no protected branch holds local-only commits")


def check_counterpart(ctx):
    if ctx.policy is None:
        return
    local, tracking = _protected_branches(ctx)
    followed = _followed(ctx)
    alone = [b for b in sorted(local) if not followed.get(b)]
    if not alone or not ctx.git(["remote"]).strip():
        return
    others = sorted({r for b in alone for r in tracking.get(b, {})})
    names = ", ".join(safe(a, 80) for a in alone)
    if others:
        ctx.add("branches.counterpart", "warn", "protected branch %s has remote-tracking refs only of remotes it "
                "does not follow (%s: added, renamed or re-pointed since install), so it cannot move"
                % (names, ", ".join(safe(r, 60) for r in others)),
                "git remote -v   # check the URLs; then: agentguard install")
    else:
        ctx.add("branches.counterpart", "warn", "protected branch %s has no remote-tracking counterpart, so "
                "it cannot move at all" % names, "git fetch")


def check_tracking(ctx):
    """Each followed remote's tracking ref of a protected branch holds only what that remote's branch
    has (``git ls-remote``): one forged through a hole would let the branch move onto anything."""
    if ctx.policy is None or not ctx.live:
        return
    by_remote: dict = {}
    for branch, refs in _followed(ctx).items():
        for remote, oid in refs.items():
            by_remote.setdefault(remote, {})[branch] = oid
    if not by_remote:
        return
    bad, unsure = [], []
    for remote, refs in sorted(by_remote.items()):
        real = _ask(ctx, lambda state: state.remote_heads(remote, sorted(refs)))
        if real is None:
            unsure.append(("could not ask %s (git ls-remote failed or did not answer in time)" % safe(remote, 60),
                           None))
            continue
        for branch, oid in sorted(refs.items()):
            found = _judge_tracking(ctx, remote, branch, oid, real.get(branch))
            if found:
                (bad if found[0] == "fail" else unsure).append(found[1:])
    worst = bad or unsure
    if worst:
        ctx.add("branches.tracking", "fail" if bad else "warn", "; ".join(w[0] for w in worst[:3]),
                next((w[1] for w in worst if w[1]), "git fetch   # then: agentguard doctor"))
    else:
        ctx.add("branches.tracking", "pass", "the remote-tracking refs of protected branches hold what their remotes "
                "have (%s, asked with git ls-remote)" % ", ".join(safe(r, 60) for r in sorted(by_remote)))


def _judge_tracking(ctx, remote, branch, oid, real):
    """None when ``refs/remotes/<remote>/<branch>`` at ``oid`` is the remote's ``real`` tip or behind
    it; else (status, summary, fix)."""
    r, b, ref = safe(remote, 60), safe(branch, 80), safe("refs/remotes/%s/%s" % (remote, branch), 200)
    if oid == real:
        return None
    if real is None:
        return ("fail", "%s has no branch %s, yet %s points at %s" % (r, b, ref, oid), "git fetch --prune %s" % r)
    if not git_ok(["cat-file", "-e", real + "^{commit}"], cwd=ctx.info.top):
        return ("warn", "%s's %s is at %s, not fetched yet, so %s cannot be judged" % (r, b, real, ref),
                "git fetch %s   # then: agentguard doctor" % r)
    if _ask(ctx, lambda state: state.is_ancestor(oid, real)):
        return None  # behind: the remote moved on since the last fetch
    return ("fail", "%s points at %s, which %s's %s (%s) does not contain: it was not written by a fetch from %s"
            % (ref, oid, r, b, real, r), "git fetch %s '+refs/heads/%s:%s'   # resets it to the remote's %s"
            % (r, b, ref, b))


# -- harness adapters ---------------------------------------------------------------------------
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
            ctx.add("adapters." + harness, "warn", said, how)
            continue
        problems = _harness_problems(ctx.info.top, harness, own)
        if problems:
            ctx.add("adapters." + harness, "fail", "; ".join(problems[:3]), FIX_ALL)
        else:
            ctx.add("adapters." + harness, "pass", "%s adapter in place and unmodified" % harness)
        status, summary, fix_ = ENABLED[harness](ctx)
        if status == "warn" and not harness_mod.in_use_signs(harness, ctx.info.top):
            # a harness nobody runs here (pi, Hermes, gptme: a plain install writes their adapters for
            # everyone): what it would need is said, not warned about
            status, fix_ = "pass", None
            summary = "%s is not in use here (no user configuration, not on PATH); once it is: %s" % (harness, summary)
        ctx.add("adapters.%s.enabled" % harness, status, summary, fix_)
    others = [(k, i) for k, i in _worktrees(ctx)[0].items() if i.top != ctx.info.top]
    if not others:
        return
    missing = worktrees_missing_adapters(ctx.record, others)
    if missing:
        top, problems = missing[0]
        more = " (and %d more worktree%s)" % (len(missing) - 1, "" if len(missing) == 2 else "s") \
            if len(missing) > 1 else ""
        ctx.add("adapters.worktrees", "fail", "worktree %s: %s%s" % (safe(top, 200), "; ".join(problems[:2]), more),
                "agentguard install %s   # or: agentguard doctor --fix" % safe(top, 200))
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
    if harness in harness_mod.SETTINGS:
        rel = settingsplan.recorded_rel(rec, harness)
        path, data = read_contained(top, rel, problems) or (None, None)
        missing = harness_mod.missing_events(data, harness)
        if missing:
            problems.append("%s does not hold agentguard's %s hook as install wrote it"
                            % (rel, "/".join(missing)))
        elif harness == "codex":
            untrusted = harnesstrust.codex_hook_untrusted(path, data)
            if untrusted:
                problems.append(untrusted)
    if harness == "gptme":
        toml = read_regular(os.path.join(top, adapters.GPTME_TOML))
        if toml is None or not adapters.gptme_enabled(toml):
            problems.append("gptme.toml does not enable the plugin ([plugins] paths and enabled)")
        script = os.path.join(top, ".gptme", "verify-completion.sh")
        if os.path.exists(script) and not os.access(script, os.X_OK):
            problems.append(".gptme/verify-completion.sh is not executable (gptme skips it)")
    return problems


def _enabled_pi(ctx):
    settings = read_regular(os.path.join(ctx.info.top, ".pi", "settings.json"))
    if settings is not None:
        try:
            data = json.loads(settings.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            data = {}
        listed = data.get("extensions") if isinstance(data, dict) else None
        if isinstance(listed, list) and any(str(x).lstrip("!").startswith("agentguard") and str(x).startswith("!")
                                            for x in listed):
            return ("fail", ".pi/settings.json switches the agentguard extension off",
                    "remove \"!agentguard.ts\" from extensions in .pi/settings.json")
    return ("pass", "pi loads .pi/extensions/agentguard.ts when started in this directory (pi 1.x: only "
            "once the project is trusted: pi --approve, or defaultProjectTrust: \"always\")", None)


def _enabled_hermes(ctx):
    home = os.environ.get("HERMES_HOME") or os.path.expanduser("~/.hermes")
    env_on = os.environ.get("HERMES_ENABLE_PROJECT_PLUGINS") == "1"
    dotenv = _read_text(os.path.join(home, ".env"))
    env_on = env_on or bool(re.search(r"^\s*(export\s+)?HERMES_ENABLE_PROJECT_PLUGINS\s*=\s*['\"]?1", dotenv, re.M))
    config = _read_text(os.path.join(home, "config.yaml"))
    listed = bool(re.search(r"enabled:[^\n]*agentguard|enabled:\s*\n(\s+-\s*\S+\s*\n)*\s+-\s*['\"]?agentguard", config))
    if env_on and listed:
        return ("pass", "Hermes loads the agentguard plugin (project plugins on, listed in plugins.enabled)", None)
    missing = []
    if not env_on:
        missing.append("HERMES_ENABLE_PROJECT_PLUGINS=1 (environment or %s/.env)" % home)
    if not listed:
        missing.append("agentguard in plugins.enabled of %s/config.yaml" % home)
    return ("warn", "Hermes will not load the plugin without %s" % " and ".join(missing),
            "echo HERMES_ENABLE_PROJECT_PLUGINS=1 >> %s/.env; add 'plugins: {enabled: [agentguard]}' to "
            "%s/config.yaml" % (home, home))


def _enabled_gptme(ctx):
    if os.environ.get("GPTME_VERIFY_COMPLETION"):
        return ("warn", "GPTME_VERIFY_COMPLETION is set, so gptme runs it instead of "
                ".gptme/verify-completion.sh", "unset GPTME_VERIFY_COMPLETION")
    return ("pass", "gptme loads the plugin from gptme.toml and verifies completion with "
            ".gptme/verify-completion.sh", None)


ENABLED = dict({"pi": _enabled_pi, "hermes": _enabled_hermes, "gptme": _enabled_gptme}, **harnesstrust.ENABLED)


# -- audit log ----------------------------------------------------------------------------------
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
    from .allow import describe
    lines = describe(ctx.info.ag_home)
    uses = [e for e in audit.read(ctx.info.ag_home) if e.get("rule") == "break-glass-use"]
    last = "; last used %s by %s (%s)" % (safe(uses[-1].get("time"), 30), safe(uses[-1].get("hook"), 30),
                                          safe(uses[-1].get("command"), 80)) if uses else ""
    if lines:
        ctx.add("audit.grants", "pass", "break-glass: %s (agentguard allow --revoke <branch> takes one back)%s"
                % ("; ".join(lines), last))
    else:
        ctx.add("audit.grants", "pass", "no break-glass grant is usable now%s" % last)


# -- the checks, per group, in the order they run (and are printed) ------------------------------
GROUPS = [
    ("git", [check_version, check_ref_storage, check_git_options]),
    ("platform", [check_caller_argv]),
    ("install", [check_manifest]),
    ("hooks", [check_hooks_location, check_worktrees, check_hook_files]),
    ("runtime", [check_runtime]),
    ("policy", [check_policy_snapshot, check_policy_config, check_remotes]),
    ("push", [check_push_guard]),
    ("probe", [check_probes]),
    ("bypass", [check_aliases, check_env, check_hooks_path, check_includes, check_config_hooks, check_template_dir]),
    ("branches", [check_ahead, check_counterpart, check_tracking]),
    ("adapters", [check_adapters]),
    ("audit", [check_audit, check_grants]),
]


class Doctor:
    def __init__(self, path):
        self.info = discover(path)
        self.checks = []
        self.record = manifest_mod.load(self.info.ag_home)
        self.policy = None
        self.live = True
        self.notes = []  # what --fix did besides rewriting install's files

    def run(self, live=True):
        """All checks; ``live=False`` skips the probes (for callers that run inside a hook)."""
        self.live = live and os.environ.get(probes.NESTED) != "1"
        self.record = manifest_mod.load(self.info.ag_home)
        ctx = Context(self.info, self.record, self.live)
        self.checks = ctx.checks
        for _, checks in GROUPS:
            for check in checks:
                check(ctx)
        self.policy = ctx.policy
        return self.checks

    def ok(self):
        return not any(c.status == "fail" for c in self.checks)

    def to_json(self):
        out = {"ok": self.ok(), "checks": [asdict(c) for c in self.checks]}
        if self.notes:
            out["fixed"] = list(self.notes)
        return out


def _read_text(path):
    try:
        with open(path, "rb") as fh:
            return fh.read(1 << 20).decode("utf-8", "replace")
    except OSError:
        return ""


recorded_policy = manifest_mod.recorded_policy

FIXABLE = ("install.manifest", "hooks.", "runtime.", "policy.snapshot", "policy.recorded", "probe.", "adapters.",
           "git.options", "push.")


def fix(doctor):
    """Repair what install owns, with the policy install recorded (never the work tree's word), and
    move a protected branch holding local-only commits back to its remote counterpart, its commits
    kept on a rescue branch (``doctor.notes`` says what happened). Returns the install plan applied
    ([] when none was needed)."""
    from .install import apply_install, plan_install
    plan = []
    if any(c.status != "pass" and c.id.startswith(FIXABLE) and not c.id.endswith((".chained", ".enabled"))
           and c.id != "adapters.worktrees" for c in doctor.checks):
        harnesses = worktrees.view(doctor.record, worktrees.key_of(doctor.info)).get("harnesses")
        plan = plan_install(doctor.info.top, policy=recorded_policy(doctor.record), harnesses=harnesses)
        plan = apply_install(plan)
    if any(c.id == "adapters.worktrees" and c.status == "fail" for c in doctor.checks):
        doctor.notes.extend(_fix_worktrees(doctor))
    if any(c.id == "branches.ahead" and c.status == "fail" for c in doctor.checks):
        doctor.notes.extend(rescue_branches(doctor.info.top))
    return plan


def _fix_worktrees(doctor):
    """Write the adapters again in every other worktree missing them (as post-checkout would)."""
    from .install import apply_install, plan_install
    record = manifest_mod.load(doctor.info.ag_home) or {}
    found, _ = worktrees.live(doctor.info)
    others = [(k, i) for k, i in found.items() if i.top != doctor.info.top]
    notes = []
    for top, _ in worktrees_missing_adapters(record, others):
        key = next(k for k, i in others if i.top == top)
        try:
            apply_install(plan_install(top, policy=recorded_policy(record),
                                       harnesses=worktrees.view(record, key).get("harnesses")))
            notes.append("wrote the harness adapters again in the worktree %s" % safe(top, 200))
        except (AgentguardError, OSError) as exc:
            notes.append("could not repair the worktree %s: %s (agentguard install %s)"
                         % (safe(top, 200), safe(str(exc), 200), safe(top, 200)))
    return notes


def rescue_branches(top):
    """The after-check's rescue, for people: [one line per branch moved back, or not]."""
    from ..hooks.outcome import refs, snapshot
    from ..hooks.outcome.report import Report
    from ..hooks.repostate import RepoState
    where = snapshot.locate(top)
    policy = snapshot.policy_of(where) if where is not None else None
    if policy is None:
        return ["no protected branch was moved: the policy snapshot cannot be read (agentguard install)"]
    report = Report()
    refs.rescue_local_only(where, snapshot.read_git(where)[1], policy, RepoState.of(where),
                           report)
    return [u["what"] for u in report.undone] + ["could not: " + f for f in report.failed]
