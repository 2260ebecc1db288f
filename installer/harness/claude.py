"""Claude Code at install time: its hook entries in .claude/settings.local.json (settings.json when
shared), and whether it runs hooks here.

``onFailure: "block"`` on the PreToolUse entry (Claude Code 2.1.295 and later: "What a failure of this
hook does: it could not start ..., timed out, exited with a code other than 0 or 2, or printed JSON
that is invalid ... 'block': the failure counts as exit code 2", its settings schema in 2.1.332):
without it a hook that crashes or times out lets the call through. Written unless ``claude
--version`` names an older version; with no ``claude`` on PATH too, since 2.1.197 (run here) reads
the file with the key and runs the hook as before, ignoring it."""
import functools
import os
import re
import shutil
import subprocess

from .descriptor import Install, Settings, disabling, home_path, json_object

ON_FAILURE = (2, 1, 295)  # the first Claude Code version that honours onFailure
MANAGED = "/etc/claude-code/managed-settings.json"


@functools.lru_cache(maxsize=None)
def claude_version():
    """(major, minor, patch) of the ``claude`` on PATH, or None (none there, or no version it says)."""
    path = shutil.which("claude")
    if path is None:
        return None
    try:
        out = subprocess.run([path, "--version"], capture_output=True, timeout=20, stdin=subprocess.DEVNULL).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    found = re.match(rb"\s*(\d+)\.(\d+)\.(\d+)", out)
    return tuple(int(n) for n in found.groups()) if found else None


def pre_keys():
    version = claude_version()
    return {} if version is not None and version < ON_FAILURE else {"onFailure": "block"}


def enabled(ctx):
    top = ctx.info.top
    off = disabling([MANAGED, os.path.join(top, ".claude", "settings.local.json"),
                     os.path.join(top, ".claude", "settings.json"), home_path(".claude", "settings.json")])
    if off:
        return ("fail", "%s sets disableAllHooks, so Claude Code runs no hook at all" % off,
                "remove \"disableAllHooks\" from %s" % off)
    if (json_object(MANAGED) or {}).get("allowManagedHooksOnly") is True:
        return ("fail", "%s sets allowManagedHooksOnly, so Claude Code runs no project or user hook" % MANAGED,
                "an administrator removes allowManagedHooksOnly from %s (or adds agentguard's hook there)" % MANAGED)
    version = claude_version()
    if version is not None and version < ON_FAILURE:
        return ("warn", "Claude Code %s lets a tool call through when the hook fails (crashes, times out); "
                "onFailure: \"block\" needs 2.1.295" % ".".join(map(str, version)),
                "update Claude Code (claude update), then agentguard install")
    return ("pass", "Claude Code runs the hook from .claude/settings.local.json or settings.json (claude -p at "
            "once; an interactive session once the folder is trusted)", None)


HARNESS = Install("claude", enabled=enabled,
                  settings=Settings(".claude/settings.json", "PreToolUse",
                                    lambda timeout: {"type": "command", "timeout": timeout},
                                    # Claude Code merges settings.local.json's hooks with settings.json's
                                    local=".claude/settings.local.json", pre_keys=pre_keys))
