"""OpenCode at install time: agentguard's plugin in .opencode/plugins."""
from .descriptor import Install


def enabled(ctx):
    return ("pass", "OpenCode loads every plugin in .opencode/plugins when it starts (no trust step)", None)


HARNESS = Install("opencode", files=[(".opencode/plugins/agentguard.js", "tool-execute/agentguard.js", 0o644)],
                  enabled=enabled)
