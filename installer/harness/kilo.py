"""Kilo Code at install time: agentguard's plugin in .kilo/plugins (the template it shares with every
harness of the same plugin API), and what would keep Kilo from loading it."""
import os

from .descriptor import Install

# Kilo's switches that drop the plugin: every external plugin, every project .kilo directory
OFF = ("KILO_PURE", "KILO_DISABLE_PROJECT_CONFIG")


def enabled(ctx):
    on = [name for name in OFF if os.environ.get(name, "").lower() in ("1", "true")]
    if on:
        return ("warn", "%s is set here: Kilo Code will not load .kilo/plugins/agentguard.js" % on[0],
                "unset %s (and do not run kilo --pure)" % on[0])
    return ("pass", "Kilo Code loads every plugin in .kilo/plugins when it starts (no trust step), unless run with "
            "--pure or KILO_DISABLE_PROJECT_CONFIG; it skips a plugin that fails to load without a word, so this "
            "check proves the file is install's, byte for byte, not that a running kilo loaded it", None)


HARNESS = Install("kilo", files=[(".kilo/plugins/agentguard.js", "tool-execute/agentguard.js", 0o644)],
                  enabled=enabled)
