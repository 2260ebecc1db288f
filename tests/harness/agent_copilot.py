"""Drive the real GitHub Copilot CLI (@github/copilot 1.0.102) headless against a scripted fake
OpenAI-compatible provider on 127.0.0.1: `copilot -p PROMPT --allow-all-tools --output-format json`
with COPILOT_OFFLINE=true and COPILOT_PROVIDER_BASE_URL=<fake>/v1. One run takes 2-5 s.

API: ``BINARY``; ``CopilotDialect``; ``run(repo, home, calls, timeout=60, extra_env=None, trust=True,
prompt=...)`` -> dict {code (None on timeout), stdout, stderr, requests, tool_results, feedback (per
call: the tool message and the user messages after it, where postToolUseFailure context goes)}. Steps:
("shell", cmd) -> bash {command, description}; ("write", path, content) -> create {path, file_text};
("edit", path, old, new) -> edit {path, old_str, new_str}. ``trust`` lists the repo in
$COPILOT_HOME/config.json's trustedFolders (when that file does not exist yet).

Observed with 1.0.102 (experiments on this machine):

Endpoint. With COPILOT_PROVIDER_TYPE=openai and COPILOT_MODEL=gpt-4.1 the CLI calls only
POST /v1/chat/completions ("stream": true, stream_options.include_usage); the Responses API is
used only with COPILOT_PROVIDER_WIRE_API=responses. No models list was requested. Tools offered:
bash {command, description, shellId, mode, detach, initial_wait}, create {path, file_text},
edit {path, old_str, new_str}, view, read_bash, stop_bash, list_bash, grep, glob, sql, task, ...
The CLI masks the provider API key wherever it appears in its output (an API key "x" turned
"exitCode" into "e******itCode"), hence a long key here. The npm package starts a native binary
that unpacks a 235 MB JavaScript package on first start into <cache>/pkg/<platform>/<version>
(COPILOT_PKG_CACHE_HOME, else XDG_CACHE_HOME/copilot): ``run`` shares one PKG_CACHE between runs.

Hooks (.github/hooks/<name>.json: {"version": 1, "hooks": {"preToolUse": [{"type": "command",
"bash": CMD, "timeoutSec": N}]}}):
1. Execution: `/bin/bash -c CMD` ($0 = /bin/bash, $- = hBc: not login, not interactive), spawned
   by the native copilot binary; shell expansion applies (`$((1+1)) '*'` arrived as "2" "*").
   cwd = the session's cwd (the repo). Env: the CLI's environment plus COPILOT_HOOK_DIR (the
   directory of the hook file, <repo>/.github/hooks), COPILOT_PROJECT_DIR and CLAUDE_PROJECT_DIR
   (= cwd), COPILOT_CLI=1, COPILOT_CLI_BINARY_VERSION, COPILOT_CLI_RESOLVED_DIST_DIR,
   FORCE_COLOR=false, and GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.bareRepository
   GIT_CONFIG_VALUE_0=explicit (so every git the hook runs sees that config).
2. stdin: {sessionId, timestamp (epoch ms, a number), cwd, toolName, toolArgs} (no event name);
   toolArgs as the model sent them, paths relative if given so: bash {command, description},
   create {path, file_text}, edit {path, old_str, new_str}. Captured: payloads/copilot-bash.json,
   copilot-create.json, copilot-edit.json.
3. Outcomes (the command/file change did NOT happen in every deny case; the text is the tool
   result the model got):
   - exit 2, reason on stderr: "Denied by preToolUse hook: hook exited with code 2" -- the stderr
     reason is NOT passed to the model (plain text on stdout with exit 2: the same text);
   - exit 0 + stdout {"permissionDecision": "deny", "permissionDecisionReason": R}:
     "Denied by preToolUse hook: R";
   - the same JSON with exit 2 (and other text on stderr): "Denied by preToolUse hook: R";
   - exit 1 (also exit 3): denied, 'Denied by preToolUse hook from ".github/hooks/<name>.json"
     (hook errored)'.
4. Timeout (timeoutSec 2, hook sleeping 30 s then exit 2): ALLOWED, the command ran.
5. Trust: $COPILOT_HOME/config.json is JSON after two `//` comment lines ("// User settings belong
   in settings.json." / "// This file is managed automatically."), the CLI adds e.g. firstLaunchAt;
   "trustedFolders": [absolute paths]; a listed parent covers its subfolders. Untrusted: repo hooks
   are silently skipped (no word on stdout/stderr, exit 0, the command runs).
   COPILOT_ALLOW_ALL=true (exactly "true") trusts the cwd (the hook ran); "1" only auto-approves
   tools (hook skipped). `--trust-folder` trusts for one -p session (from --help, not tried).
   disableAllHooks: true in the repo's .github/copilot/settings.json or settings.local.json
   switches off the repo hooks AND user-level hooks (inline "hooks" in $COPILOT_HOME/settings.json);
   in the user's $COPILOT_HOME/settings.json it switches off only user-level hooks (the repo hook
   still ran), in config.json it changed nothing.
"""
import json
import os
import tempfile

try:
    from .agent_opencode import ChatCompletionsDialect, chat_feedback, chat_tool_results
    from .fakeserver import FakeModel, binary, run_bounded
except ImportError:  # run as a script, or imported with tests/harness on sys.path
    from agent_opencode import ChatCompletionsDialect, chat_feedback, chat_tool_results
    from fakeserver import FakeModel, binary, run_bounded

BINARY = binary("copilot")
PKG_CACHE = os.path.join(tempfile.gettempdir(), "agentguard-copilot-pkg-%d" % os.getuid())


class CopilotDialect(ChatCompletionsDialect):
    """Chat Completions, as agent_opencode's, listing the model the CLI is told to use."""
    model_ids = ("gpt-4.1",)


def calls_for(calls):
    """Harness-neutral steps -> Copilot tool calls (argument names from the tool schemas it sends)."""
    out = []
    for step in calls:
        kind = step[0]
        if kind == "shell":
            out.append(("bash", {"command": step[1], "description": "scripted"}))
        elif kind == "write":
            out.append(("create", {"path": step[1], "file_text": step[2]}))
        elif kind == "edit":
            out.append(("edit", {"path": step[1], "old_str": step[2], "new_str": step[3]}))
        else:
            raise ValueError("unknown step %r" % (kind,))
    return out


def prepare_home(repo, home, trust=True):
    """$COPILOT_HOME/config.json (only when missing): no banner, no auto-update, and with ``trust``
    the repo in trustedFolders."""
    cdir = os.path.join(home, ".copilot")
    os.makedirs(cdir, exist_ok=True)
    config = os.path.join(cdir, "config.json")
    if not os.path.exists(config):
        data = {"banner": "never", "autoUpdate": False}
        if trust:
            data["trustedFolders"] = [os.path.realpath(repo)]
        with open(config, "w") as f:
            json.dump(data, f, indent=2)


def env_for(home, url, extra_env=None):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "USER": "root",
           "XDG_CONFIG_HOME": os.path.join(home, ".config"), "XDG_DATA_HOME": os.path.join(home, ".local", "share"),
           "XDG_CACHE_HOME": os.path.join(home, ".cache"), "XDG_STATE_HOME": os.path.join(home, ".local", "state"),
           "COPILOT_HOME": os.path.join(home, ".copilot"), "COPILOT_PKG_CACHE_HOME": PKG_CACHE,
           "COPILOT_OFFLINE": "true", "COPILOT_AUTO_UPDATE": "false",
           "COPILOT_PROVIDER_BASE_URL": url + "/v1", "COPILOT_PROVIDER_TYPE": "openai",
           "COPILOT_PROVIDER_API_KEY": "fake-provider-key", "COPILOT_MODEL": "gpt-4.1",
           "LANG": "C.UTF-8", "TERM": "dumb", "NO_COLOR": "1"}
    env.update(extra_env or {})
    return env


def run(repo, home, calls, timeout=60, extra_env=None, trust=True, prompt="do the task"):
    """Run `copilot -p PROMPT --allow-all-tools --output-format json` in ``repo`` with HOME=``home``
    (COPILOT_HOME=home/.copilot) against a fake model making ``calls`` then answering "done".
    Returns {code, stdout, stderr, requests, tool_results}."""
    repo, home = str(repo), str(home)
    prepare_home(repo, home, trust)
    with FakeModel(CopilotDialect(), calls_for(calls), limit=timeout + 10) as fake:
        env = env_for(home, fake.url, extra_env)
        code, out, err = run_bounded([BINARY, "-p", prompt, "--allow-all-tools", "--output-format", "json",
                                      "--no-auto-update", "--disable-client-telemetry"], repo, env, timeout)
        requests = list(fake.requests)
    return {"code": code, "stdout": out, "stderr": err, "requests": requests,
            "tool_results": chat_tool_results(requests), "feedback": chat_feedback(requests)}
