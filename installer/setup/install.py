"""``agentguard install``: plan, then apply under a lock (``uninstall`` takes it out again). A
harness's own steps beyond its adapter files and settings merge are its descriptor's (``Steps``)."""
import os
import shutil
import stat
import sys
from dataclasses import dataclass, field

from ...hooks.policy import POLICY_FILE, Policy, PolicyError, load_policy
from ...hooks.guardpaths import inside
from ...hooks.textsafe import safe
from ...hooks.version import VERSION
from ..harness.descriptor import PlanStep
from ..harness.settingsfile import detected, merge_settings, placed_groups
from ..harness import adapters, registry, settingsplan
from . import gitexclude, manifest, pushguard, worktrees
from ..gitaccess.programs import program_settings
from ..committedconfig import configured_remotes, effective_policy, remote_changes
from ..errors import AgentguardError
from ..fsops import (InstallLock, UserFilesLock, contained, copy_exact, file_mode, lock_generation, parents,
                     read_regular, remove_stale_temps, sha256_bytes)
from .hookscripts import CHAINED_SUFFIX, HOOK_NAMES, is_ours, is_posix_sh, render, tools
from ..gitaccess.repo import discover, heads_and_refs
from ..gitaccess import gitoptions
from ..harness import hookcommand
from .runtime_files import RUNTIME_DIR, prime as prime_runtime, runtime_files, write_runtime

HOOK_MODE = 0o755


@dataclass
class Action:
    kind: str  # "write", "remove" or "chain"
    path: str
    data: bytes = b""
    mode: int = 0o644
    note: str = ""


@dataclass
class Plan:
    info: object
    policy: object
    actions: list = field(default_factory=list)
    warnings: list = field(default_factory=list)
    record: dict = field(default_factory=dict)
    request: tuple = ()  # plan_install's arguments, to plan again under the lock
    previous: dict = field(default_factory=dict)  # the manifest found when planning ({} if none)
    worktree: object = None  # worktrees.key_of(info): None for the main worktree
    generation: object = None  # fsops.lock_generation when planning began


def prime():
    """What the installs of one ``install --all`` share, made once before its workers fork: git's
    option table (~150 git processes) and the compiled runtime."""
    gitoptions.table_bytes()
    prime_runtime()


def interpreter():
    """The Python the hooks run: this one, resolved (a pyenv shim costs ~150 ms a call)."""
    return os.path.realpath(sys.executable)


def plan_install(path, protect=None, policy=None, harnesses=None, transport=None, shared=None):
    """What install would write. ``policy`` (a Policy) skips reading the config: the doctor's
    --fix restores the policy install recorded rather than whatever the work tree says now.
    ``harnesses``: the adapters to write (None: all; [] for --no-adapters). ``transport``: the push
    guard in git's transport (None: as the last install had it, on for a first one). ``shared``: write
    the adapters where a team commits them, with no exclude block (None: as the last install had it).

    In a linked worktree the backstop is the one shared by every worktree: without ``--protect``
    the policy is the one recorded (a worktree's checkout does not re-decide it), and this
    worktree's adapter files are recorded apart from the other worktrees' (``worktrees``)."""
    info = discover(path)
    _check_hooks_dir(info)
    generation = lock_generation(info.ag_home)  # first: whatever is read after it, a change since shows
    full = manifest.load(info.ag_home) or {}
    key = worktrees.key_of(info)
    previous = worktrees.view(full, key)  # the shared keys and this worktree's own
    if harnesses is None and full and not worktrees.has_record(full, key):
        harnesses = previous["harnesses"]  # a new worktree: what the others have (post-checkout's call)
    harnesses = default_harnesses(info, previous) if harnesses is None else list(harnesses)
    warnings = []
    if policy is None and not protect and key is not None:
        policy = manifest.recorded_policy(full)
    if policy is None:
        policy, warnings = _policy_now(info, protect)
    if transport is None:
        transport = previous.get("transport", True) is not False
    if shared is None:
        shared = previous.get("shared") is True
    plan = Plan(info, policy, warnings=list(warnings), request=(path, protect, policy, harnesses, transport, shared),
                previous=full, worktree=key, generation=generation)
    python = interpreter()
    home = info.ag_home
    want, owned = wanting(plan)
    runtime_record = want_runtime(want, home)
    want(os.path.join(home, POLICY_FILE), policy.dumps().encode())
    want(os.path.join(home, gitoptions.TABLE_FILE), gitoptions.table_bytes())

    hooks_record = {}
    for hook in HOOK_NAMES:
        script, chained = plan_hook(plan, hook, python)
        target = os.path.join(info.hooks_dir, hook)
        note = "chains the hook that was here (now %s)" % info.display(target + CHAINED_SUFFIX) if chained else ""
        want(target, script, HOOK_MODE, note)
        hooks_record[hook] = {"sha256": sha256_bytes(script), "chained": chained}
    want(os.path.join(home, "check"), adapters.check_launcher(python), HOOK_MODE)
    want(os.path.join(home, hookcommand.HOOK_FILE), hookcommand.hook_script().encode(), HOOK_MODE)
    adapter_record = _plan_adapters(plan, harnesses, want, previous.get("adapters") or {})
    # the harnesses' own steps (a merge into another work-tree file, what depends on the settings merge)
    step = PlanStep(info, previous, want, set() if shared else gitexclude.tracked(info, list(registry.merged_files())),
                    merge_settings, placed_groups)
    steps = [registry.HARNESSES[name].steps for name in harnesses if name in registry.HARNESSES]
    harness_records = dict.fromkeys(registry.record_keys())
    for harness_steps in steps:
        harness_records.update(harness_steps.plan_merge(step))
    settings_record, skipped = settingsplan.plan_settings(info, harnesses, previous, want, shared, changing(plan))
    step.settings, step.skipped = settings_record, skipped
    for harness_steps in steps:
        harness_records.update(harness_steps.plan_after_settings(step))
    plan.warnings += ["%s; %s" % settingsplan.left_alone(harness, rel) for harness, rel in sorted(skipped.items())]
    if transport:
        want(os.path.join(home, pushguard.LAUNCHER_NAME), pushguard.launcher(python, policy=policy), HOOK_MODE)
    guard_record = pushguard.plan(info, previous, want, transport)
    local = {"version": VERSION, "python": python, "tools": tools(), "hooks_dir": info.hooks_dir, "hooks": hooks_record,
             "policy": policy.to_json(), "runtime": runtime_record, "harnesses": harnesses,
             "adapters": adapter_record, "settings": settings_record, **harness_records,
             "transport": bool(transport), "push_guard": guard_record,
             "created_dirs": _created_dirs(info, previous, list(adapter_record) + list(settings_record)),
             "skipped": skipped, "shared": bool(shared), "programs": program_settings(info.top)}
    plan.record = worktrees.merge(local, full, key, info.top, owned)
    plan.record["exclude"] = gitexclude.plan(info, previous.get("exclude"), [] if shared else
                                             _excluded(info, plan.record), changing(plan))
    if plan.actions or plan.previous != dict(plan.record, format=manifest.FORMAT):
        plan.actions.append(Action("write", os.path.join(home, manifest.NAME), note="manifest"))
    return plan


def changing(plan):
    """``change(target, data)``: plan a write of a file install does not own (None: its removal)."""
    def change(target, data):
        if data is None:
            plan.actions.append(Action("remove", target))
        else:
            plan.actions.append(Action("write", target, data, file_mode(target) if os.path.lexists(target) else 0o644))
    return change


def _excluded(info, record):
    """The work-tree files install created, in every worktree it recorded, that git does not track
    here: what the exclude block lists."""
    rels = set()
    for rec in [record] + [v for v in (record.get(worktrees.MAP) or {}).values() if isinstance(v, dict)]:
        rels.update(r for r in rec.get("adapters") or {} if isinstance(r, str))
        rels.update(r for r, s in (rec.get("settings") or {}).items()
                    if isinstance(s, dict) and s.get("original") is None)
        for harness in registry.HARNESSES.values():
            rels.update(harness.steps.created(rec))
    return sorted(rels - gitexclude.tracked(info, sorted(rels)))


def wanting(plan):
    """(want, owned): ``want(target, data, mode, note)`` records a file install owns whole and plans
    its write when the file differs; ``owned`` is that record ({path: [sha256, mode]})."""
    owned = {}

    def want(target, data, mode=0o644, note=""):
        owned[target] = [sha256_bytes(data), mode]
        if read_regular(target) != data or file_mode(target) != mode:
            plan.actions.append(Action("write", target, data, mode, note))
    return want, owned


def want_runtime(want, home):
    """Plan the runtime copy under ``home``; its record {relative path: sha256}."""
    record = {}
    for rel, data in runtime_files().items():
        want(os.path.join(home, RUNTIME_DIR, rel), data)
        record[rel] = sha256_bytes(data)
    return record


def default_harnesses(info, previous):
    """A plain install: the three plugin adapters (small folders a harness loads only when it runs
    here), every settings-file harness in use here (its folder in the repository, its user-level
    configuration or its binary on PATH), and whatever the last install set up."""
    chosen = list(adapters.PLUGIN_HARNESSES) + detected(info.top)
    chosen += [h for h in previous.get("harnesses") or [] if h in adapters.HARNESSES]
    return [h for h in adapters.HARNESSES if h in chosen]  # one order, however they were found


def _policy_now(info, protect):
    """The policy to record: the configured branches, and the remotes as configured now (with a
    warning for each remote that differs from the snapshot in force)."""
    configured, warnings = effective_policy(info, protect, *heads_and_refs(info))
    remotes, more = configured_remotes(info)
    try:
        before = load_policy(info.ag_home).remotes
    except PolicyError:
        before = remotes  # a first install (or a broken snapshot, which this one replaces): nothing to compare
    names = ", ".join(safe(n, 60) for n in remotes) or "none"
    if before is None:
        warnings.append("protected branches now follow only the remotes recorded now (%s); until this install any "
                        "remote's tracking refs counted" % names)
    elif before != remotes:
        warnings.append("the remotes changed since the last install: %s; protected branches follow them as they "
                        "are now (%s): make sure each is the repository you mean"
                        % ("; ".join(remote_changes(before, remotes)), names))
    return Policy(configured.branches, configured.source, remotes), warnings + more


def agentguard_bin():
    """The agentguard command, for the gptme completion verifier (it runs the doctor) and the
    post-checkout hook (it runs install in a new worktree)."""
    argv0 = os.path.realpath(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    if os.path.basename(argv0) == "agentguard" and os.access(argv0, os.X_OK):
        return argv0
    return shutil.which("agentguard") or "agentguard"


def _check_hooks_dir(info):
    from ...hooks.guardpaths import inside
    if not (inside(info.hooks_dir, info.top) or inside(info.hooks_dir, info.common_dir)):
        raise AgentguardError("git reads hooks from %s (core.hooksPath), outside this repository; agentguard "
                              "will not write there. Unset core.hooksPath or point it inside the repository"
                              % safe(info.hooks_dir, 200))


def _plan_adapters(plan, harnesses, want, recorded):
    """The adapter files; ``recorded``: those the last install wrote here (rewritten whatever they hold now)."""
    info = plan.info
    record = {}
    for rel, data, mode in adapters.files_for(harnesses, agentguard_bin()):
        existing = None if rel in recorded else read_regular(contained(info.top, rel))
        if existing is not None and existing != data and b"agentguard" not in existing.lower():
            # a file of the user's at a name the harness fixes (a hook file named after its event)
            raise AgentguardError("%s already exists and is not agentguard's; move it away (or leave this "
                                  "harness out with --harness)" % rel)
        want(contained(info.top, rel), data, mode)
        record[rel] = sha256_bytes(data)
    return record


def _created_dirs(info, previous, written):
    """The work-tree directories install creates for adapter and settings files (and those an
    earlier install created), so that uninstall removes exactly those, and only when empty."""
    dirs = {d for d in previous.get("created_dirs") or [] if isinstance(d, str)}
    for rel in written:
        for parent in parents(rel):
            if os.path.lexists(contained(info.top, parent)) and parent not in dirs:
                break
            dirs.add(parent)
    return sorted(dirs)


def plan_hook(plan, hook, python):
    info = plan.info
    target = os.path.join(info.hooks_dir, hook)
    chained_path = target + CHAINED_SUFFIX
    existing = read_regular(target)
    chained_data = read_regular(chained_path)
    if existing is None:
        if chained_data is not None:
            plan.warnings.append("%s is left from an earlier install and is not run; remove it or move it "
                                 "back to %s" % (info.display(chained_path), info.display(target)))
        chained = False
    elif is_ours(existing):
        chained = chained_data is not None
    else:
        if chained_data is not None and chained_data != existing:
            raise AgentguardError("%s already exists; move it away so that your current %s hook can be kept "
                                  "there" % (info.display(chained_path), hook))
        if chained_data is None:
            plan.actions.append(Action("chain", chained_path, note=target))
        chained_data = existing
        chained = True
    runs = False
    is_sh = False
    if chained:
        source = target if existing is not None and not is_ours(existing) else chained_path
        runs = bool(file_mode(source) & stat.S_IXUSR)
        is_sh = is_posix_sh(chained_data)
        if not runs:
            plan.warnings.append("the existing %s hook is not executable, so git did not run it; it is kept "
                                 "(and restored on uninstall) but not run" % hook)
    name = hook + CHAINED_SUFFIX if chained and runs else None
    return render(hook, plan.policy, python, name, is_sh, agentguard_bin()), chained


def apply_install(plan):
    """Write the plan. The manifest is written first, marked ``installing`` and accepting what the
    previous install wrote as well, so a kill at any moment leaves a state that a re-run of install
    completes and uninstall understands (every file is written atomically: old or new, never half).
    Returns the plan that was applied."""
    with InstallLock(plan.info.ag_home) as lock:
        # plan again under the lock when another install or uninstall took it since this plan began (each
        # moves the lock's generation forward): a stale "keep the user's hook" step would chain our own
        # hook to itself, and a plan read while another run wrote mixes two states (the manifest alone
        # can read the same after an install and an uninstall). No other run: the plan stands (planning
        # is a third of an install's time).
        if lock.before != plan.generation or (manifest.load(plan.info.ag_home) or {}) != plan.previous:
            plan = plan_install(*plan.request)
        if not _writes_outside(plan):
            return _apply(plan)  # this repository's files alone: installs side by side do not meet
        # a file outside this repository (a user-level file another repository's install, side by side
        # with this one under ``install --all``, may have written since): planned again under that lock
        with UserFilesLock():
            return _apply(plan_install(*plan.request))


def _apply(plan):
    info = plan.info
    if not plan.actions:
        record_outcome_baseline(info)  # a person's re-run accepts the guard's state as it is now (#29)
        return plan
    write_plan(plan, write_dirs(info, worktrees.view(plan.record, plan.worktree)),
               worktrees.intent(plan.record, plan.previous, plan.worktree))
    record_outcome_baseline(info)
    return plan


def _writes_outside(plan):
    """The plan writes or removes a file outside this repository's work tree and git dir (a user-level file)."""
    info = plan.info
    mine = [d for d in (info.top, info.common_dir, info.ag_home) if d]
    return any(not any(inside(a.path, d) for d in mine) for a in plan.actions)


def write_plan(plan, dirs, intent):
    """Carry out ``plan`` under the install lock: stale temp files in ``dirs`` cleared, the
    ``intent`` manifest first, chained hooks copied, every file written atomically and durably
    (``durable.Batch``: synced together), the runtime compiled, the final manifest last."""
    from ...hooks.outcome import snapshot
    home = plan.info.ag_home
    for directory in dirs:
        remove_stale_temps(directory)
    before = snapshot.before_own_writes(home, [a.path for a in plan.actions if a.kind == "write"])
    manifest.save(home, intent)
    for action in plan.actions:
        if action.kind == "chain":
            copy_exact(action.note, action.path)
    write_runtime([(a.path, a.data, a.mode) for a in plan.actions if a.kind == "write" and a.note != "manifest"],
                  os.path.join(home, RUNTIME_DIR))
    for action in plan.actions:
        if action.kind == "remove" and os.path.lexists(action.path):
            os.unlink(action.path)
    manifest.save(home, plan.record)
    snapshot.adopt_own_writes(home, before)  # what agentguard wrote is no tool call's doing


def record_outcome_baseline(info):
    """The after-check's first snapshot: the state install just wrote, its bytes kept to restore."""
    from ...hooks.outcome import snapshot
    try:
        snapshot.record(info.top, fresh=True, where=info)  # install's layout: git is not asked again
    except Exception as exc:  # the install stands; the first `check` records it again
        sys.stderr.write("agentguard: could not record the after-check's snapshot (%s)\n" % safe(str(exc), 200))


def write_dirs(info, record):
    """Every directory install writes into (where a killed install may have left a temp file)."""
    dirs = {info.hooks_dir, info.ag_home, info.top, info.common_dir}  # common dir: the config (push guard)
    runtime = os.path.join(info.ag_home, RUNTIME_DIR)
    for rel in runtime_files():
        dirs.add(os.path.dirname(os.path.join(runtime, rel)))
    for rel in set(record.get("adapters") or {}) | set(record.get("settings") or {}) | set(adapters.ALL_PATHS):
        try:
            dirs.add(os.path.dirname(contained(info.top, rel)))
        except AgentguardError:
            continue
    for harness in registry.HARNESSES.values():
        dirs.update(harness.steps.outside_dirs(record))
    dirs.add(os.path.dirname(gitexclude.path_of(info)))  # the exclude block
    return sorted(dirs)


def describe(plan):
    """Human lines for a plan (used by install and --dry-run)."""
    info = plan.info
    lines = []
    for action in plan.actions:
        if action.kind == "remove":
            lines.append("remove %s" % info.display(action.path))
        elif action.kind == "chain":
            lines.append("keep %s as %s (chained: it still runs)" % (info.display(action.note),
                                                                   info.display(action.path)))
        else:
            extra = " (%s)" % action.note if action.note and action.note != "manifest" else ""
            lines.append("write %s%s" % (info.display(action.path), extra))
    return lines


def summary(plan):
    """The few lines a finished install prints: what is protected and how, which harnesses, the next
    step (``install --verbose`` prints ``describe`` instead: every file)."""
    info, record = plan.info, worktrees.view(plan.record, plan.worktree)
    lines = ["protected branches: %s (%s)" % (", ".join(safe(b, 80) for b in plan.policy.branches), plan.policy.source),
             "git backstop: %d hooks in %s, the runtime in %s" % (len(HOOK_NAMES), info.display(info.hooks_dir),
                                                                   info.display(info.ag_home))]
    lines += [line.replace("keep ", "kept ", 1) for line in describe(plan) if line.startswith("keep ")]
    if record.get("transport"):
        remotes = ", ".join(safe(name, 60) for name in sorted(plan.policy.remotes or {})) or "no remote yet"
        lines.append("push guard: on for %s (in git's transport, which --no-verify cannot skip)" % remotes)
    else:
        lines.append("push guard: off (--no-push-guard)")
    lines.append("harness adapters: %s" % (", ".join(record.get("harnesses") or []) or "none (--no-adapters)"))
    written = sum(1 for action in plan.actions if action.kind == "write")
    lines.append("wrote %d files (agentguard install --verbose lists them)" % written)
    lines.append("next: agentguard doctor   # proves, by experiment, that the protection works here")
    return lines
