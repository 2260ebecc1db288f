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
    "qwen": lambda p: {"tool_name": "write_file", "tool_input": {"file_path": p, "content": "x"}},
    "auggie": lambda p: {"tool_name": "save-file", "tool_input": {"path": p, "file_content": "x"}},
    "droid": lambda p: {"tool_name": "Create", "tool_input": {"file_path": p, "content": "x"}},
}


def hook(repo, harness, payload, cwd=None):
    """Run the hook command exactly as install wrote it, through sh, with ``payload`` on stdin."""
    data = json.dumps(dict(payload, cwd=cwd or repo.path))
    return subprocess.run(["sh", "-c", settingsfile.hook_command(harness)], cwd=cwd or repo.path, env=repo.env,
                          input=data, capture_output=True, text=True, timeout=60)


def after_hook(repo, harness, payload, event=None, cwd=None):
    """Run the post-call hook command as install wrote it for ``event`` (default: the harness's first
    post-call event), the payload as that harness sends it. Returns (process, what the model reads)."""
    from agentguard.hooks.harness.hook import PROTOCOLS
    event = event or PROTOCOLS[harness].post[0]
    payload = dict(payload, cwd=cwd or repo.path)
    if harness in ("claude", "codex", "gemini", "qwen", "auggie", "droid"):
        payload["hook_event_name"] = event
    proc = subprocess.run(["sh", "-c", settingsfile.hook_command(harness, event)], cwd=cwd or repo.path, env=repo.env,
                          input=json.dumps(payload), capture_output=True, text=True, timeout=60)
    return proc, told(harness, event, proc)


def told(harness, event, proc):
    """What a post hook's answer puts in front of the model ("" for nothing), checking its form:
    Claude Code, Codex, Gemini CLI: additionalContext for the same event, exit 0 (exit 2 or a block
    would replace the tool's output or show the hook command); Copilot CLI: additionalContext;
    OpenCode: our plugin appends stderr on exit 2."""
    from agentguard.hooks.harness.hook import PROTOCOLS
    if PROTOCOLS[harness].tell is None:  # the reason on stderr, exit 2
        assert proc.returncode in (0, 2) and not proc.stdout, (proc.returncode, proc.stdout, proc.stderr)
        return proc.stderr.strip() if proc.returncode == 2 else ""
    assert proc.returncode == 0, (harness, proc.returncode, proc.stderr)
    if not proc.stdout.strip():
        return ""
    data = json.loads(proc.stdout)
    if harness == "copilot":
        assert set(data) == {"additionalContext"}
        return data["additionalContext"]
    assert data["hookSpecificOutput"]["hookEventName"] == event
    return data["hookSpecificOutput"]["additionalContext"]
