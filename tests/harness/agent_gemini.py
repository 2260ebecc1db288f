"""Drive the real Gemini CLI (@google/gemini-cli 0.61.0) headless against a scripted fake Gemini API on
127.0.0.1: `gemini -p PROMPT --approval-mode yolo --output-format json` with
GOOGLE_GEMINI_BASE_URL=<fake>, GEMINI_API_KEY, GEMINI_CLI_NO_RELAUNCH=true, GEMINI_SANDBOX=false and
user settings security.auth.selectedType "gemini-api-key", usage statistics and telemetry off.
One run takes ~2 s.

API: ``BINARY``; ``GeminiDialect``; ``run(repo, home, calls, timeout=60, extra_env=None, trust=True,
prompt=...)`` -> dict {code (None on timeout), stdout, stderr, requests, tool_results, feedback (the
same: an AfterTool hook's additional context is inside the tool result)}. Steps:
("shell", cmd) -> run_shell_command {command, description}; ("write", path, content) -> write_file
{file_path, content}; ("edit", path, old, new) -> replace {file_path, instruction, old_string,
new_string}. ``trust`` writes ~/.gemini/trustedFolders.json {"<realpath repo>": "TRUST_FOLDER"}
(when that file does not exist yet).

Observed with 0.61.0 (experiments on this machine, and its bundled source):

Requests. POST /v1beta/models/<m>:generateContent with a responseJsonSchema (the model router's
classifier: {complexity_reasoning, complexity_score}; answered from the schema), then
POST /v1beta/models/<m>:streamGenerateContent?alt=sse per turn (the conversation, with "tools").
A tool result comes back as a user part {functionResponse: {id, name, response: {output} or
{error}}}; ``tool_results`` returns output, else error. Tools offered: run_shell_command {command,
description, dir_path, is_background, delay_ms}, write_file {file_path, content}, replace
{file_path, instruction, old_string, new_string, allow_multiple}, read_file, list_directory, glob,
grep_search, web_fetch, google_web_search, ...

Hooks (.gemini/settings.json {"hooks": {"BeforeTool": [{"matcher": REGEX, "hooks": [{"type":
"command", "name": N, "command": CMD, "timeout": MS}]}]}}):
1. Execution: `bash -c CMD` (bash from PATH; powershell on Windows), after the CLI textually
   replaces $GEMINI_PROJECT_DIR, $GEMINI_CWD, $GEMINI_PLANS_DIR, $GEMINI_SESSION_ID in CMD by
   shell-quoted values; shell expansion applies (`$((1+1)) '*'` arrived as "2" "*"). cwd = the
   payload's cwd (the project dir, here the run's cwd). Env: the CLI's whole environment (redacted
   only with GITHUB_SHA set, SURFACE=Github or environment-variable redaction on) plus
   GEMINI_PROJECT_DIR, GEMINI_CWD (= cwd), GEMINI_SESSION_ID, GEMINI_PLANS_DIR, CLAUDE_PROJECT_DIR
   (= cwd) and the hook's own "env" map. Default timeout 60000 ms.
2. stdin: {session_id, transcript_path, cwd, hook_event_name: "BeforeTool", timestamp (ISO),
   tool_name, tool_input}, tool_input as the model sent it (file_path relative if given so):
   run_shell_command {command, description}, write_file {file_path, content}, replace
   {file_path, instruction, old_string, new_string}. Captured: payloads/gemini-run_shell_command.json,
   gemini-write_file.json, gemini-replace.json.
3. Outcomes. The CLI parses stdout.trim() or, when that is empty, stderr.trim(): a JSON object there
   decides whatever the exit code; plain text: exit 0 allows, exit 1 allows (a warning), any other
   exit denies with that text as the reason. In every deny case the command/file change did NOT
   happen and the run went on (exit 0); the model's tool result (functionResponse error) was:
   - exit 2, reason R on stderr: "Tool execution blocked: R";
   - exit 0 + stdout {"decision": "deny", "reason": R}: "Tool execution blocked: R";
   - the same JSON with exit 2 (other text on stderr): "Tool execution blocked: R" (JSON wins);
   - exit 2 with plain text T on stdout AND a reason on stderr: "Tool execution blocked: T"
     (stdout wins, the stderr reason is lost);
   - exit 3: denied like exit 2;  exit 1: ALLOWED (the command ran; "Hook(s) [N] failed" on stderr).
4. Timeout (timeout 2000 ms, hook sleeping 30 s then exit 2): ALLOWED, the command ran (the hook
   gets SIGTERM, SIGKILL 5 s later).
5. Trust. In 0.61.0 folder trust is ON by default (security.folderTrust.enabled defaults to true in
   the code; the bundled docs still say off). Headless in an untrusted folder the CLI exits 55
   ("Gemini CLI is not running in a trusted directory...") before any request. Trusted when:
   GEMINI_CLI_TRUST_WORKSPACE=true (or --skip-trust, which sets it), or ~/.gemini/trustedFolders.json
   (path overridable by GEMINI_CLI_TRUSTED_FOLDERS_PATH; JSON, comments allowed) maps a path to
   "TRUST_FOLDER" (that dir and below), "TRUST_PARENT" (the path's parent and below) or
   "DO_NOT_TRUST" (longest match wins; DO_NOT_TRUST -> exit 55), or folder trust is disabled in the
   user settings. GEMINI_CLI_TRUST_WORKSPACE=false (or GEMINI_RESTRICTED_MODE=true) makes the folder
   untrusted: exit 55 with folder trust on; with it off the run goes on, no project settings or hook
   load, and run_shell_command is not even offered. Project hooks run only in trusted folders.
   "Announced once, then recorded": the first run that sees a project hook prints "WARNING: The
   following project-level hooks have been detected in this workspace: - <name or command> ...
   These hooks will be executed" on stderr and records it in ~/.gemini/trusted_hooks.json
   {"<project root>": ["<name>:<command>"]}; later runs say nothing. The hook runs anyway, on the
   first (-p, headless) run too: nothing to approve. A project .gemini/settings.json can switch hooks
   off: "hooksConfig": {"enabled": false} or {"disabled": ["<hook name>"]} (both seen: no hook ran).
"""
import json
import os

try:
    from .fakeserver import FakeModel, binary, run_bounded, sse
except ImportError:  # run as a script, or imported with tests/harness on sys.path
    from fakeserver import FakeModel, binary, run_bounded, sse

BINARY = binary("gemini")

USAGE = {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}


def _candidate(parts):
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": USAGE}


def _fill(schema):
    """A value matching a (Gemini-style, upper-case types) JSON schema: answers the CLI's side
    requests (model router classifier, next-speaker check...) harmlessly."""
    schema = schema or {}
    if schema.get("enum"):
        return "user" if "user" in schema["enum"] else schema["enum"][0]
    kind = str(schema.get("type", "object")).lower()
    if kind == "object":
        return {k: _fill(v) for k, v in (schema.get("properties") or {}).items()}
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        return 1
    if kind == "boolean":
        return False
    return "simple"


class GeminiDialect:
    """Gemini API: POST /v1beta/models/<m>:streamGenerateContent?alt=sse (the conversation), and
    :generateContent with a responseJsonSchema (the model router); :countTokens and GETs answered too.
    A scripted call is ("tool name", {args})."""

    def count_results(self, body):
        return sum(1 for content in body.get("contents") or [] for part in content.get("parts") or []
                   if isinstance(part, dict) and "functionResponse" in part)

    def respond(self, model, method, path, body, step):
        if method == "GET":
            return 200, "application/json", b'{"models": []}'
        if ":countTokens" in path:
            return 200, "application/json", b'{"totalTokens": 10}'
        gen = body.get("generationConfig") or {}
        schema = gen.get("responseJsonSchema") or gen.get("responseSchema")
        if schema or gen.get("responseMimeType") == "application/json":
            payload = _candidate([{"text": json.dumps(_fill(schema))}])
        else:
            call = model.next_call(step)
            if call is None:
                payload = _candidate([{"text": "done"}])
            else:
                payload = _candidate([{"functionCall": {"name": call[0], "args": call[1]}}])
        if ":streamGenerateContent" in path:
            return 200, "text/event-stream", sse([(None, payload)])
        return 200, "application/json", json.dumps(payload).encode()


def calls_for(calls):
    """Harness-neutral steps -> Gemini tool calls (names and argument names from the tool schemas
    the CLI sends: run_shell_command {command, description, dir_path, is_background, delay_ms},
    write_file {file_path, content}, replace {file_path, instruction, old_string, new_string,
    allow_multiple})."""
    out = []
    for step in calls:
        kind = step[0]
        if kind == "shell":
            out.append(("run_shell_command", {"command": step[1], "description": "scripted"}))
        elif kind == "write":
            out.append(("write_file", {"file_path": step[1], "content": step[2]}))
        elif kind == "edit":
            out.append(("replace", {"file_path": step[1], "instruction": "scripted edit",
                                    "old_string": step[2], "new_string": step[3]}))
        else:
            raise ValueError("unknown step %r" % (kind,))
    return out


def tool_results(requests):
    """The tool results the CLI sent back to the model, in order: each functionResponse's
    response.output (response.error when it failed or was blocked)."""
    seen, out = set(), []
    for _method, _path, body in requests:
        if not isinstance(body, dict) or "tools" not in body:
            continue
        index = 0
        for content in body.get("contents") or []:
            for part in content.get("parts") or []:
                fr = part.get("functionResponse") if isinstance(part, dict) else None
                if fr is None:
                    continue
                key = fr.get("id") or index
                index += 1
                if key in seen:
                    continue
                seen.add(key)
                resp = fr.get("response") or {}
                text = resp.get("output", resp.get("error"))
                out.append(text if isinstance(text, str) else json.dumps(resp))
    return out


def prepare_home(repo, home, trust=True):
    """User-level config: API-key auth, no telemetry/usage stats, and (trust=True) the repo listed
    in ~/.gemini/trustedFolders.json. Files already present are left alone."""
    gdir = os.path.join(home, ".gemini")
    os.makedirs(gdir, exist_ok=True)
    settings = os.path.join(gdir, "settings.json")
    if not os.path.exists(settings):
        with open(settings, "w") as f:
            json.dump({"security": {"auth": {"selectedType": "gemini-api-key"}},
                       "privacy": {"usageStatisticsEnabled": False},
                       "telemetry": {"enabled": False},
                       "general": {"disableAutoUpdate": True, "disableUpdateNag": True}}, f)
    trusted = os.path.join(gdir, "trustedFolders.json")
    if trust and not os.path.exists(trusted):
        with open(trusted, "w") as f:
            json.dump({os.path.realpath(repo): "TRUST_FOLDER"}, f)


def env_for(home, url, extra_env=None):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "USER": "root",
           "XDG_CONFIG_HOME": os.path.join(home, ".config"), "XDG_DATA_HOME": os.path.join(home, ".local", "share"),
           "XDG_CACHE_HOME": os.path.join(home, ".cache"), "XDG_STATE_HOME": os.path.join(home, ".local", "state"),
           "GOOGLE_GEMINI_BASE_URL": url, "GEMINI_API_KEY": "fake-gemini-key", "GEMINI_CLI_NO_RELAUNCH": "true",
           "GEMINI_SANDBOX": "false", "LANG": "C.UTF-8", "TERM": "xterm-256color", "COLORTERM": "truecolor",
           "NO_COLOR": "1", "CI": "1"}
    env.update(extra_env or {})
    return env


def run(repo, home, calls, timeout=60, extra_env=None, trust=True, prompt="do the task"):
    """Run `gemini -p PROMPT --approval-mode yolo --output-format json` in ``repo`` with HOME=``home``
    against a fake model that makes ``calls`` (harness-neutral steps), then answers "done".
    With trust=False and no trustedFolders.json or GEMINI_CLI_TRUST_WORKSPACE in ``extra_env`` the
    CLI exits 55 before any request (folder trust is on by default).
    Returns {code, stdout, stderr, requests, tool_results}."""
    repo, home = str(repo), str(home)
    prepare_home(repo, home, trust)
    with FakeModel(GeminiDialect(), calls_for(calls), limit=timeout + 10) as fake:
        env = env_for(home, fake.url, extra_env)
        code, out, err = run_bounded([BINARY, "-p", prompt, "--approval-mode", "yolo", "--output-format", "json"],
                                     repo, env, timeout)
        requests = list(fake.requests)
    results = tool_results(requests)
    # an AfterTool hook's additional context is part of the tool result (<hook_context>)
    return {"code": code, "stdout": out, "stderr": err, "requests": requests, "tool_results": results,
            "feedback": results}
