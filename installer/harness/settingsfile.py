"""The harnesses whose hook is a command (in a settings file, or in a whole file of ours that runs
it): one hook command for all of them; merging its entries into a settings file the user may already
have, and taking exactly those entries out again; and which harnesses a plain install sets up.

Every harness here runs the same POSIX-sh hook (``templates/adapters/harness-hook.sh``, which install
writes once into ``<git common dir>/agentguard/harness-hook``; a settings entry is one short command
that runs it, and fails closed when it is not there), before each tool call (``check --hook
HARNESS``: blocks with exit 2, since several harnesses take exit 1 as *allow*) and after it, once
per post-call event of the harness (``check --after --hook HARNESS``: undoes what the call did to
the guard and tells the model). Each harness's own facts are in ``hooks/harness/<name>.py`` and
``installer/harness/<name>.py``.
"""
import json
import os
import shutil

from ...hooks.harness.hook import PROTOCOLS
from ...hooks.harness.registry import HARNESSES as RUNTIME
from ...hooks.textsafe import safe
from ..errors import AgentguardError
from . import registry
from .hookcommand import HOOK_TIMEOUT, dump_json, hook_command

SETTINGS_HARNESSES = registry.SETTINGS_HARNESSES
WHOLE_FILE_HARNESSES = registry.WHOLE_FILE_HARNESSES
NAMES = SETTINGS_HARNESSES + WHOLE_FILE_HARNESSES


# -- settings files ---------------------------------------------------------------------------------
# harness -> (path in the work tree, [(hook event, matcher)], the hook's entry without its command).
# The first event runs the check before a tool call; the others (the harness's post-call events,
# from its runtime protocol) the after-check, for the same tools: the protocol's ``matched`` ones.
def _events(spec, harness):
    matcher = spec.matcher(PROTOCOLS[harness].matched)
    return [(event, matcher) for event in (spec.pre,) + tuple(spec.also_pre) + tuple(PROTOCOLS[harness].post)]


SETTINGS = {name: (spec.rel, _events(spec, name), spec.entry(HOOK_TIMEOUT))
            for name, spec in ((name, registry.HARNESSES[name].settings) for name in SETTINGS_HARNESSES)}
SPECS = {name: registry.HARNESSES[name].settings for name in SETTINGS_HARNESSES}


def _hooks(data, harness, create=False):
    """The object in the settings ``data`` that holds ``harness``'s hook events ({} when there is none)."""
    key = SPECS[harness].events_key
    if key is None:
        return data
    return data.setdefault(key, {}) if create else data.get(key, {})


# Where the entry goes when the adapters stay out of git (the default; ``install --shared`` writes
# SETTINGS' paths, for a team to commit): the harness's own local, git-ignored settings where it has
# one. A harness with no such file: where the team tracks theirs, install leaves it alone
# (``settingsplan``).
LOCAL_SETTINGS = {name: registry.HARNESSES[name].settings.local for name in SETTINGS_HARNESSES
                  if registry.HARNESSES[name].settings.local}


def settings_rel(harness, shared=False):
    """The settings file install merges ``harness``'s hook into (``shared``: the one a team commits)."""
    return SETTINGS[harness][0] if shared else LOCAL_SETTINGS.get(harness, SETTINGS[harness][0])


def settings_rels():
    """Every settings file install may merge into, whichever the mode."""
    return tuple(spec[0] for spec in SETTINGS.values()) + tuple(LOCAL_SETTINGS.values())


def events(harness):
    """The hook events agentguard hooks in ``harness``'s settings file, the pre-call one first."""
    return [event for event, _ in SETTINGS[harness][1]]


def _post(harness, event):
    """The event argument of the hook command for ``event`` (None: the pre-call check)."""
    return None if event == SPECS[harness].pre or event in SPECS[harness].also_pre else event


def settings_group(harness, event=None):
    """The matcher group install adds to ``harness``'s settings file for ``event`` (default: the
    pre-call event)."""
    pairs = SETTINGS[harness][1]
    event = event or pairs[0][0]
    matcher = dict(pairs)[event]
    hook = SETTINGS[harness][2]
    if SPECS[harness].flat:  # the entry itself, its own keys (a matcher among them) from ``entry``
        return dict({"command": hook_command(harness, _post(harness, event))}, **hook.get(event, {}))
    entry = {"type": hook["type"], "command": hook_command(harness, _post(harness, event))}
    entry.update(hook)
    if event == pairs[0][0]:
        entry.update(SPECS[harness].pre_keys())
    return {"matcher": matcher, "hooks": [entry]}


def _is_ours(group, harness, event):
    if not isinstance(group, dict):
        return False
    entries = [group] if SPECS[harness].flat else group.get("hooks")
    if not isinstance(entries, list):
        return False
    post = _post(harness, event)
    tail = "' agentguard %s%s" % (harness, " " + post if post else "")
    return any(isinstance(h, dict) and isinstance(h.get("command"), str) and h["command"].endswith(tail)
               and h["command"].startswith("sh -c '") for h in entries)


def _load_settings(original, harness):
    rel = SETTINGS[harness][0]
    if original is None:
        return {}
    try:
        data = json.loads(original.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise AgentguardError("%s is not JSON agentguard can merge into (%s); fix it, or leave this harness out "
                              "with --harness" % (rel, safe(str(exc), 80)))
    if not isinstance(data, dict) or not isinstance(_hooks(data, harness), dict) \
            or not all(isinstance(_hooks(data, harness).get(event, []), list) for event in events(harness)):
        raise AgentguardError("%s has an unexpected shape (hooks is not an object of lists); add agentguard's hook "
                              "by hand or leave this harness out with --harness" % rel)
    return data


def merge_settings(original, harness):
    """``original`` settings bytes (None: no file) with agentguard's hook group in place for each of
    the harness's events: an older agentguard group is replaced where it stands, otherwise the group
    is appended. Every other key, hook and permission stays. Returns the bytes to write
    (``original`` itself when nothing changes)."""
    data = _load_settings(original, harness) if original is not None else dict(SPECS[harness].defaults)
    changed = False
    for event in events(harness):
        groups = _hooks(data, harness, create=True).setdefault(event, [])
        want = settings_group(harness, event)
        at = [i for i, g in enumerate(groups) if _is_ours(g, harness, event)]
        if len(at) == 1 and groups[at[0]] == want:
            continue
        changed = True
        for i in reversed(at[1:]):
            del groups[i]
        if at:
            groups[at[0]] = want
        else:
            groups.append(want)
    return dump_json(data, original) if changed else original


def _created(created, harness, event):
    """Did install create ``event``'s list? (``event`` alone: an install before the after-check, which
    hooked the pre-call event only.)"""
    return "event:" + event in created or (event == events(harness)[0] and "event" in created)


def unmerge_settings(current, harness, created):
    """``current`` without agentguard's groups; ``created`` lists the containers install created
    ("file", "hooks", "event:<event>"), which go again when empty. Returns bytes, or None for no file."""
    data = _load_settings(current, harness)
    hooks = _hooks(data, harness)
    for event in events(harness):
        if event not in hooks:
            continue
        groups = [g for g in hooks[event] if not _is_ours(g, harness, event)]
        if groups or not _created(created, harness, event):
            hooks[event] = groups
        else:
            hooks.pop(event)
    if not hooks and "hooks" in created and SPECS[harness].events_key is not None:
        data.pop(SPECS[harness].events_key, None)
    if "file" in created and all(key in SPECS[harness].defaults for key in data):
        return None
    return dump_json(data, current)


def all_containers(harness):
    """Every container merge_settings may create: the file, the hooks object, each event list."""
    return ["file", "hooks"] + ["event:" + event for event in events(harness)]


def created_containers(original, harness):
    """What merge_settings will create in ``original``: the file, the hooks object, each event list."""
    if original is None:
        return all_containers(harness)
    data = _load_settings(original, harness)
    out = [] if SPECS[harness].events_key in data or SPECS[harness].events_key is None else ["hooks"]
    return out + ["event:" + event for event in events(harness) if event not in _hooks(data, harness)]


def _groups(data_bytes, harness, event):
    """The hook groups of ``event`` in a settings file ([] when unreadable)."""
    try:
        return _hooks(_load_settings(data_bytes, harness), harness).get(event, [])
    except AgentguardError:
        return []


def positions(data_bytes, harness):
    """[(event, (group index, hook index))] of agentguard's hooks in a settings file."""
    out = []
    for event in events(harness):
        at = next((i for i, group in enumerate(_groups(data_bytes, harness, event))
                   if _is_ours(group, harness, event)), None)
        if at is not None:
            out.append((event, (at, 0)))
    return out


def placed_groups(data_bytes, harness):
    """[(event, (group index, hook index), the group as install writes it)] of agentguard's hooks in a
    settings file."""
    return [(event, position, settings_group(harness, event)) for event, position in positions(data_bytes, harness)]


def hooked(data_bytes, harness):
    """True when the settings bytes carry every group install writes (before and after the call)."""
    return not missing_events(data_bytes, harness)


def missing_events(data_bytes, harness):
    """The events whose group, as install writes it, the settings bytes lack."""
    return [event for event in events(harness) if settings_group(harness, event) not in _groups(data_bytes, harness,
                                                                                                 event)]


# -- which harnesses a plain install sets up ------------------------------------------------------
def in_use_signs(harness, top):
    """Where ``harness`` shows it is used here: its folder in the repository, its user-level
    configuration, or its binary (named as the harness is) on PATH. The plugin harnesses, whose
    folders every plain install writes, count only by their configuration or binary."""
    described = RUNTIME[harness]
    found = [rel for rel in described.repo_signs if os.path.lexists(os.path.join(top, rel))]
    found += [path for path in described.user_signs(os.environ) if os.path.lexists(path)]
    if shutil.which(harness):
        found.append("%s on PATH" % harness)
    return found


def detected(top):
    return [h for h in NAMES if in_use_signs(h, top)]
