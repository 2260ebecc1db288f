"""pi at install time: agentguard's extension in .pi/extensions, and whether pi loads it."""
import json
import os

from ..fsops import read_regular
from .descriptor import Install


def enabled(ctx):
    settings = read_regular(os.path.join(ctx.info.top, ".pi", "settings.json"))
    if settings is not None:
        try:
            data = json.loads(settings.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            data = {}
        listed = data.get("extensions") if isinstance(data, dict) else None
        if isinstance(listed, list) and any(str(x).lstrip("!").startswith("agentguard") and str(x).startswith("!")
                                            for x in listed):
            return ("fail", ".pi/settings.json switches the agentguard extension off",
                    "remove \"!agentguard.ts\" from extensions in .pi/settings.json")
    return ("pass", "pi loads .pi/extensions/agentguard.ts when started in this directory (pi 1.x: only "
            "once the project is trusted: pi --approve, or defaultProjectTrust: \"always\")", None)


HARNESS = Install("pi", files=[(".pi/extensions/agentguard.ts", "pi/agentguard.ts", 0o644)], enabled=enabled)
