"""Cline (CLI 3.x): executable hook files ``.clinerules/hooks/PreToolUse`` and ``PostToolUse``, no
configuration and no matcher (every tool call).

From the shipped code of ``cline`` 3.0.65 (``@cline/core`` 0.0.86 dist/index.js, ``@cline/agents``
0.0.86), verified with the real binary (tests/test_harness_e2e.py):
- hook files are found in ``~/Documents/Cline/Hooks``, ``$CLINE_DIR/hooks`` (``~/.cline/hooks``,
  ``--hooks-dir``, ``CLINE_HOOKS_DIR``), ``<workspace>/.clinerules/hooks`` and ``<workspace>/.cline/hooks``;
  each file named after its event (any case, an optional extension) runs, in path order, with the
  interpreter its ``#!`` names, the payload as JSON on stdin.
- the payload: ``{hookName: "tool_call", workspaceRoots: [cwd], tool_call: {name, input}, preToolUse:
  {toolName, parameters}, ...}``; after the call ``hookName: "tool_result"``, ``tool_result: {name,
  input, output}`` (tests/harness/payloads/cline-*.json) (``parameters`` has every value that is not text
  JSON-encoded: the call is read from ``tool_call``). ``run_commands`` takes its commands in many
  shapes (a string, a list, ``{commands}``, ``{command}``, ``{cmd}``, ``{command, args}`` run without a
  shell) and runs each on its own, in parallel.
- the answer is stdout JSON (``HookOutputSchema``); the exit status is never read. ``{"cancel": true}``
  stops the whole task (the only answer every tool honours); ``overrideInput`` replaces the call's
  input (the last hook file's wins); ``contextModification`` reaches the model as a
  ``<hook_context source="PreToolUse"|"PostToolUse">`` message. A hook that times out (120 s), fails,
  prints nothing or prints what is not JSON lets the call run.
So a refused command is replaced by one that prints the reason and exits 1 (the model reads it as the
command's output), a refused edit or patch by one that cannot be written (under /dev/null; the reason
as hook context), anything else cancels the task; the after-check's report is hook context.
"""
import os

from .descriptor import Harness, Protocol, home

EVENTS = {"tool_call": "PreToolUse", "tool_result": "PostToolUse"}
COMMAND_FORMS = ("commands", "command", "cmd")
REFUSED_EDIT = "/dev/null/agentguard refused this edit, see the hook context"
REFUSED_PATCH = "agentguard refused this patch, see the hook context"


def _command(value):
    """One of ``run_commands``'s commands as text: a ``{command, args}`` runs without a shell."""
    if isinstance(value, dict) and isinstance(value.get("command"), str):
        import shlex
        args = value.get("args") or []
        return shlex.join([value["command"]] + [a for a in args if isinstance(a, str)])
    return value


def _commands(value):
    """``run_commands``'s input, every shape it takes, as a list of commands."""
    if isinstance(value, dict):
        if "args" in value:
            return [_command(value)]
        for key in COMMAND_FORMS:
            if key in value:
                inner = value[key]
                return [_command(v) for v in inner] if isinstance(inner, list) else [_command(inner)]
        return [value]
    return [_command(v) for v in value] if isinstance(value, list) else [value]


def load(payload):
    """Cline's payload, flat: ``toolName``, ``input`` (``run_commands``: ``{"commands": [...]}``), ``cwd``,
    ``hook_event_name``."""
    if not isinstance(payload, dict):
        return payload
    call = payload.get("tool_call", payload.get("tool_result"))  # PostToolUse: tool_result {name, input, output}
    call = call if isinstance(call, dict) else {}
    roots = payload.get("workspaceRoots")
    tool, args = call.get("name"), call.get("input")
    if tool == "run_commands":
        args = {"commands": _commands(args)}
    elif tool == "apply_patch" and isinstance(args, str):
        args = {"input": args}
    flat = {"toolName": tool, "input": args, "hook_event_name": EVENTS.get(str(payload.get("hookName")))}
    if isinstance(roots, list) and roots and isinstance(roots[0], str):
        flat["cwd"] = roots[0]
    return flat


def said(reason):
    """The reason as one word for the shell ``run_commands`` runs (/bin/bash on POSIX: ``G2`` in
    ``@cline/shared``): single-quoted. The reason names the call, which is untrusted text."""
    import shlex
    return shlex.quote(reason)


def cancel(reason):
    """Stop the task: the answer when the call could not be read."""
    return {"cancel": True, "errorMessage": reason}, 0


def refuse(reason, payload):
    """This call refused, the task going on: its input swapped for one that fails, telling why."""
    tool = payload.get("toolName")
    if tool == "run_commands":
        return {"overrideInput": {"commands": ["printf '%%s\\n' %s; exit 1" % said(reason)]}}, 0
    if tool == "editor":
        return {"overrideInput": {"path": REFUSED_EDIT, "new_text": ""}, "contextModification": reason}, 0
    if tool == "apply_patch":
        return {"overrideInput": {"input": REFUSED_PATCH}, "contextModification": reason}, 0
    return cancel(reason)


PROTOCOL = Protocol("toolName", "input", {"run_commands": "commands"}, {"editor": ("path",)},
                    patches={"apply_patch": "input"},
                    reads=("read_files", "search_codebase", "fetch_web_content", "ask_question", "submit_and_exit"),
                    load=load, lists=("run_commands",), refuse=refuse, deny=cancel, exit_blocks=False,
                    post=("PostToolUse",),
                    tell=lambda reason, event: ({"contextModification": reason}, 0))


def user_hooks(env):
    """The user-level folders Cline reads hook files from."""
    cline_dir = env.get("CLINE_DIR") or os.path.join(home(env), ".cline")
    dirs = [os.path.join(cline_dir, "hooks"), os.path.join(home(env), "Documents", "Cline", "Hooks")]
    return dirs + ([env["CLINE_HOOKS_DIR"]] if env.get("CLINE_HOOKS_DIR") else [])


HARNESS = Harness("cline", "Cline", PROTOCOL,
                  worktree_files=(".clinerules/hooks", ".cline/hooks"),
                  user_files=user_hooks,
                  involves=(r"\.clinerules[/\\]hooks", r"\.cline[/\\]hooks", r"Cline[/\\]Hooks"),
                  repo_signs=(".clinerules", ".cline"),
                  user_signs=lambda env: [env.get("CLINE_DIR") or os.path.join(home(env), ".cline")])
