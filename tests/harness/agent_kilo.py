"""Drive the real Kilo Code CLI (@kilocode/cli-linux-x64 7.7.9, an OpenCode fork) headless against the
scripted fake Chat Completions server (agent_opencode's dialect): `kilo run --format json
-m fake/fake-model --auto PROMPT`, the provider "fake" (@ai-sdk/openai-compatible, bundled) given in
KILO_CONFIG_CONTENT with "enabled_providers": ["fake"]. Same ``run(repo, home, calls, timeout,
extra_env)`` as agent_opencode; steps ("shell", cmd) -> bash {command}, ("write", path, content) ->
write {filePath, content}, ("edit", ...) -> edit.

Observed with 7.7.9 here: plugins in .kilo/plugins load at start (no trust step); a throw in
tool.execute.before is the tool's result; a plugin that fails to load is skipped silently. At start
Kilo writes .kilo/.gitignore and installs @kilocode/plugin into each config directory (npm, in the
background); seeded like OpenCode's so no install runs, and the registry points at the fake server
(404) should one run anyway. A run takes tens of seconds (start-up, indexing switched off), so the
tests put several calls in one run."""
import json
import os

try:
    from .agent_opencode import (REGISTRY_PATH, ChatCompletionsDialect, calls_for, chat_feedback, chat_tool_results,
                                 project_dirs, seed_dependencies)
    from .fakeserver import FakeModel, run_bounded
except ImportError:  # run as a script, or imported with tests/harness on sys.path
    from agent_opencode import (REGISTRY_PATH, ChatCompletionsDialect, calls_for, chat_feedback, chat_tool_results,
                                project_dirs, seed_dependencies)
    from fakeserver import FakeModel, run_bounded

NODE_MODULES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "node", "node_modules")
_path = os.path.join(NODE_MODULES, "@kilocode", "cli-linux-x64", "bin", "kilo")
BINARY = _path if os.access(_path, os.X_OK) else None

PLUGIN_PACKAGE = "@kilocode/plugin"
GITIGNORE = "node_modules\npackage.json\npackage-lock.json\npnpm-lock.yaml\nbun.lock\nyarn.lock\n.gitignore\n" \
            "agent-manager.json\n"
OFFLINE = {"KILO_DISABLE_AUTOUPDATE": "1", "KILO_DISABLE_MODELS_FETCH": "1", "KILO_DISABLE_SHARE": "1",
           "KILO_DISABLE_LSP_DOWNLOAD": "1", "KILO_TELEMETRY_LEVEL": "off", "KILO_DISABLE_SESSION_INGEST": "1",
           "KILO_NO_DAEMON": "1", "KILO_DISABLE_CODEBASE_INDEXING": "1"}


def config(url, model_id="fake-model"):
    return {"provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "name": "Fake",
                                  "options": {"baseURL": url + "/v1", "apiKey": "fake-provider-key"},
                                  "models": {model_id: {"name": "Fake model", "tool_call": True}}}},
            "model": "fake/" + model_id, "small_model": "fake/" + model_id,
            "share": "disabled", "autoupdate": False, "enabled_providers": ["fake"]}


def prepare_home(repo, home):
    """Seed the dependency check in ~/.config/kilo and each .kilo/.kilocode from ``repo`` up to its git root."""
    seed_dependencies(os.path.join(home, ".config", "kilo"), PLUGIN_PACKAGE, GITIGNORE)
    for name in (".kilo", ".kilocode"):
        for directory in project_dirs(repo, name):
            seed_dependencies(directory, PLUGIN_PACKAGE, GITIGNORE)


def env_for(home, url, extra_env=None):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "USER": "root",
           "XDG_CONFIG_HOME": os.path.join(home, ".config"), "XDG_DATA_HOME": os.path.join(home, ".local", "share"),
           "XDG_CACHE_HOME": os.path.join(home, ".cache"), "XDG_STATE_HOME": os.path.join(home, ".local", "state"),
           "KILO_CONFIG_CONTENT": json.dumps(config(url)), "LANG": "C.UTF-8", "TERM": "dumb", "NO_COLOR": "1",
           "npm_config_registry": url + REGISTRY_PATH}
    env.update(OFFLINE)
    env.update(extra_env or {})
    return env


def run(repo, home, calls, timeout=240, extra_env=None, prompt="do the task"):
    """Run `kilo run --format json -m fake/fake-model --auto PROMPT` in ``repo`` with HOME and the XDG
    dirs under ``home``, against a fake model making ``calls`` then answering "done".
    Returns {code (None on timeout), stdout, stderr, requests, tool_results, feedback}."""
    repo, home = str(repo), str(home)
    timeout = max(timeout, 240)  # start-up alone takes tens of seconds on a busy machine
    with FakeModel(ChatCompletionsDialect(), calls_for(calls), limit=timeout + 10) as fake:
        prepare_home(repo, home)
        code, out, err = run_bounded([BINARY, "run", "--format", "json", "-m", "fake/fake-model", "--auto", prompt],
                                     repo, env_for(home, fake.url, extra_env), timeout)
        requests = list(fake.requests)
    return {"code": code, "stdout": out, "stderr": err, "requests": requests,
            "tool_results": chat_tool_results(requests), "feedback": chat_feedback(requests)}
