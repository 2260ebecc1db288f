"""What install and the doctor know about one harness (``Install``). Each check of whether the
harness will load agentguard's adapter answers (status, summary, the one command or setting that
makes it so)."""
import json
import os

from ...hooks.guardpaths import inside
from ..fsops import read_regular


class Settings:
    """The settings file a harness's hook entries are merged into: ``rel`` (in the work tree, the one
    a team commits), ``local`` (the git-ignored one, where the harness has one), ``pre`` (the pre-call
    event; the post-call ones are the runtime protocol's), ``entry(timeout)`` (a hook entry without its
    command), ``pre_keys()`` (more keys of the pre-call entry, decided when install or the doctor runs:
    what the harness's installed version takes). The matcher is the protocol's ``matched`` tools, ``a|b``;
    ``anchored``: ``^(a|b)$``, for a harness that reads the matcher as an unanchored regular expression.
    ``also_pre``: more pre-call events (the same check). ``flat``: the harness lists the entries themselves
    under each event, with no matcher group around them; ``entry(timeout)`` then gives each event's keys (a
    matcher among them). ``defaults``: the keys a file install creates starts with: what the harness needs
    (``{"version": 1}``) or stamps into a settings file that lacks them each time it starts (so it leaves
    the file as written); uninstall removes a file it created that holds nothing else. ``events_key``: the
    key of the object that holds the events (None: a hooks file whose top level is that object)."""

    def __init__(self, rel, pre, entry, local=None, pre_keys=dict, also_pre=(), flat=False, defaults=None,
                 anchored=False, events_key="hooks"):
        self.rel, self.pre, self.entry, self.local, self.pre_keys = rel, pre, entry, local, pre_keys
        self.also_pre, self.flat, self.defaults = also_pre, flat, defaults or {}
        self.anchored, self.events_key = anchored, events_key

    def matcher(self, tools):
        alternatives = "|".join(tools)
        return "^(%s)$" % alternatives if self.anchored else alternatives


def loads(ctx):
    """A harness that needs nothing to load agentguard's adapter."""
    return ("pass", "", None)


def no_problems(top, path, placed):
    return []


class Steps:
    """A harness's own install steps beyond its adapter files and its settings merge, each writing
    the record keys in ``Install.records``. The shared install, uninstall and ``recognised`` steps
    call them for every harness (what they need from the shared modules comes as parameters, so a
    harness module imports none of them back). The defaults do nothing."""

    def plan_merge(self, step):
        """Before the settings merge, for a chosen harness: plan a merge into a work-tree file;
        {record key: record}."""
        return {}

    def plan_after_settings(self, step):
        """After the settings merge, for a chosen harness: plan what depends on it (``step.settings``
        is the settings record, ``step.skipped`` the harnesses left out); {record key: record}."""
        return {}

    def created(self, record):
        """The work-tree files ``record`` (one worktree's) says install created."""
        return []

    def outside_dirs(self, record):
        """The directories outside the work tree ``record`` says install writes into."""
        return []

    def uninstall(self, info, record, done, warnings):
        """Undo this harness's merges in the work tree ``info`` (after its adapter files went)."""

    def uninstall_outside(self, record, done, warnings):
        """Undo what install wrote outside the work tree (also for a worktree that is gone)."""

    def recognise(self, info, record, left, warnings):
        """With no install record: add to ``record`` what in the work tree ``info`` is recognisably
        this harness's merge; ``left`` gets what cannot be told from the user's edits."""

    def recognise_settings(self, path, data, record, left, placed_groups):
        """With no install record, for this harness's settings file ``path`` holding our groups
        (``data``; ``placed_groups`` is ``settingsfile.placed_groups``): add what else is recognisably
        agentguard's to ``record``."""


class PlanStep:
    """What a harness's plan steps get: the work tree ``info``, the ``previous`` record (this
    worktree's view), ``want(target, data, mode)``, ``tracked`` (the merged files git tracks, empty
    with ``shared``), ``settings`` and ``skipped`` (after the settings merge), and settingsfile's
    ``merge_settings`` and ``placed_groups``."""

    def __init__(self, info, previous, want, tracked, merge_settings, placed_groups):
        self.info, self.previous, self.want, self.tracked = info, previous, want, tracked
        self.merge_settings, self.placed_groups = merge_settings, placed_groups
        self.settings: dict = {}
        self.skipped: dict = {}


class Install:
    """One harness, as install and the doctor know it.

    ``files``: [(path in the work tree, template under templates/adapters or a function giving the
    bytes, mode)] of the adapter files install writes. ``settings``: a ``Settings`` (None: no settings
    file). ``enabled(ctx)``: will the harness load the adapter here. ``problems(top, path, placed)``: what
    else is wrong with its adapter in the work tree ``top`` (``path``: its settings file, ``placed``: our
    hooks in it, ``harnesses.placed_groups``; None and [] without one). ``merged``: other files in the work
    tree install merges into. ``records``: the install record's keys of one worktree its ``steps`` (a
    ``Steps``) write."""

    def __init__(self, name, files=(), settings=None, enabled=loads, problems=no_problems, merged=(), records=(),
                 steps=None):
        self.name, self.files, self.settings = name, list(files), settings
        self.enabled, self.problems = enabled, problems
        self.merged, self.records = merged, records
        self.steps = steps or Steps()


def json_object(path):
    """The JSON object in ``path`` (whole-line ``//`` comments allowed, as Copilot CLI writes its
    config.json and Gemini CLI accepts), or None."""
    try:
        data = read_regular(path, limit=4 << 20)
        if data is None:
            return None
        text = "\n".join(line for line in data.decode("utf-8").splitlines() if not line.lstrip().startswith("//"))
        value = json.loads(text)
    except Exception:
        return None
    return value if isinstance(value, dict) else None


def disabling(paths):
    """The file of ``paths`` (highest precedence first) whose ``disableAllHooks`` decides, when it
    switches hooks off: the first one that sets the key at all wins."""
    for path in paths:
        value = (json_object(path) or {}).get("disableAllHooks")
        if value is not None:
            return path if value is True else None
    return None


def under(path, root):
    return inside(os.path.realpath(path), os.path.realpath(root))


def home_path(*parts):
    return os.path.join(os.path.expanduser("~"), *parts)


def read_text(path):
    try:
        with open(path, "rb") as fh:
            return fh.read(1 << 20).decode("utf-8", "replace")
    except OSError:
        return ""
