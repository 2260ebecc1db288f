"""``agentguard uninstall``: take out what install wrote (``install``) and put back what was there,
one worktree at a time; with no readable record, what is recognisably agentguard's (``recognised``)."""
import os
import shutil

from ...hooks import grant
from ...hooks.policy import POLICY_FILE, TEMPLATE_MARK
from ...hooks.textsafe import safe
from ..harness import registry, settingsplan
from . import gitexclude, manifest, pushguard, worktrees
from ..errors import AgentguardError
from ..fsops import InstallLock, UserFilesLock, contained, file_mode, parents, read_contained, read_regular, \
    remove_stale_temps, sha256_bytes
from .hookscripts import CHAINED_SUFFIX, HOOK_NAMES, is_ours
from ..gitaccess.repo import discover
from ..gitaccess import gitoptions
from ..harness import hookcommand
from ...hooks.outcome.store import DIR as OUTCOME_DIR
from .install import agentguard_bin, write_dirs
from .runtime_files import RUNTIME_DIR


def uninstall(path):
    """Remove what install wrote and put back what was there. Returns (info, done, warnings); ``done``
    is empty when nothing of agentguard's was there.

    The push guard goes first: whatever happens after, git keeps pushing. With no readable record,
    what is recognisably agentguard's goes (``recognised``), and the warnings name what is left."""
    info = discover(path)
    home = info.ag_home
    existed = os.path.isdir(home)
    done, warnings = [], []
    with InstallLock(home) as lock:
        record, problem = manifest.read(home)
        if problem == "missing" and os.path.isfile(os.path.join(home, TEMPLATE_MARK)):
            problem = None  # made from agentguard's git template: no install has recorded anything yet
        record = record or {}
        for directory in write_dirs(info, worktrees.view(record, worktrees.key_of(info))):
            remove_stale_temps(directory)
        pushguard.uninstall(info, record, done, warnings)
        for hook in HOOK_NAMES:
            uninstall_hook(info, hook, manifest.accepted(record, "hooks", hook), done, warnings)
            _missing_chained(info, record, hook, warnings)
        left = []
        for place in worktrees.places(info, record) if record else _recognised_places(info, warnings, left):
            _uninstall_worktree(info, place, done, warnings)
        gitexclude.uninstall(info, record, done, warnings)
        _remove_runtime(info, done)
        if problem and (done or left or problem != "missing"):
            warnings.insert(0, "the record of what install wrote (%s) is %s: uninstall took out what is recognisably "
                            "agentguard's; %s" % (info.display(os.path.join(home, manifest.NAME)), problem,
                                                  "could not restore, so left in place: %s; remove by hand what you "
                                                  "do not want" % safe_list(left) if left else
                                                  "nothing of it is left"))
        if not existed and not done:
            lock.remove()  # only the lock this run made: leave no trace where nothing was installed
    return info, done, warnings


def _recognised_places(info, warnings, left):
    """A Place for every work tree git lists, with what is recognisably agentguard's there as its
    record; ``left`` gets what looks like agentguard's but cannot be told from the user's edits."""
    from . import recognised
    found, _ = worktrees.live(info)
    out = []
    for key in sorted(found, key=lambda k: (k is None, k or "")):  # linked ones first, as places() orders them
        where = found[key]
        record, unsure = recognised.worktree_record(where, agentguard_bin(), warnings)
        prefix = "" if where.top == info.top else "%s: " % safe(where.top, 300)
        left.extend(prefix + item for item in unsure)
        out.append(worktrees.Place(key, where, record, where.top))
    return out


def _remove_runtime(info, done):
    """The runtime copy, the after-check's store, the snapshots and launchers in ``<common dir>/agentguard``."""
    home = info.ag_home
    found = False
    # the break-glass grants too: an unspent grant must not outlive the install it was made for
    for name in (RUNTIME_DIR, OUTCOME_DIR, grant.DIR):
        found = os.path.lexists(os.path.join(home, name)) or found
        shutil.rmtree(os.path.join(home, name), ignore_errors=True)
    # TEMPLATE_MARK: a repository made from agentguard's git template carries it from birth
    for name in (POLICY_FILE, gitoptions.TABLE_FILE, manifest.NAME, "check", hookcommand.HOOK_FILE,
                 TEMPLATE_MARK):
        try:
            os.unlink(os.path.join(home, name))
            found = True
        except FileNotFoundError:
            pass
    if found:
        done.append("removed the runtime copy, the policy snapshot and the record from %s" % info.display(home))


def _uninstall_worktree(info, place, done, warnings):
    """Take out what install wrote in one worktree (``place``); of a worktree that is gone, only
    its Codex trust entries (outside it) are left to take out, and its record goes."""
    here = place.info is not None and place.info.top == info.top
    mine_done: list = []
    mine_warnings: list = []
    if place.info is not None:
        for directory in write_dirs(place.info, place.record):
            remove_stale_temps(directory)
        _uninstall_adapters(place.info, place.record, mine_done, mine_warnings)
        settingsplan.uninstall_settings(place.info, place.record, mine_done, mine_warnings)
        _remove_created_dirs(place.info, place.record)
    elif place.key is not None:
        mine_done.append("dropped the record of the worktree %s, which no longer exists" % safe(place.shown, 300))
    else:
        mine_warnings.append("the main worktree is not where git lists it; its adapter files are left in place")
    with UserFilesLock():  # a user-level file other repositories' installs write too (install --all)
        for harness in registry.HARNESSES.values():  # outside the work tree: for a worktree that is gone too
            harness.steps.uninstall_outside(place.record, mine_done, mine_warnings)
    prefix = "" if here or place.info is None else "%s: " % safe(place.shown, 300)
    done.extend(prefix + line for line in mine_done)
    warnings.extend(prefix + line for line in mine_warnings)


def uninstall_hook(info, hook, recorded, done, warnings):
    target = os.path.join(info.hooks_dir, hook)
    chained = target + CHAINED_SUFFIX
    legacy = target + ".legacy"  # where `pre-commit install` moves a hook it finds
    for place in (target, legacy):
        try:
            data = read_regular(place)
        except AgentguardError as exc:
            warnings.append(str(exc))
            continue
        if data is None or not is_ours(data):
            continue
        if recorded and sha256_bytes(data) not in recorded:
            kept = ("; your earlier %s hook is in %s" % (hook, info.display(chained))
                    if os.path.lexists(chained) else "")
            warnings.append("%s changed since install; left in place (remove it yourself if it is no longer "
                            "wanted)%s" % (info.display(place), kept))
            return
        if os.path.lexists(chained):
            os.replace(chained, place)
            done.append("restored %s" % info.display(place))
        else:
            os.unlink(place)
            done.append("removed %s" % info.display(place))
        return
    if os.path.lexists(chained):
        if _same_file_content(target, chained):
            # install was stopped after keeping a copy of this hook and before replacing it
            os.unlink(chained)
            done.append("removed %s (a copy of %s)" % (info.display(chained), info.display(target)))
            return
        warnings.append("%s is not agentguard's; your earlier %s hook stays in %s"
                        % (info.display(target), hook, info.display(chained)))


def _missing_chained(info, record, hook, warnings):
    """Say so when the record has install keeping the user's ``hook`` aside and that copy is gone."""
    entry = (record.get("hooks") or {}).get(hook)
    target = os.path.join(info.hooks_dir, hook)
    if isinstance(entry, dict) and entry.get("chained") and not os.path.lexists(target) \
            and not os.path.lexists(target + CHAINED_SUFFIX):
        warnings.append("your earlier %s hook, which install kept as %s, is gone; it could not be restored"
                        % (hook, info.display(target + CHAINED_SUFFIX)))


def _same_file_content(a, b):
    try:
        data = read_regular(a)
        return data is not None and data == read_regular(b) and file_mode(a) == file_mode(b)
    except AgentguardError:
        return False


def _uninstall_adapters(info, record, done, warnings):
    for rel in sorted(record.get("adapters") or {}):
        found = read_contained(info.top, rel, warnings)
        if found is None:
            continue
        path, data = found
        if data is None:
            continue
        if sha256_bytes(data) not in manifest.accepted(record, "adapters", rel):
            warnings.append("%s changed since install; left in place" % rel)
            continue
        os.unlink(path)
        done.append("removed %s" % rel)
    for harness in registry.HARNESSES.values():  # the merges into other work-tree files
        harness.steps.uninstall(info, record, done, warnings)


def _remove_created_dirs(info, record):
    created = record.get("created_dirs")
    if created is None:  # a manifest from before install recorded them: every adapter directory
        created = {d for rel in record.get("adapters") or {} for d in parents(rel)}
    for rel in sorted(created, key=lambda r: (r.count("/"), r), reverse=True):
        _remove_empty_dir(info, rel)


def _remove_empty_dir(info, rel):
    """Remove a directory install created, if it is empty (our own __pycache__ aside)."""
    try:
        path = contained(info.top, rel)
    except AgentguardError:
        return
    if os.path.islink(path) or not os.path.isdir(path):
        return
    cache = os.path.join(path, "__pycache__")
    if os.path.isdir(cache) and not os.path.islink(cache):
        shutil.rmtree(cache, ignore_errors=True)
    try:
        os.rmdir(path)
    except OSError:
        pass  # not empty: something of the user's is in it


def safe_list(items):
    return ", ".join(safe(i, 80) for i in items)
