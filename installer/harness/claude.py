"""Claude Code at install time: its hook entries in .claude/settings.local.json (settings.json when
shared), and whether it runs hooks here."""
import os

from .descriptor import Install, Settings, disabling, home_path


def enabled(ctx):
    top = ctx.info.top
    off = disabling(["/etc/claude-code/managed-settings.json", os.path.join(top, ".claude", "settings.local.json"),
                      os.path.join(top, ".claude", "settings.json"), home_path(".claude", "settings.json")])
    if off:
        return ("fail", "%s sets disableAllHooks, so Claude Code runs no hook at all" % off,
                "remove \"disableAllHooks\" from %s" % off)
    return ("pass", "Claude Code runs the hook from .claude/settings.local.json or settings.json (claude -p at "
            "once; an interactive session once the folder is trusted)", None)


HARNESS = Install("claude", enabled=enabled,
                  settings=Settings(".claude/settings.json", "PreToolUse",
                                    lambda timeout: {"type": "command", "timeout": timeout},
                                    # Claude Code merges settings.local.json's hooks with settings.json's
                                    local=".claude/settings.local.json"))
