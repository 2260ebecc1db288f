"""Drive the real OpenCode CLI (opencode-ai 1.18.33) headless against a scripted fake OpenAI Chat
Completions server on 127.0.0.1: `opencode run --format json -m fake/<model> PROMPT`, provider `fake`
(@ai-sdk/openai-compatible, bundled in the binary) in the user config. One run takes 3-8 s.

API: ``BINARY``; ``ChatCompletionsDialect`` (also used by agent_copilot); ``run(repo, home, calls,
timeout=60, extra_env=None, prompt=..., model_id=None)`` -> dict {code (None on timeout), stdout,
stderr, requests, tool_results, feedback (per call: the tool message and any user message after
it)}. Steps: ("shell", cmd) -> bash {command}; ("write", path, content)
-> write {filePath, content}; ("edit", path, old, new) -> edit {filePath, oldString, newString};
("patch", patch_text) -> apply_patch {patchText} (then model_id defaults to "gpt-5").

Observed with 1.18.33 (experiments on this machine):

Requests. Every model request is POST /v1/chat/completions, "stream": true. The first one of a run
is the title generator (no "tools"; answered with plain text). Tools offered to a model named
"fake-model" (or gpt-4.1): bash {command, timeout, workdir}, edit {filePath, oldString, newString,
replaceAll}, write {content, filePath}, read, glob, grep, skill, task, todowrite, webfetch. There is
no patch tool for them. To gpt-* models other than gpt-4* (e.g. "gpt-5") OpenCode offers
apply_patch {patchText} INSTEAD of edit and write (the other tools stay).

The start-up npm install. For every config directory (~/.config/opencode, each .opencode from the
cwd up to the git worktree root, ~/.opencode, $OPENCODE_CONFIG_DIR) OpenCode writes a .gitignore
(node_modules, package.json, package-lock.json, bun.lock, .gitignore) and forks Npm.install(dir,
add @opencode-ai/plugin@<its version>) (@npmcli/arborist, registry from npm config/env). The install
is skipped when the directory is not writable, or when <dir>/node_modules exists AND every
dependency named in <dir>/package.json plus @opencode-ai/plugin appears in <dir>/package-lock.json's
packages[""].(dev|peer|optional)dependencies; versions are not compared, node_modules may be
empty. Checked: removing node_modules, the lock file, or the lock's entry each brings back one
registry request per directory (GET <registry>/@opencode-ai%2fplugin); with the seed
(``seed_dependencies``) a run makes none. With a reachable registry the install took ~13 s here
(64 MB into each dir). ``run`` also points npm_config_registry at the fake server (answered 404),
so a missed install fails fast and never reaches the network.

Plugins. Every *.js/*.ts in .opencode/plugins/ (or plugin/) loads at start, no trust step; each
export is called as ``async (ctx) => hooks``. Seen: process.cwd() = the run's cwd; ctx keys
client (SDK client), project {id, worktree, vcs: "git", sandboxes, time}, worktree (git root),
directory (the cwd; a subdirectory when run from one), experimental_workspace, serverUrl
("http://localhost:4096/", not listening in `run`), $ (Bun shell). The runtime is Bun 1.3.14
(process.argv[0] "bun", process.execPath the opencode binary).
- "tool.execute.before"(input, output): input = {tool, sessionID, callID} (no args, no cwd);
  output = {args} with the model's arguments exactly as sent (paths relative if the model gave them
  so): bash {command[, description, timeout, workdir]}, write {filePath, content}, edit {filePath,
  oldString, newString}, apply_patch {patchText} (the whole patch; paths only inside it). Captured:
  payloads/opencode-<tool>.json ({input, output}).
- A hook that throws blocks the call: the tool does not run and the tool result the model gets is
  exactly the Error's message (e.g. "agentguard: blocked by plugin reason"); the run goes on and
  exits 0.
- A plugin may spawn a child (node:child_process spawn, stdin piped) and await its exit inside
  the hook: works; the tool waits.
- A plugin whose function throws at load time is SKIPPED: OpenCode starts, runs the tools
  unguarded, exits 0, and says nothing on stdout/stderr (only "failed to load plugin" at ERROR in
  ~/.local/share/opencode/log/). A syntax error in ANOTHER plugin file does not stop ours.
- OPENCODE_DISABLE_PROJECT_CONFIG drops every project .opencode directory, plugins included.
"""
import json
import os
import time

try:
    from .fakeserver import FakeModel, binary, longest_results, run_bounded, sse
except ImportError:  # run as a script, or imported with tests/harness on sys.path
    from fakeserver import FakeModel, binary, longest_results, run_bounded, sse

BINARY = binary("opencode")

REGISTRY_PATH = "/npm-registry/"
USAGE = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}


def _chunk(delta, finish=None, usage=None):
    out = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": int(time.time()),
           "model": "fake-model", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    if usage:
        out["usage"] = usage
    return out


class ChatCompletionsDialect:
    """OpenAI Chat Completions: POST .../chat/completions (SSE when "stream": true, else one JSON
    object); GET .../models lists ``model_ids``; GETs under /npm-registry/ get 404. A scripted call
    is ("tool name", {args}). A request that offers no tools is a side request (OpenCode's title
    generator) and gets plain text."""

    model_ids = ("fake-model",)

    def count_results(self, body):
        return sum(1 for m in body.get("messages") or [] if isinstance(m, dict) and m.get("role") == "tool")

    def respond(self, model, method, path, body, step):
        if path.startswith(REGISTRY_PATH):
            return 404, "application/json", b'{"error": "no registry here"}'
        if method == "GET":
            if path.split("?")[0].rstrip("/").endswith("/models"):
                data = [{"id": m, "object": "model", "created": 0, "owned_by": "fake"} for m in self.model_ids]
                return 200, "application/json", json.dumps({"object": "list", "data": data}).encode()
            return 200, "application/json", b"{}"
        if not path.split("?")[0].endswith("/chat/completions"):
            return None
        call = model.next_call(step) if body.get("tools") else None
        if call is None:
            message = {"role": "assistant", "content": "done" if body.get("tools") else "Fake title"}
            finish = "stop"
        else:
            message = {"role": "assistant", "content": None, "tool_calls": [
                {"id": "call_%d" % step, "type": "function",
                 "function": {"name": call[0], "arguments": json.dumps(call[1])}}]}
            finish = "tool_calls"
        if body.get("stream"):
            delta = dict(message)
            if "tool_calls" in delta:
                delta["tool_calls"] = [dict(tc, index=0) for tc in delta["tool_calls"]]
            return 200, "text/event-stream", sse([(None, _chunk(delta)), (None, _chunk({}, finish, USAGE)),
                                                  (None, "[DONE]")])
        return 200, "application/json", json.dumps({
            "id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()), "model": "fake-model",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}], "usage": USAGE}).encode()


def chat_tool_results(requests):
    """The tool results the harness sent back to the model, in order: the role "tool" messages of the
    chat/completions requests, deduplicated by tool_call_id (each request repeats the conversation)."""
    seen, out = set(), []
    for _method, path, body in requests:
        if not isinstance(body, dict) or not path.split("?")[0].endswith("/chat/completions"):
            continue
        for msg in body.get("messages") or []:
            if not isinstance(msg, dict) or msg.get("role") != "tool":
                continue
            key = msg.get("tool_call_id")
            if key in seen:
                continue
            seen.add(key)
            content = msg.get("content")
            if isinstance(content, list):
                content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
            out.append(content if isinstance(content, str) else json.dumps(content))
    return out


def chat_feedback(requests):
    """Per tool call of the longest chat/completions conversation: the role "tool" message plus the
    user messages the harness put after it before the model's next turn (Copilot CLI puts a
    postToolUseFailure hook's additional context there)."""
    def of(body):
        out = []
        for msg in body.get("messages") or []:
            if not isinstance(msg, dict):
                continue
            content = msg.get("content")
            if isinstance(content, list):
                content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
            if msg.get("role") == "tool":
                out.append([content if isinstance(content, str) else json.dumps(content)])
            elif msg.get("role") == "user" and out and out[-1] is not None and isinstance(content, str):
                out[-1].append(content)
            elif msg.get("role") == "assistant" and out:
                out.append(None)  # a new turn: what follows belongs to the next call
        return ["\n".join(parts) for parts in out if parts is not None]
    return longest_results(requests, "/chat/completions", of)


def calls_for(calls):
    """Harness-neutral steps -> OpenCode tool calls (argument names from the tool schemas OpenCode sends)."""
    out = []
    for step in calls:
        kind = step[0]
        if kind == "shell":
            out.append(("bash", {"command": step[1]}))
        elif kind == "write":
            out.append(("write", {"filePath": step[1], "content": step[2]}))
        elif kind == "edit":
            out.append(("edit", {"filePath": step[1], "oldString": step[2], "newString": step[3]}))
        elif kind == "patch":  # offered (instead of edit and write) only to gpt-* models other than gpt-4*
            out.append(("apply_patch", {"patchText": step[1]}))
        else:
            raise ValueError("unknown step %r" % (kind,))
    return out


GITIGNORE = "node_modules\npackage.json\npackage-lock.json\nbun.lock\n.gitignore"
PLUGIN_PACKAGE = "@opencode-ai/plugin"


def seed_dependencies(directory, package=PLUGIN_PACKAGE, gitignore=GITIGNORE):
    """Make OpenCode's start-up dependency check pass in a config directory so it runs no npm
    install: an (empty) node_modules and a package-lock.json whose packages[""] names ``package``
    (@opencode-ai/plugin); plus the .gitignore OpenCode would write (so `git status` stays clean)."""
    os.makedirs(os.path.join(directory, "node_modules"), exist_ok=True)
    lock = os.path.join(directory, "package-lock.json")
    if not os.path.exists(lock):
        with open(lock, "w") as f:
            json.dump({"name": os.path.basename(directory), "lockfileVersion": 3, "requires": True,
                       "packages": {"": {"dependencies": {package: "*"}}}}, f, indent=2)
    ignore = os.path.join(directory, ".gitignore")
    if not os.path.exists(ignore):
        with open(ignore, "w") as f:
            f.write(gitignore)


def project_dirs(cwd, name=".opencode"):
    """The existing ``name`` directories OpenCode reads: from cwd up to the git worktree root."""
    out, here = [], os.path.realpath(cwd)
    while True:
        if os.path.isdir(os.path.join(here, name)):
            out.append(os.path.join(here, name))
        parent = os.path.dirname(here)
        if os.path.exists(os.path.join(here, ".git")) or parent == here:
            return out
        here = parent


def prepare_home(repo, home, url, model_id="fake-model"):
    """~/.config/opencode/opencode.json (merged into an existing one): provider "fake" at ``url``,
    model and small_model fake/<model_id>, no autoupdate/share; dependencies seeded in
    ~/.config/opencode and in each existing .opencode from ``repo`` up to its git root."""
    cfg = os.path.join(home, ".config", "opencode")
    os.makedirs(cfg, exist_ok=True)
    path = os.path.join(cfg, "opencode.json")
    config = {}
    if os.path.exists(path):
        with open(path) as f:
            config = json.load(f)
    config.update({"$schema": "https://opencode.ai/config.json", "autoupdate": False, "share": "disabled",
                   "model": "fake/" + model_id, "small_model": "fake/" + model_id})
    config.setdefault("provider", {})["fake"] = {
        "npm": "@ai-sdk/openai-compatible", "name": "Fake",
        "options": {"baseURL": url + "/v1", "apiKey": "fake-provider-key"},
        "models": {model_id: {"name": "Fake model", "tool_call": True}}}
    with open(path, "w") as f:
        json.dump(config, f, indent=2)
    seed_dependencies(cfg)
    for directory in project_dirs(repo):
        seed_dependencies(directory)


def env_for(home, registry, extra_env=None):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "USER": "root",
           "XDG_CONFIG_HOME": os.path.join(home, ".config"), "XDG_DATA_HOME": os.path.join(home, ".local", "share"),
           "XDG_CACHE_HOME": os.path.join(home, ".cache"), "XDG_STATE_HOME": os.path.join(home, ".local", "state"),
           "OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_MODELS_FETCH": "1",
           "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1", "OPENCODE_DISABLE_LSP_DOWNLOAD": "1", "OPENCODE_DISABLE_SHARE": "1",
           "LANG": "C.UTF-8", "TERM": "dumb", "NO_COLOR": "1",
           # should an install run after all, it asks the fake server (recorded, answered 404), not npmjs.org
           "npm_config_registry": registry}
    env.update(extra_env or {})
    return env


def run(repo, home, calls, timeout=60, extra_env=None, prompt="do the task", model_id=None):
    """Run `opencode run --format json -m fake/<model_id> PROMPT` in ``repo`` (cwd) with HOME and the
    XDG dirs under ``home``, against a fake model making ``calls`` then answering "done".
    ``model_id`` defaults to "gpt-5" when a step is a patch (apply_patch), else "fake-model".
    Returns {code, stdout, stderr, requests, tool_results}."""
    repo, home = str(repo), str(home)
    if model_id is None:
        model_id = "gpt-5" if any(step[0] == "patch" for step in calls) else "fake-model"
    with FakeModel(ChatCompletionsDialect(), calls_for(calls), limit=timeout + 10) as fake:
        prepare_home(repo, home, fake.url, model_id)
        env = env_for(home, fake.url + REGISTRY_PATH, extra_env)
        code, out, err = run_bounded([BINARY, "run", "--format", "json", "-m", "fake/" + model_id, prompt],
                                     repo, env, timeout)
        requests = list(fake.requests)
    return {"code": code, "stdout": out, "stderr": err, "requests": requests,
            "tool_results": chat_tool_results(requests), "feedback": chat_feedback(requests)}
