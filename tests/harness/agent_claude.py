"""Drive the real Claude Code binary (tests/node, 2.1.332) headless against a scripted fake model.
The findings below were made with 2.1.197. Seen since (2.1.294, 2.1.295): a JSON deny reaches the model
as ``PreToolUse:<Tool> hook error: R``; with ``onFailure: "block"`` (2.1.295 on) a hook that exits 1
blocks the call (run here: tests/test_harness_claude_current.py; a timeout too, per its settings schema,
instead of finding 4's allow).

API
  BINARY                      path of tests/node/node_modules/.bin/claude, or None
  Dialect                     Anthropic Messages: POST /v1/messages (streaming SSE, or JSON when stream is
                              false); count_tokens and GET .../models get harmless answers, anything else {}
  run(repo, home, calls, timeout=60, extra_env=None, args=())
                              -> Result (a dict with attributes): code (None on timeout), stdout, stderr,
                              requests [(method, path, body)], tool_results [text, ...] (the tool_result
                              blocks of the longest conversation the harness posted, in order), feedback
                              [text, ...] (per tool result: its text and the text blocks the harness put
                              next to it in the same message, e.g. a hook's additional context)
  calls                       ("shell", cmd) -> Bash {command, description}; ("write", abs_path, content)
                              -> Write {file_path, content}; ("edit", abs_path, old, new) -> Edit;
                              ("tool", name, input) verbatim. ("patch", ...) is codex-only (ValueError).
  The run: ``claude -p PROMPT --output-format json --permission-mode bypassPermissions --model M`` with
  cwd=repo, HOME=home (``prepare_home`` writes ~/.claude.json: onboarding done), IS_SANDBOX=1 (root),
  ANTHROPIC_BASE_URL=the fake server, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC/telemetry off, retries 0.
  Only requests that offer tools get the scripted calls; one run takes ~1 s (+ hook time).

Findings (experiments with a project PreToolUse hook, matcher "Bash|Write|Edit|MultiEdit|NotebookEdit",
that logs its stdin and exits 2 / prints a JSON deny / exits 1 / sleeps when the input contains BLOCKME)
1. The hook ``command`` string runs as ``/bin/sh -c '<command>'`` (dash here; $SHELL=/bin/bash or /bin/sh
   makes no difference), parent = the claude process. The hook's cwd is the Bash tool's current directory
   (the project dir, or a subdirectory after ``cd sub`` in an earlier Bash call). Env: the harness's env
   plus CLAUDE_PROJECT_DIR=<project root> (unchanged by cd), CLAUDECODE=1, CLAUDE_CODE_ENTRYPOINT=sdk-cli,
   CLAUDE_CODE_SESSION_ID, CLAUDE_CODE_CHILD_SESSION=1, AI_AGENT; HOME is the run's HOME.
2. stdin (payloads/claude-{Bash,Write,Edit}.json): {session_id, transcript_path, cwd, prompt_id,
   permission_mode: "bypassPermissions", hook_event_name: "PreToolUse", tool_name, tool_input, tool_use_id}.
   Bash: tool_input = {command, description}; Write: {file_path (as the model gave it; absolute), content};
   Edit: {file_path, old_string, new_string, replace_all: false}.
3. exit 2 + stderr: the tool does NOT run; the model gets (is_error) exactly
   ``PreToolUse:<Tool> hook error: [<hook command>]: <stderr>`` (stderr reason included, trailing newline
   kept). exit 0 + {"hookSpecificOutput": {... "permissionDecision": "deny", "permissionDecisionReason": R}}:
   not run; the tool result is exactly R. exit 1 (+ stderr): ALLOWED, the tool runs, the model sees the
   normal result and nothing of the stderr.
4. Hook timeout (``"timeout": 3``, hook sleeps 20 s): the hook is abandoned after ~3 s and the call is
   ALLOWED (command ran; the model sees only the normal result). The payload ``cwd`` follows a ``cd`` done
   in an earlier Bash call (``cd sub && pwd`` -> next payload cwd = <repo>/sub); a cd outside the project
   is undone by Claude ("Shell cwd was reset to <repo>") and the next cwd is the project root again.
5. Settings read: <repo>/.claude/settings.json, <repo>/.claude/settings.local.json and
   ~/.claude/settings.json: a hook in any one of them runs. ``"disableAllHooks": true`` in ANY of the three
   (same file as the hook or another) switched the hook off, with one exception seen: a higher-precedence
   ``"disableAllHooks": false`` wins (project true + local false -> hook runs; user true + project false ->
   hook runs): the value is merged local > project > user, not OR-ed. Settings are re-read while the
   session runs: a Bash or Write call that creates .claude/settings.local.json with disableAllHooks true
   switched the hook off for calls made ~2 s later (a call right after it was still checked), so an agent
   can switch the guard off mid-session unless the hook refuses writes to .claude/settings*.json.
"""
import json
import os
import uuid

try:
    from .fakeserver import FakeModel, Result, binary, longest_results, run_bounded, sse
except ImportError:  # run as a script, or imported with tests/harness on sys.path
    from fakeserver import FakeModel, Result, binary, longest_results, run_bounded, sse

BINARY = binary("claude")
MODEL = "claude-sonnet-4-5"
API_KEY = "sk-ant-api03-fake-key-for-tests"
PROMPT = "Do the task."


def _text_of(content):
    """The text of a tool_result's ``content`` (a string or a list of blocks)."""
    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:
        if isinstance(block, dict) and block.get("type") == "text":
            parts.append(block.get("text", ""))
        elif isinstance(block, dict):
            parts.append(json.dumps(block))
    return "\n".join(parts)


def _results(body):
    """The tool_result blocks of a Messages request, in order."""
    out = []
    for msg in body.get("messages") or []:
        if msg.get("role") != "user" or not isinstance(msg.get("content"), list):
            continue
        out.extend(b for b in msg["content"] if isinstance(b, dict) and b.get("type") == "tool_result")
    return out


def tool_call(step):
    """A harness-neutral step -> (Claude tool name, input)."""
    kind = step[0]
    if kind == "shell":
        return "Bash", {"command": step[1], "description": "run a command"}
    if kind == "write":
        return "Write", {"file_path": step[1], "content": step[2]}
    if kind == "edit":
        return "Edit", {"file_path": step[1], "old_string": step[2], "new_string": step[3]}
    if kind == "tool":  # ("tool", name, input): anything else, verbatim
        return step[1], step[2]
    raise ValueError("claude: unsupported step %r" % (step,))


class Dialect:
    """Anthropic Messages API (POST /v1/messages, streaming SSE or plain JSON)."""

    def count_results(self, body):
        return len(_results(body))

    def _message(self, model, body, step):
        """(content blocks, stop_reason) for this request."""
        call = model.next_call(step) if body.get("tools") else None
        if call is None:
            return [{"type": "text", "text": "Done."}], "end_turn"
        name, args = tool_call(call)
        return [{"type": "tool_use", "id": "toolu_%s" % uuid.uuid4().hex[:24], "name": name, "input": args}], \
            "tool_use"

    def respond(self, model, method, path, body, step):
        route = path.split("?")[0]
        if method == "POST" and route.endswith("/messages/count_tokens"):
            return 200, "application/json", b'{"input_tokens": 10}'
        if method == "GET" and "/models" in route:
            data = {"data": [{"type": "model", "id": MODEL, "display_name": MODEL,
                              "created_at": "2025-01-01T00:00:00Z"}], "has_more": False,
                    "first_id": MODEL, "last_id": MODEL}
            return 200, "application/json", json.dumps(data).encode()
        if not (method == "POST" and route.endswith("/messages")):
            return 200, "application/json", b"{}"
        blocks, stop = self._message(model, body, step)
        msg_id = "msg_%s" % uuid.uuid4().hex[:24]
        name = body.get("model") or MODEL
        usage = {"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0,
                 "cache_read_input_tokens": 0}
        if not body.get("stream"):
            data = {"id": msg_id, "type": "message", "role": "assistant", "model": name, "content": blocks,
                    "stop_reason": stop, "stop_sequence": None, "usage": usage}
            return 200, "application/json", json.dumps(data).encode()
        events = [("message_start", {"type": "message_start", "message": {
            "id": msg_id, "type": "message", "role": "assistant", "model": name, "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": dict(usage, output_tokens=1)}})]
        for i, block in enumerate(blocks):
            if block["type"] == "text":
                events.append(("content_block_start", {"type": "content_block_start", "index": i,
                                                       "content_block": {"type": "text", "text": ""}}))
                events.append(("content_block_delta", {"type": "content_block_delta", "index": i,
                                                       "delta": {"type": "text_delta", "text": block["text"]}}))
            else:
                start = dict(block, input={})
                events.append(("content_block_start", {"type": "content_block_start", "index": i,
                                                       "content_block": start}))
                events.append(("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {
                    "type": "input_json_delta", "partial_json": json.dumps(block["input"])}}))
            events.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
        events.append(("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop,
                                                                            "stop_sequence": None},
                                         "usage": {"output_tokens": 5}}))
        events.append(("message_stop", {"type": "message_stop"}))
        return 200, "text/event-stream", sse(events)


def tool_results(requests):
    """The texts sent back as tool results, in order: from the longest conversation posted to /messages."""
    best = longest_results(requests, "/messages", _results)
    return [_text_of(b.get("content")) for b in best]


def _feedback_of(body):
    """Per tool_result of a Messages request: its text plus the text blocks that follow it in the same
    user message (where Claude Code puts a post-tool hook's system-reminder)."""
    out = []
    for msg in body.get("messages") or []:
        if msg.get("role") != "user" or not isinstance(msg.get("content"), list):
            continue
        in_result = False
        for block in msg["content"]:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_result":
                out.append(_text_of(block.get("content")))
                in_result = True
            elif block.get("type") == "text" and in_result:
                out[-1] += "\n" + block.get("text", "")
    return out


def feedback(requests):
    """What the model got back for each tool call, in order (see _feedback_of)."""
    return longest_results(requests, "/messages", _feedback_of)


def environment(home, url, extra_env=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE", "OTEL_"))}
    env.update({
        "HOME": home, "ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": API_KEY,
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1", "DISABLE_BUG_COMMAND": "1", "IS_SANDBOX": "1",
        "CLAUDE_CODE_MAX_RETRIES": "0", "API_TIMEOUT_MS": "20000", "XDG_CONFIG_HOME": os.path.join(home, ".config"),
        "ANTHROPIC_MODEL": MODEL, "ANTHROPIC_SMALL_FAST_MODEL": MODEL, "CI": "1", "NO_COLOR": "1",
    })
    env.update(extra_env or {})
    return env


def prepare_home(home):
    """User-level state so the first run has nothing to ask: onboarding done, API key approved."""
    os.makedirs(os.path.join(home, ".claude"), exist_ok=True)
    state = os.path.join(home, ".claude.json")
    if not os.path.exists(state):
        with open(state, "w") as f:
            json.dump({"hasCompletedOnboarding": True, "numStartups": 1, "bypassPermissionsModeAccepted": True,
                       "customApiKeyResponses": {"approved": [API_KEY[-20:]], "rejected": []}}, f)


def run(repo, home, calls, timeout=60, extra_env=None, args=()):
    """Run ``claude -p`` in ``repo`` with HOME=``home`` while the fake model makes ``calls``."""
    if BINARY is None:
        raise RuntimeError("claude is not installed (tests/node)")
    prepare_home(home)
    with FakeModel(Dialect(), calls, limit=timeout + 10) as server:
        argv = [BINARY, "-p", PROMPT, "--output-format", "json", "--permission-mode", "bypassPermissions",
                "--model", MODEL] + list(args)
        code, out, err = run_bounded(argv, repo, environment(home, server.url, extra_env), timeout)
        requests = list(server.requests)
    return Result(code=code, stdout=out, stderr=err, requests=requests, tool_results=tool_results(requests),
                  feedback=feedback(requests))
