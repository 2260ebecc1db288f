"""Drive the real Codex CLI binary (tests/node, 0.171.0) headless against a scripted fake model.

API
  BINARY                      path of tests/node/node_modules/.bin/codex, or None
  MODEL = "gpt-5.5"           the model name matters: only known names get apply_patch. With "gpt-5.5"
                              the request offers exec_command {cmd, workdir, ...} (function), write_stdin,
                              apply_patch as a CUSTOM (freeform, lark grammar) tool, view_image, goals...;
                              "gpt-5.1-codex" or an unknown name get no apply_patch at all.
  Dialect                     OpenAI Responses: POST /v1/responses answered with SSE response.created,
                              output_item.added/done, response.completed. Shell -> function_call
                              exec_command {"cmd": ...}; write/patch -> custom_tool_call apply_patch with
                              the raw patch as ``input``. GET .../models gets a list, anything else {}.
  run(repo, home, calls, timeout=60, extra_env=None, args=(), config_extra="", trust_hooks=True)
                              -> Result (a dict with attributes): code (None on timeout), stdout (the
                              --json event lines), stderr, requests [(method, path, body)], tool_results
                              [text, ...] (function_call_output / custom_tool_call_output items of the
                              longest conversation posted, in order), feedback [text, ...] (per call: its
                              output and the messages Codex put between the call and the next one, e.g. a
                              hook's additional context as a developer message)
  calls                       ("shell", cmd); ("write", path, content) -> apply_patch "*** Add File: path"
                              (relative to repo, or absolute); ("patch", "*** Begin Patch ... *** End Patch");
                              ("tool", output_item) verbatim (e.g. exec_command with a workdir);
                              ("tool", name, arguments) a function_call ``name`` with JSON ``arguments``, a
                              dict or a callable given the tool result texts so far that returns one.
  session_id(results)         the id in the latest "Process running with session ID N" of result texts.
  exec_command / write_stdin  (0.171.0, gpt-5.5) exec_command {cmd, tty, yield_time_ms, workdir, shell,
                              login, ...}: a process still running at yield_time_ms stays open and the result
                              says "Process running with session ID N"; write_stdin {session_id (number),
                              chars, yield_time_ms, max_output_tokens} types ``chars`` into it. Verified: a
                              PreToolUse hook with NO matcher fired for the exec_command (tool_name "Bash",
                              tool_input {command: "sh"}) and for neither write_stdin (typed text ran).
  hook_trust_key_and_hash(hooks_json_path, group_index, hook_index, matcher, command, timeout)
                              -> ('<realpath>:pre_tool_use:G:H', 'sha256:<hex>'); hook_trust_toml(...) the
                              TOML table; trust_all_toml(hooks_json) trust for every hook in the file.
  The run: ``codex exec --json --skip-git-repo-check --color never PROMPT`` with cwd=repo, HOME=home,
  CODEX_HOME=home/.codex, whose config.toml is (re)written each run: model_provider "fake" (base_url
  http://127.0.0.1:PORT/v1, wire_api "responses", env_key FAKE_OPENAI_KEY, request/stream retries 0),
  approval_policy "never", sandbox_mode "danger-full-access", check_for_update_on_startup false,
  analytics/feedback off, [projects."<realpath repo>"] trust_level "trusted", then (trust_hooks) a
  [hooks.state] entry for each hook in <repo>/.codex/hooks.json, then ``config_extra`` (pass
  trust_hooks=False if config_extra carries its own [hooks.state] for the same keys: TOML forbids a
  table twice). No --dangerously-bypass-hook-trust. One run takes ~1 s (+ hook time).

Hook trust (verified with the real binary, no bypass flag; the facts file is right, with details):
  key   "<hooks.json path>:pre_tool_use:<group index>:<hook index>", the path CANONICAL (symlinks resolved:
        trusting <symlink>/.codex/hooks.json did not load the hook, the realpath did);
  hash  "sha256:" + sha256 of the compact (",", ":"), key-sorted, UTF-8 (not \\u-escaped) JSON of
        {"event_name": "pre_tool_use", "matcher": M, "hooks": [{"type": "command", "command": C,
        "timeout": max(1, N) (600 when unset), "async": false, "statusMessage": S}]}, where "matcher" is LEFT OUT
        when the group has none (not null) and "statusMessage" only when set. Verified: timeout 10,
        timeout unset (600), no matcher + non-ASCII statusMessage, group 1 / hook 1. Missing or wrong
        hash: the hook is silently skipped. ``enabled = false`` in the same [hooks.state."key"] table, or
        ``--disable hooks`` (features.hooks=false), also switch a hook off silently (both verified).
  Hooks are loaded once at start: deleting .codex/hooks.json mid-session left the hook active.

Findings (project .codex/hooks.json, matcher "Bash|apply_patch", hook logs stdin; exit 2 / JSON deny /
exit 1 / sleep when the input contains BLOCKME)
1. The ``command`` string runs as ``/bin/bash -c '<command>'`` here: the user's shell, bash (root's
   passwd shell); SHELL=/bin/sh in the env did not change it (upstream source: $SHELL -lc by default,
   so expect a POSIX shell, not a fixed one). Parent = the codex binary. cwd = the session cwd (repo),
   even when the call's workdir is elsewhere. Env: the harness's env (HOME, CODEX_HOME,
   CODEX_MANAGED_BY_NPM=1, CODEX_MANAGED_PACKAGE_ROOT); no CODEX_PROJECT_DIR / CLAUDE_PROJECT_DIR.
2. stdin (payloads/codex-{shell,apply_patch}.json): {session_id, turn_id, transcript_path, cwd,
   hook_event_name: "PreToolUse", model, permission_mode: "bypassPermissions", tool_name, tool_input,
   tool_use_id}. Shell (exec_command): tool_name "Bash", tool_input {command: "<cmd string>"} only (no
   workdir!); apply_patch: tool_name "apply_patch", tool_input {command: "<whole patch text>"} (paths as
   the model wrote them, relative or absolute).
3. exit 2 + stderr: not run; the model gets ``Command blocked by PreToolUse hook: <stderr reason>.
   Command: <command or patch text>`` (stderr included, trailing newline trimmed). exit 0 + JSON deny:
   not run; same text with permissionDecisionReason as the reason. exit 1 (+ stderr): ALLOWED, the model
   sees the normal output (exec_command: "Chunk ID ... Output:"; apply_patch: "Success. Updated the
   following files: A <path>").
4. Hook timeout (``"timeout": 3``, hook sleeps 20 s): after ~3 s the call is ALLOWED (command ran, no
   mention to the model). cwd: each exec_command is a fresh shell, so a ``cd`` never carries over; the
   payload ``cwd`` is the call's ``workdir`` argument when given (<repo>/sub), else the session cwd
   (the repo's realpath) - the hook must take the directory from ``cwd``, ``tool_input`` has none.
"""
import hashlib
import json
import os
import re
import uuid

try:
    from .fakeserver import FakeModel, Result, binary, longest_results, run_bounded, sse, stamp
except ImportError:  # run as a script, or imported with tests/harness on sys.path
    from fakeserver import FakeModel, Result, binary, longest_results, run_bounded, sse, stamp

BINARY = binary("codex")
MODEL = "gpt-5.5"
PROMPT = "Do the task."
OUTPUT_TYPES = ("function_call_output", "custom_tool_call_output")


def _text_of(output):
    """The text of a *_call_output's ``output`` (a string or a list of content items)."""
    if isinstance(output, str):
        return output
    if isinstance(output, dict):
        output = output.get("content", output)
        if isinstance(output, str):
            return output
    parts = []
    for item in output or []:
        if isinstance(item, dict) and "text" in item:
            parts.append(item["text"])
        else:
            parts.append(json.dumps(item))
    return "\n".join(parts)


def _results(body):
    return [i for i in body.get("input") or [] if isinstance(i, dict) and i.get("type") in OUTPUT_TYPES]


def _tools(body):
    """{name: tool spec} of the tools the request offers."""
    out = {}
    for tool in body.get("tools") or []:
        name = tool.get("name") or (tool.get("function") or {}).get("name")
        if name:
            out[name] = tool
    return out


def session_id(results):
    """The unified exec session id the latest of ``results`` (tool result texts) reports as still running
    ("Process running with session ID N"), as an int, or None."""
    for text in reversed(results):
        found = re.search(r"session ID (\d+)", text)
        if found:
            return int(found.group(1))
    return None


def add_file_patch(path, content):
    """An apply_patch body that adds ``path`` (relative to the cwd, or absolute) with ``content``."""
    lines = content.splitlines() or [""]
    return "*** Begin Patch\n*** Add File: %s\n%s\n*** End Patch" % (path, "\n".join("+" + line for line in lines))


class Dialect:
    """OpenAI Responses API (POST /v1/responses, SSE)."""

    def count_results(self, body):
        return len(_results(body))

    def _item(self, model, body, step):
        call = model.next_call(step) if body.get("tools") else None
        if call is None:
            return {"type": "message", "role": "assistant", "id": "msg_%s" % uuid.uuid4().hex[:16],
                    "content": [{"type": "output_text", "text": "Done.", "annotations": []}]}
        call_id = "call_%s" % uuid.uuid4().hex[:16]
        tools = _tools(body)
        kind = call[0]
        if kind == "shell":
            if "exec_command" in tools:
                return {"type": "function_call", "name": "exec_command", "call_id": call_id,
                        "arguments": json.dumps({"cmd": call[1], "yield_time_ms": 10000})}
            if "shell_command" in tools:
                return {"type": "function_call", "name": "shell_command", "call_id": call_id,
                        "arguments": json.dumps({"command": call[1]})}
            return {"type": "function_call", "name": "shell", "call_id": call_id,
                    "arguments": json.dumps({"command": ["bash", "-lc", call[1]]})}
        if kind in ("write", "patch"):
            patch = add_file_patch(call[1], call[2]) if kind == "write" else call[1]
            spec = tools.get("apply_patch")
            if spec is None:
                raise ValueError("codex offered no apply_patch tool (model %r)" % body.get("model"))
            if spec.get("type") == "custom":
                return {"type": "custom_tool_call", "name": "apply_patch", "call_id": call_id, "input": patch}
            return {"type": "function_call", "name": "apply_patch", "call_id": call_id,
                    "arguments": json.dumps({"input": patch})}
        if kind == "tool" and len(call) == 2:  # ("tool", item): a raw output item, verbatim (call_id filled in)
            return dict({"call_id": call_id}, **call[1])
        if kind == "tool":  # ("tool", name, arguments): a function_call; arguments may be f(results so far)
            arguments = call[2]
            if callable(arguments):
                arguments = arguments([_text_of(i.get("output")) for i in _results(body)])
            return {"type": "function_call", "name": call[1], "call_id": call_id, "arguments": json.dumps(arguments)}
        raise ValueError("codex: unsupported step %r" % (call,))

    def respond(self, model, method, path, body, step):
        route = path.split("?")[0]
        if method == "GET" and route.endswith("/models"):
            return 200, "application/json", json.dumps({"object": "list", "data": [
                {"id": MODEL, "object": "model", "created": stamp(), "owned_by": "fake"}], "models": []}).encode()
        if not (method == "POST" and route.endswith("/responses")):
            return 200, "application/json", b"{}"
        item = self._item(model, body, step)
        resp_id = "resp_%s" % uuid.uuid4().hex[:16]
        base = {"id": resp_id, "object": "response", "created_at": stamp(), "model": body.get("model") or MODEL}
        usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
                 "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15}
        events = [("response.created", {"type": "response.created", "response": dict(base, status="in_progress")}),
                  ("response.output_item.added", {"type": "response.output_item.added", "output_index": 0,
                                                  "item": item}),
                  ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0,
                                                 "item": item}),
                  ("response.completed", {"type": "response.completed", "response": dict(
                      base, status="completed", output=[item], usage=usage)})]
        return 200, "text/event-stream", sse(events)


def tool_results(requests):
    """The texts sent back as tool results, in order: from the longest conversation posted to /responses."""
    best = longest_results(requests, "/responses", _results)
    return [_text_of(i.get("output")) for i in best]


def _feedback_of(body):
    """Per tool call of a Responses request: its output plus every message item between the call and
    the next call (Codex puts a post-tool hook's additional context there, as a developer message)."""
    out, current = [], None
    for item in body.get("input") or []:
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if kind in ("function_call", "custom_tool_call"):
            current = []
            out.append(current)
        elif current is not None and kind in OUTPUT_TYPES:
            current.insert(0, _text_of(item.get("output")))
        elif current is not None and kind == "message" and item.get("role") in ("developer", "user", "system"):
            current.append(_text_of(item.get("content")))
        elif kind == "message" and item.get("role") == "assistant":
            current = None
    return ["\n".join(parts) for parts in out]


def feedback(requests):
    """What the model got back for each tool call, in order (see _feedback_of)."""
    return longest_results(requests, "/responses", _feedback_of)


def toml_str(text):
    return json.dumps(text)  # a JSON string is a valid TOML basic string


def hook_trust_key_and_hash(hooks_json_path, group_index, hook_index, matcher, command, timeout,
                            status_message=None, is_async=False, event="pre_tool_use"):
    """(the [hooks.state] key, "sha256:<hex>") that marks one hooks.json command hook as trusted
    (verified for PreToolUse; ``event`` is the snake_case event label).

    ``timeout``: the hook's ``timeout`` as written (None when unset: Codex hashes 600; values below 1 become 1);
    ``matcher``: None when the group has no matcher (the key is then left out of the hashed identity)."""
    key = "%s:%s:%d:%d" % (os.path.realpath(hooks_json_path), event, group_index, hook_index)
    handler = {"type": "command", "command": command, "timeout": max(1, 600 if timeout is None else timeout),
               "async": bool(is_async)}
    if status_message is not None:
        handler["statusMessage"] = status_message
    identity = {"event_name": event, "hooks": [handler]}
    if matcher is not None:
        identity["matcher"] = matcher
    data = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return key, "sha256:" + hashlib.sha256(data.encode("utf-8")).hexdigest()


def hook_trust_toml(hooks_json_path, group_index, hook_index, matcher, command, timeout, **kw):
    """The config.toml lines that trust one hook (see hook_trust_key_and_hash)."""
    key, digest = hook_trust_key_and_hash(hooks_json_path, group_index, hook_index, matcher, command, timeout, **kw)
    return "[hooks.state.%s]\ntrusted_hash = %s\n" % (toml_str(key), toml_str(digest))


def _snake(name):
    return "".join("_" + c.lower() if c.isupper() and i else c.lower() for i, c in enumerate(name))


def trust_all_toml(hooks_json_path):
    """Trust entries for every command hook in a hooks.json (what a user accepting them in /hooks records)."""
    with open(hooks_json_path) as f:
        events = (json.load(f).get("hooks") or {})
    out = []
    for event, groups in events.items():
        for g, group in enumerate(groups or []):
            for h, hook in enumerate(group.get("hooks") or []):
                if hook.get("type", "command") != "command" or not hook.get("command"):
                    continue
                out.append(hook_trust_toml(hooks_json_path, g, h, group.get("matcher"), hook["command"],
                                           hook.get("timeout"), status_message=hook.get("statusMessage"),
                                           is_async=hook.get("async", False), event=_snake(event)))
    return "\n".join(out)


def config_toml(url, repo, extra=""):
    return "\n".join([
        'model = %s' % toml_str(MODEL),
        'model_provider = "fake"',
        'approval_policy = "never"',
        'sandbox_mode = "danger-full-access"',
        'check_for_update_on_startup = false',
        '',
        '[analytics]', 'enabled = false', '',
        '[feedback]', 'enabled = false', '',
        '[model_providers.fake]',
        'name = "fake"',
        'base_url = %s' % toml_str(url + "/v1"),
        'wire_api = "responses"',
        'env_key = "FAKE_OPENAI_KEY"',
        'request_max_retries = 0',
        'stream_max_retries = 0',
        'stream_idle_timeout_ms = 20000',
        '',
        '[projects.%s]' % toml_str(os.path.realpath(repo)),
        'trust_level = "trusted"',
        '', extra, ''])


def environment(home, extra_env=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CODEX_", "OPENAI_", "OTEL_"))}
    env.update({"HOME": home, "CODEX_HOME": os.path.join(home, ".codex"), "FAKE_OPENAI_KEY": "sk-fake",
                "NO_COLOR": "1", "RUST_LOG": "error"})
    env.update(extra_env or {})
    return env


def run(repo, home, calls, timeout=60, extra_env=None, args=(), config_extra="", trust_hooks=True):
    """Run ``codex exec`` in ``repo`` with HOME=``home`` (CODEX_HOME=home/.codex) while the fake model
    makes ``calls``. Writes $CODEX_HOME/config.toml afresh each run: the fake provider, the project trust,
    with ``trust_hooks`` a [hooks.state] trust entry for every hook in ``repo``/.codex/hooks.json as it is
    now, then ``config_extra`` (TOML appended verbatim)."""
    if BINARY is None:
        raise RuntimeError("codex is not installed (tests/node)")
    codex_home = os.path.join(home, ".codex")
    os.makedirs(codex_home, exist_ok=True)
    with FakeModel(Dialect(), calls, limit=timeout + 10) as server:
        hooks_json = os.path.join(repo, ".codex", "hooks.json")
        if trust_hooks and os.path.isfile(hooks_json):
            config_extra = trust_all_toml(hooks_json) + "\n" + config_extra
        with open(os.path.join(codex_home, "config.toml"), "w") as f:
            f.write(config_toml(server.url, repo, config_extra))
        argv = [BINARY, "exec", "--json", "--skip-git-repo-check", "--color", "never"] + list(args) + [PROMPT]
        code, out, err = run_bounded(argv, repo, environment(home, extra_env), timeout)
        requests = list(server.requests)
    return Result(code=code, stdout=out, stderr=err, requests=requests, tool_results=tool_results(requests),
                  feedback=feedback(requests))
