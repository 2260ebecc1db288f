"""agentguard for Hermes Agent: a pre_tool_call hook that blocks `terminal` commands,
`write_file`/`patch` targets and `process` input the agentguard decision command refuses.
Written by `agentguard install`; enable it with HERMES_ENABLE_PROJECT_PLUGINS=1 and
`plugins: {enabled: [agentguard]}` in $HERMES_HOME/config.yaml."""
import importlib.util
import os
import re

_spec = importlib.util.spec_from_file_location(
    "agentguard_hermes_client", os.path.join(os.path.dirname(os.path.abspath(__file__)), "client.py"))
client = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(client)

_PATCH_FILE = re.compile(r"""@PATCH_FILE@""", re.M)  # the runtime's harnesshook.PATCH_FILE


def _cwd(args, kwargs):
    if args.get("workdir"):
        return str(args["workdir"])
    try:
        from tools.terminal_tool import get_session_cwd
        cwd = get_session_cwd(kwargs.get("task_id") or kwargs.get("session_id") or None)
        if cwd:
            return cwd
    except Exception:
        pass
    return os.environ.get("TERMINAL_CWD") or os.getcwd()


def _decisions(tool_name, args, kwargs):
    cwd = _cwd(args, kwargs)
    if tool_name == "terminal":
        yield client.decide(cwd, command=str(args.get("command", "")))
    elif tool_name == "write_file":
        yield client.decide(cwd, write=str(args.get("path", "")))
    elif tool_name == "patch":
        if args.get("path"):
            yield client.decide(cwd, write=str(args["path"]))
        for m in _PATCH_FILE.finditer(str(args.get("patch", "") or "")):
            yield client.decide(cwd, write=(m.group(1) or m.group(2)).strip())
    elif tool_name == "process" and args.get("data") is not None:
        yield client.decide(cwd, command=str(args.get("data")))


def pre_tool_call(tool_name=None, args=None, **kwargs):
    try:
        for block, reason in _decisions(tool_name, args or {}, kwargs):
            if block:
                return {"action": "block", "message": reason}
    except Exception as exc:
        block, reason = client._fallback(repr(args), type(exc).__name__)
        if block:
            return {"action": "block", "message": reason}
    return None


def register(ctx):
    ctx.register_hook("pre_tool_call", pre_tool_call)
