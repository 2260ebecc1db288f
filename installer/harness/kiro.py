"""Kiro CLI at install time: the agent ``.kiro/agents/agentguard.json`` with its hooks, and whether
it is the agent Kiro CLI selects (only the selected agent's hooks run)."""
import os

from ...hooks.harness.kiro import PROTOCOL, kiro_home
from .descriptor import Install, json_object
from .hookcommand import HOOK_TIMEOUT, dump_json, hook_command

AGENT = "agentguard"
REL = ".kiro/agents/%s.json" % AGENT


def agent_file():
    """The agent: every tool, the check before each call (preToolUse, never cached), the after-check
    after it (postToolUse)."""
    hooks = {"preToolUse": [{"matcher": "*", "command": hook_command("kiro"), "timeout_ms": HOOK_TIMEOUT * 1000,
                             "cache_ttl_seconds": 0}]}
    for event in PROTOCOL.post:
        hooks[event] = [{"matcher": "*", "command": hook_command("kiro", event), "timeout_ms": HOOK_TIMEOUT * 1000}]
    return dump_json({"name": AGENT, "description": "Every tool, with agentguard's hooks: tool calls that move "
                      "protected git branches or switch the git guard off are refused", "tools": ["*"],
                      "hooks": hooks})


def enabled(ctx):
    for path in (os.path.join(ctx.info.top, ".kiro", "settings", "cli.json"),
                 os.path.join(kiro_home(os.environ), "settings", "cli.json")):
        chosen = (json_object(path) or {}).get("chat.defaultAgent")
        if chosen is not None:
            break
    if chosen == AGENT:
        return ("pass", "Kiro CLI's default agent is %s, whose hooks run before and after each tool call" % AGENT,
                None)
    return ("warn", "Kiro CLI runs the hooks of the selected agent only, and the default one here is %s: agentguard's "
            "hooks run in chat --agent %s alone" % (chosen or "its built-in agent", AGENT),
            "kiro-cli settings chat.defaultAgent %s   # or: kiro-cli chat --agent %s" % (AGENT, AGENT))


HARNESS = Install("kiro", files=[(REL, agent_file, 0o644)], enabled=enabled)
