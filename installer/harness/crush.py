"""Crush at install time: its hook entry in ``.crush/crush.json`` (``crush.json`` when shared); Crush
runs project hooks with no trust prompt and has no switch that turns them off."""
from ...hooks.harness.crush import PROTOCOL
from .descriptor import Install, Settings


def enabled(ctx):
    return ("pass", "Crush runs the PreToolUse hook from .crush/crush.json or crush.json (no trust prompt); it has "
            "no post-call event, so each call's after-check runs at the next call", None)


def entries(timeout):
    return {"PreToolUse": {"matcher": "|".join(PROTOCOL.matched), "name": "agentguard", "timeout": timeout}}


HARNESS = Install("crush", enabled=enabled,
                  settings=Settings("crush.json", "PreToolUse", entries, local=".crush/crush.json", flat=True))
