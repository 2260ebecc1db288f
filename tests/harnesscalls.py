"""A tool call as each settings-file harness hands it to its hooks (Claude Code, Codex, Gemini CLI,
Copilot CLI, OpenCode), and the hook commands install writes, run by a real sh: shared by the
harness-settings tests and the day suite."""
import json
import subprocess

from agentguard.installer.harness import settingsfile

CALLS = {
    "claude": lambda cmd: {"tool_name": "Bash", "tool_input": {"command": cmd}},
    "codex": lambda cmd: {"tool_name": "Bash", "tool_input": {"command": cmd}},
    "gemini": lambda cmd: {"tool_name": "run_shell_command", "tool_input": {"command": cmd}},
    "copilot": lambda cmd: {"toolName": "bash", "toolArgs": json.dumps({"command": cmd})},
    "opencode": lambda cmd: {"tool": "bash", "args": {"command": cmd}},
    "kilo": lambda cmd: {"tool": "bash", "args": {"command": cmd}},
    "amp": lambda cmd: {"tool": "shell", "args": {"command": cmd}},  # as our plugin hands it over
    "goose": lambda cmd: {"event": "PreToolUse", "tool_name": "developer__shell", "tool_input": {"command": cmd}},
    "crush": lambda cmd: {"event": "PreToolUse", "tool_name": "bash", "tool_input": {"command": cmd}},
    "kiro": lambda cmd: {"hook_event_name": "preToolUse", "tool_name": "execute_bash", "tool_input": {"command": cmd}},
    "cline": lambda cmd: {"hookName": "tool_call", "tool_call": {"id": "c", "name": "run_commands",
                                                                 "input": {"commands": [cmd]}}},
    "windsurf": lambda cmd: {"agent_action_name": "pre_run_command", "tool_info": {"command_line": cmd}},
    "cursor": lambda cmd: {"hook_event_name": "preToolUse", "tool_name": "Shell", "tool_input": {"command": cmd}},
    "qwen": lambda cmd: {"tool_name": "run_shell_command", "tool_input": {"command": cmd, "is_background": False}},
    "auggie": lambda cmd: {"tool_name": "launch-process", "tool_input": {"command": cmd, "wait": True,
                                                                         "max_wait_seconds": 60, "cwd": "."}},
    "droid": lambda cmd: {"tool_name": "Execute", "tool_input": {"command": cmd}},
}
WRITES = {
    "claude": lambda p: {"tool_name": "Write", "tool_input": {"file_path": p, "content": "x"}},
    "codex": lambda p: {"tool_name": "apply_patch",
                        "tool_input": {"command": "*** Begin Patch\n*** Add File: %s\n+x\n*** End Patch\n" % p}},
    "gemini": lambda p: {"tool_name": "write_file", "tool_input": {"file_path": p, "content": "x"}},
    "copilot": lambda p: {"toolName": "create", "toolArgs": {"path": p, "file_text": "x"}},
    "opencode": lambda p: {"tool": "write", "args": {"filePath": p, "content": "x"}},
    "kilo": lambda p: {"tool": "write", "args": {"filePath": p, "content": "x"}},
    "amp": lambda p: {"tool": "files", "args": {"paths": ["README.md", p]}},
    "goose": lambda p: {"event": "PreToolUse", "tool_name": "developer__write",
                        "tool_input": {"path": p, "content": "x"}},
    "crush": lambda p: {"event": "PreToolUse", "tool_name": "write", "tool_input": {"file_path": p, "content": "x"}},
    "kiro": lambda p: {"hook_event_name": "preToolUse", "tool_name": "fs_write",
                       "tool_input": {"command": "create", "path": p, "file_text": "x"}},
    "cline": lambda p: {"hookName": "tool_call", "tool_call": {"id": "c", "name": "editor",
                                                               "input": {"path": p, "new_text": "x"}}},
    "windsurf": lambda p: {"agent_action_name": "pre_write_code",
                           "tool_info": {"file_path": p, "edits": [{"old_string": "", "new_string": "x"}]}},
    "cursor": lambda p: {"hook_event_name": "preToolUse", "tool_name": "Write",
                         "tool_input": {"file_path": p, "content": "x"}},
    "qwen": lambda p: {"tool_name": "write_file", "tool_input": {"file_path": p, "content": "x"}},
    "auggie": lambda p: {"tool_name": "save-file", "tool_input": {"path": p, "file_content": "x"}},
    "droid": lambda p: {"tool_name": "Create", "tool_input": {"file_path": p, "content": "x"}},
}
# the key of each harness's post-call event in its payload (the others send none)
EVENT_KEYS = {"claude": "hook_event_name", "codex": "hook_event_name", "gemini": "hook_event_name", "goose": "event",
              "kiro": "hook_event_name", "qwen": "hook_event_name", "auggie": "hook_event_name",
              "droid": "hook_event_name"}


def cline_refusal(proc):
    """What Cline makes of its hook's answer: (refused, what the model or the user reads). Exit status
    is never read; a command swapped for one that prints why and fails, an edit swapped for one that
    cannot be written with why as hook context, or the task cancelled."""
    assert proc.returncode == 0, (proc.returncode, proc.stderr)
    if not proc.stdout.strip():
        return False, ""
    data = json.loads(proc.stdout)
    if data.get("cancel") is True:
        return True, data["errorMessage"]
    override = data["overrideInput"]
    if "commands" in override:
        command = override["commands"][0]
        ran = subprocess.run(["sh", "-c", command], capture_output=True, text=True)
        assert ran.returncode == 1, command
        return True, ran.stdout
    assert override["path"].startswith("/dev/null/") or "Begin Patch" not in override["input"], override
    return True, data["contextModification"]


def hook(repo, harness, payload, cwd=None):
    """Run the hook command exactly as install wrote it, through sh, with ``payload`` on stdin."""
    from agentguard.hooks.harness.hook import PROTOCOLS
    data = json.dumps(dict(payload, **{PROTOCOLS[harness].cwd: cwd or repo.path}))
    return subprocess.run(["sh", "-c", settingsfile.hook_command(harness)], cwd=cwd or repo.path, env=repo.env,
                          input=data, capture_output=True, text=True, timeout=60)


def after_hook(repo, harness, payload, event=None, cwd=None):
    """Run the post-call hook command as install wrote it for ``event`` (default: the harness's first
    post-call event), the payload as that harness sends it. Returns (process, what the model reads).
    A harness whose post hooks cannot speak (``Protocol.later``) is told at its next pre-call: then
    the process and what the model reads are the next call's (an ordinary ``true``)."""
    from agentguard.hooks.harness.hook import PROTOCOLS
    protocol = PROTOCOLS[harness]
    event = event or (protocol.post[0] if protocol.post else None)
    if event is not None:
        payload = dict(payload, **{protocol.cwd: cwd or repo.path})
        if harness in EVENT_KEYS:
            payload[EVENT_KEYS[harness]] = event
        proc = subprocess.run(["sh", "-c", settingsfile.hook_command(harness, event)], cwd=cwd or repo.path,
                              env=repo.env, input=json.dumps(payload), capture_output=True, text=True, timeout=60)
        if not protocol.later:
            return proc, told(harness, event, proc)
        assert proc.returncode == 0 and not proc.stdout, (proc.returncode, proc.stdout, proc.stderr)
    proc = hook(repo, harness, CALLS[harness]("true"), cwd=cwd)
    return proc, told_later(harness, proc)


def told_later(harness, proc):
    """What a ``Protocol.later`` harness's next pre-call puts in front of the model ("" for nothing):
    its note on an allowed call (exit 0), or the call's refusal (exit 2, the reason on stderr)."""
    from agentguard.hooks.harness.hook import PROTOCOLS
    if proc.returncode == 0:
        if not proc.stdout.strip():
            return ""
        assert PROTOCOLS[harness].note is not None, proc.stdout
        return json.loads(proc.stdout)["context"]
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    return proc.stderr.strip()


def told(harness, event, proc):
    """What a post hook's answer puts in front of the model ("" for nothing), checking its form:
    Claude Code, Codex, Gemini CLI: additionalContext for the same event, exit 0 (exit 2 or a block
    would replace the tool's output or show the hook command); Copilot CLI: additionalContext;
    OpenCode, Kilo Code: our plugin appends stderr on exit 2."""
    from agentguard.hooks.harness.hook import PROTOCOLS
    if PROTOCOLS[harness].tell is None:  # the reason on stderr with exit 2 (OpenCode, Kilo: our plugin reads it)
        assert proc.returncode in (0, 2) and not proc.stdout, (proc.returncode, proc.stdout, proc.stderr)
        return proc.stderr.strip() if proc.returncode == 2 else ""
    assert proc.returncode == 0, (harness, proc.returncode, proc.stderr)
    if not proc.stdout.strip():
        return ""
    data = json.loads(proc.stdout)
    if harness == "cline":
        assert set(data) == {"contextModification"}
        return data["contextModification"]
    if harness == "cursor":
        assert set(data) == {"additional_context"}
        return data["additional_context"]
    if harness == "copilot":
        assert set(data) == {"additionalContext"}
        return data["additionalContext"]
    assert data["hookSpecificOutput"]["hookEventName"] == event
    return data["hookSpecificOutput"]["additionalContext"]
