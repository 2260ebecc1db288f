"""agentguard for gptme: a tool.confirm hook (the only hook that can block) that skips shell
commands and file writes the agentguard decision command refuses, and a tool.execute.post hook that
runs the after-check once a tool ran and tells the model what it undid (a system message after the
tool's output). Written by `agentguard install`; enabled by `[plugins]` in gptme.toml."""
import importlib.util
import os

from gptme.hooks import HookType, register_hook
from gptme.hooks.confirm import ConfirmationResult
from gptme.message import Message

_spec = importlib.util.spec_from_file_location(
    "agentguard_gptme_client",
    os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "client.py"))
client = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(client)

SHELL_TOOLS = ("shell", "bash", "tmux")
WRITE_TOOLS = ("save", "append", "patch", "morph", "edit")
READ_ONLY = ("read", "chats", "rag", "screenshot", "vision", "browser", "complete")  # no after-check


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


def agentguard_after(*args, **kwargs):
    """tool.execute.post: gptme 0.35 hands one ToolExecutePostData (workspace, tool_use); earlier
    versions (log, workspace, tool_use) as arguments."""
    data = args[0] if len(args) == 1 and hasattr(args[0], "tool_use") else None
    workspace = getattr(data, "workspace", None) if data is not None else kwargs.get(
        "workspace", args[1] if len(args) > 1 else None)
    tool_use = getattr(data, "tool_use", None) if data is not None else kwargs.get(
        "tool_use", args[2] if len(args) > 2 else None)
    if getattr(tool_use, "tool", "") in READ_ONLY:
        return
    try:
        changed, reason = client.after(str(workspace) if workspace else os.getcwd())
    except Exception as exc:
        changed, reason = True, client.UNCHECKED.format(type(exc).__name__)
    if changed:
        yield Message("system", reason)


def register():
    register_hook("agentguard.confirm", HookType.TOOL_CONFIRM, agentguard_confirm, priority=1000)
    register_hook("agentguard.after", HookType.TOOL_EXECUTE_POST, agentguard_after, priority=1000)
