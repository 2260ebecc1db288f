"""Copilot CLI at install time: the hook file .github/hooks/agentguard.json, and whether it runs
repository hooks here (disableAllHooks, folder trust)."""
import json
import os

from ...hooks.harness.copilot import PROTOCOL, copilot_home
from .hookcommand import HOOK_TIMEOUT, dump_json, hook_command
from .descriptor import Install, disabling, json_object, under


def hooks_file():
    """Copilot CLI's hook file: the check before every tool call (preToolUse; Copilot has no
    matcher) and again at its permission step (permissionRequest: the arguments after every
    preToolUse hook's changes; a hook that fails there denies), the after-check after each
    (postToolUse, postToolUseFailure)."""
    pre = [{"type": "command", "bash": hook_command("copilot"), "timeoutSec": HOOK_TIMEOUT}]
    hooks = {"preToolUse": pre, "permissionRequest": pre}
    for event in PROTOCOL.post:
        hooks[event] = [{"type": "command", "bash": hook_command("copilot", event), "timeoutSec": HOOK_TIMEOUT}]
    return dump_json({"version": 1, "hooks": hooks})


def enabled(ctx):
    top = ctx.info.top
    home = copilot_home(os.environ)
    config = os.path.join(home, "config.json")
    # disableAllHooks in the repository's Copilot settings switches repository hooks off (the user's
    # settings.json only switches off the user's own hooks)
    off = disabling([os.path.join(top, ".github", "copilot", n) for n in ("settings.local.json", "settings.json")])
    if off:
        return ("fail", "%s sets disableAllHooks, so Copilot CLI runs no hook" % off,
                "remove \"disableAllHooks\" from %s" % off)
    folders = (json_object(config) or {}).get("trustedFolders") or []
    if os.environ.get("COPILOT_ALLOW_ALL", "").lower() == "true" or \
            any(isinstance(f, str) and under(top, f) for f in folders):
        return ("pass", "Copilot CLI trusts this folder and runs .github/hooks/agentguard.json", None)
    return ("warn", "Copilot CLI silently skips repository hooks until the folder is trusted (trustedFolders in %s)"
            % config, "copilot, then trust this folder when asked (or add %s to trustedFolders in %s)"
            % (json.dumps(top), config))


HARNESS = Install("copilot", files=[(".github/hooks/agentguard.json", hooks_file, 0o644)], enabled=enabled)
