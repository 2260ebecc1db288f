"""Goose at install time: the hook plugin ``.agents/plugins/agentguard/`` (its ``plugin.json`` and
``hooks/hooks.json``), and whether goose loads it here (``disabledPlugins``)."""
import os

from ...hooks.harness.descriptor import config_home
from ...hooks.harness.goose import PROTOCOL
from .descriptor import Install, json_object
from .hookcommand import HOOK_TIMEOUT, dump_json, hook_command

PLUGIN = "agentguard"
ROOT = ".agents/plugins/%s/" % PLUGIN


def plugin_file():
    return dump_json({"name": PLUGIN, "version": "1.0.0",
                      "description": "agentguard: refuses tool calls that move protected git branches or switch "
                                     "the git guard off"})


def hooks_file():
    """PreToolUse for the shell and file tools, failing closed (``on_failure: block``: a hook that
    returns no decision blocks); the after-check after each of them (PostToolUse, PostToolUseFailure)."""
    matcher = "^(%s)$" % "|".join(PROTOCOL.matched)
    hooks = {"PreToolUse": [{"matcher": matcher, "hooks": [{"type": "command", "command": hook_command("goose"),
                                                             "timeout": HOOK_TIMEOUT, "on_failure": "block"}]}]}
    for event in PROTOCOL.post:
        hooks[event] = [{"matcher": matcher, "hooks": [{"type": "command", "command": hook_command("goose", event),
                                                         "timeout": HOOK_TIMEOUT}]}]
    return dump_json({"hooks": hooks})


def enabled(ctx):
    for path in (os.path.join(ctx.info.top, ".config", "goose", "settings.json"),
                 os.path.join(config_home(os.environ), "goose", "settings.json")):
        disabled = (json_object(path) or {}).get("disabledPlugins")
        if isinstance(disabled, list) and PLUGIN in disabled:
            return ("fail", "%s lists %s in disabledPlugins, so goose skips agentguard's hooks" % (path, PLUGIN),
                    "remove \"%s\" from disabledPlugins in %s" % (PLUGIN, path))
    return ("pass", "goose loads the plugin %s when started in this project (no trust prompt)" % ROOT, None)


HARNESS = Install("goose", files=[(ROOT + "plugin.json", plugin_file, 0o644),
                                  (ROOT + "hooks/hooks.json", hooks_file, 0o644)], enabled=enabled)
