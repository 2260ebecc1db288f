"""agentguard for Hermes Agent: a pre_tool_call hook that blocks `terminal` commands,
`write_file`/`patch` targets and `process` input the agentguard decision command refuses, and a
transform_tool_result hook that runs the after-check once a tool ran (post_tool_call only observes:
transform_tool_result is the one hook whose answer reaches the model) and adds what it says to the
tool's result. Written by `agentguard install`; enable it with HERMES_ENABLE_PROJECT_PLUGINS=1 and
`plugins: {enabled: [agentguard]}` in $HERMES_HOME/config.yaml."""
import importlib.util
import json
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


# tools that only read or talk: no after-check
READ_ONLY = ("read_file", "search_files", "web_search", "web_extract", "vision_analyze", "skills_list", "skill_view",
             "session_search", "read_terminal", "clarify", "todo", "memory")


def transform_tool_result(tool_name=None, args=None, result=None, **kwargs):
    """After the tool ran: the after-check; when it says something, the result with its reason (in
    a JSON object result as an "agentguard" field, else after the text). Hermes takes the first
    string a transform_tool_result hook returns and ignores exceptions."""
    if tool_name in READ_ONLY:
        return None
    try:
        changed, reason = client.after(_cwd(args or {}, kwargs))
    except Exception as exc:
        changed, reason = True, client.UNCHECKED.format(type(exc).__name__)
    if not changed:
        return None
    text = result if isinstance(result, str) else "" if result is None else json.dumps(result, default=str)
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        data["agentguard"] = reason
        return json.dumps(data, ensure_ascii=False)
    return "%s\n\n%s" % (text, reason) if text else reason


def register(ctx):
    ctx.register_hook("pre_tool_call", pre_tool_call)
    ctx.register_hook("transform_tool_result", transform_tool_result)
