"""agentguard for gptme: a tool.confirm hook (the only hook that can block) that skips shell
commands and file writes the agentguard decision command refuses. Written by
`agentguard install`; enabled by `[plugins]` in gptme.toml."""
import importlib.util
import os

from gptme.hooks import HookType, register_hook
from gptme.hooks.confirm import ConfirmationResult

_spec = importlib.util.spec_from_file_location(
    "agentguard_gptme_client",
    os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "client.py"))
client = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(client)

SHELL_TOOLS = ("shell", "bash", "tmux")
WRITE_TOOLS = ("save", "append", "patch", "morph", "edit")


def _path(tool, tool_use):
    kwargs = getattr(tool_use, "kwargs", None) or {}
    raw = str(kwargs.get("path") or " ".join(str(a) for a in (getattr(tool_use, "args", None) or [])))
    raw = raw.strip()
    if raw.startswith(tool + " "):  # the markdown format keeps the tool name in the info string
        raw = raw[len(tool) + 1:].strip()
    return raw


def agentguard_confirm(tool_use, preview=None, workspace=None):
    try:
        cwd = str(workspace) if workspace else os.getcwd()
        tool = getattr(tool_use, "tool", "")
        if tool in SHELL_TOOLS:
            block, reason = client.decide(cwd, command=str(getattr(tool_use, "content", "") or preview or ""))
        elif tool in WRITE_TOOLS:
            path = _path(tool, tool_use)
            if not path:
                return None
            block, reason = client.decide(cwd, write=path)
        else:
            return None
    except Exception as exc:
        block, reason = client._fallback(str(getattr(tool_use, "content", "")), type(exc).__name__)
    return ConfirmationResult.skip(reason) if block else None


def register():
    register_hook("agentguard.confirm", HookType.TOOL_CONFIRM, agentguard_confirm, priority=1000)
