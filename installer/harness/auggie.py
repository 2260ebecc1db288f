"""Auggie at install time: its hook entries in .augment/settings.local.json (settings.json when
shared). Auggie 0.36.0 has no switch that turns hooks off and no trust step for a project's hooks
(docs: project settings "apply automatically to all contributors"); a hook group it cannot read is
skipped with a warning ("Ignoring invalid hook configuration in <file> for <event>"). The timeout is
in milliseconds."""
from .descriptor import Install, Settings


def enabled(ctx):
    return ("pass", "Auggie runs the hook from .augment/settings.local.json or settings.json (it has no switch "
            "that turns hooks off)", None)


HARNESS = Install("auggie", enabled=enabled,
                  settings=Settings(".augment/settings.json", "PreToolUse",
                                    lambda timeout: {"type": "command", "timeout": timeout * 1000},
                                    # merged with settings.json's hooks (groups by matcher, handlers unioned)
                                    local=".augment/settings.local.json", anchored=True))
