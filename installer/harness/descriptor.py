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
    command). The matcher is the protocol's ``matched`` tools."""

    def __init__(self, rel, pre, entry, local=None):
        self.rel, self.pre, self.entry, self.local = rel, pre, entry, local


def loads(ctx):
    """A harness that needs nothing to load agentguard's adapter."""
    return ("pass", "", None)


def no_problems(top, path, placed):
    return []


class Install:
    """One harness, as install and the doctor know it.

    ``files``: [(path in the work tree, template under templates/adapters or a function giving the
    bytes, mode)] of the adapter files install writes. ``settings``: a ``Settings`` (None: no settings
    file). ``enabled(ctx)``: will the harness load the adapter here. ``problems(top, path, placed)``: what
    else is wrong with its adapter in the work tree ``top`` (``path``: its settings file, ``placed``: our
    hooks in it, ``harnesses.placed_groups``; None and [] without one). ``merged``: other files in the work
    tree install merges into. ``records``: the install record's keys of one worktree its steps write."""

    def __init__(self, name, files=(), settings=None, enabled=loads, problems=no_problems, merged=(), records=()):
        self.name, self.files, self.settings = name, list(files), settings
        self.enabled, self.problems = enabled, problems
        self.merged, self.records = merged, records


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
