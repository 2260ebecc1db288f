"""Amp at install time: agentguard's plugin in .amp/plugins, and whether Amp would load it."""
import os

from .descriptor import Install


def enabled(ctx):
    if os.environ.get("PLUGINS") == "all":
        return ("pass", "PLUGINS=all is set here: Amp loads .amp/plugins/agentguard.ts when it starts", None)
    return ("warn", "Amp loads no plugin unless it runs with PLUGINS=all (not set here)",
            "export PLUGINS=all   # in the environment that starts amp")


HARNESS = Install("amp", files=[(".amp/plugins/agentguard.ts", "amp/agentguard.ts", 0o644)], enabled=enabled)
