"""Factory Droid at install time: its hook entries in .factory/hooks.json, and whether it runs them
here (hooksDisabled).

0.225.2 (``loadHooks``): a scope's hooks are its ``hooks.json`` (the whole file is the events object;
``hooks/hooks.json`` where there is no hooks.json) over the ``hooks`` key of its ``settings.json``,
event by event (``{...settingsHooks, ...hooksJson}``): an event hooks.json names hides the same event
in settings.json. There is no local, git-ignored hooks file: where the team tracks .factory/hooks.json,
install leaves it alone. The timeout is in seconds."""
import os

from ...hooks.harness.droid import PROTOCOL, factory_home
from .descriptor import Install, Settings, json_object


def _hooks_objects(folder):
    """(path, the hooks object) of a scope's settings files and hooks files."""
    out = []
    for name in ("settings.local.json", "settings.json"):
        path = os.path.join(folder, name)
        out.append((path, (json_object(path) or {}).get("hooks")))
    for rel in ("hooks.json", os.path.join("hooks", "hooks.json")):
        path = os.path.join(folder, rel)
        out.append((path, json_object(path)))
    return [(path, hooks) for path, hooks in out if isinstance(hooks, dict)]


def enabled(ctx):
    for path, hooks in _hooks_objects(os.path.join(ctx.info.top, ".factory")) + \
            _hooks_objects(factory_home(os.environ)):
        if hooks.get("hooksDisabled") is True:
            return ("fail", "%s sets hooksDisabled, so Factory Droid runs no hook" % path,
                    "remove \"hooksDisabled\" from %s" % path)
    return ("pass", "Factory Droid runs the hook from .factory/hooks.json (droid exec at once; an interactive "
            "session once the folder is trusted)", None)


def problems(top, path, placed):
    """Hooks of the user's that Droid no longer reads once .factory/hooks.json holds ours."""
    out = []
    events = ("PreToolUse",) + PROTOCOL.post
    for rel, hooks in _hooks_objects(os.path.join(top, ".factory")):
        name = os.path.relpath(rel, top)
        if name.endswith(os.path.join("hooks", "hooks.json")) and path is not None:
            out.append("Factory Droid reads %s only where there is no .factory/hooks.json: move its hooks there" % name)
        elif "settings" in os.path.basename(name) and any(hooks.get(event) for event in events):
            out.append("%s declares %s hooks, which .factory/hooks.json's hide: move them into .factory/hooks.json"
                       % (name, "/".join(events)))
    return out


HARNESS = Install("droid", enabled=enabled, problems=problems,
                  settings=Settings(".factory/hooks.json", "PreToolUse",
                                    lambda timeout: {"type": "command", "timeout": timeout}, anchored=True,
                                    events_key=None))
