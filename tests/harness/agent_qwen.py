"""Drive the real Qwen Code CLI (@qwen-code/qwen-code 0.15.10) headless against a scripted fake OpenAI
Chat Completions server on 127.0.0.1: `qwen -p PROMPT --auth-type openai --approval-mode yolo
--output-format json` with OPENAI_BASE_URL=<fake>/v1, OPENAI_API_KEY, OPENAI_MODEL.

API: ``BINARY``; ``run(repo, home, calls, timeout=60, extra_env=None, prompt=...)`` -> dict {code
(None on timeout), stdout, stderr, requests, tool_results, feedback (the same: a post hook's
additional context is appended to the tool result)}. Steps: ("shell", cmd) -> run_shell_command
{command, is_background, description}; ("write", path, content) -> write_file {file_path (made
absolute), content}; ("edit", path, old, new) -> edit {file_path, old_string, new_string};
("tool", name, args) as given.

Observed with 0.15.10 (experiments on this machine; one run of four calls ~10-25 s):
- Requests: POST /v1/chat/completions, "stream": true, every one with "tools": run_shell_command
  {command, is_background, timeout, description, directory}, monitor {command, description,
  max_events, idle_timeout_ms, directory}, write_file {file_path, content}, edit {file_path,
  old_string, new_string, replace_all}, read_file, list_directory, grep_search, glob, web_fetch,
  todo_write, agent, skill, tool_search, task_stop, send_message. The file tools take absolute paths
  only; nothing keeps them out of .git (write_file wrote .git/hooks/pre-push).
- Start-up: ~/.qwen/settings.json and the project's .qwen/settings.json get "$version": 4 when they
  lack it (the old bytes kept as settings.json.orig).
- Hooks (.qwen/settings.json, Claude Code's shape, timeout in ms): `bash -c COMMAND` in the project
  dir. PreToolUse exit 2 with the reason on stderr: the tool does not run, the model's tool result is
  the reason, the run goes on. PostToolUse / PostToolUseFailure hookSpecificOutput.additionalContext
  (exit 0): appended to the tool result ("<result>\n\n<context>", < and > escaped).
"""
import json
import os

try:
    from .agent_opencode import ChatCompletionsDialect, chat_tool_results
    from .fakeserver import FakeModel, binary, run_bounded
except ImportError:  # run as a script, or imported with tests/harness on sys.path
    from agent_opencode import ChatCompletionsDialect, chat_tool_results
    from fakeserver import FakeModel, binary, run_bounded

BINARY = binary("qwen")


def calls_for(calls, repo):
    """Harness-neutral steps -> Qwen Code tool calls (argument names from the tool schemas it sends;
    its file tools take absolute paths only)."""
    out = []
    for step in calls:
        kind = step[0]
        if kind == "shell":
            out.append(("run_shell_command", {"command": step[1], "is_background": False,
                                              "description": "scripted"}))
        elif kind == "write":
            out.append(("write_file", {"file_path": os.path.join(repo, step[1]), "content": step[2]}))
        elif kind == "edit":
            out.append(("edit", {"file_path": os.path.join(repo, step[1]), "old_string": step[2],
                                 "new_string": step[3]}))
        elif kind == "tool":
            out.append((step[1], step[2]))
        else:
            raise ValueError("unknown step %r" % (kind,))
    return out


def prepare_home(home):
    """~/.qwen/settings.json (when there is none yet): no usage statistics, no update check."""
    qdir = os.path.join(home, ".qwen")
    os.makedirs(qdir, exist_ok=True)
    settings = os.path.join(qdir, "settings.json")
    if not os.path.exists(settings):
        with open(settings, "w") as fh:
            json.dump({"privacy": {"usageStatisticsEnabled": False},
                       "general": {"disableAutoUpdate": True, "disableUpdateNag": True}}, fh)


def env_for(home, url, extra_env=None):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "USER": "root",
           "XDG_CONFIG_HOME": os.path.join(home, ".config"), "XDG_DATA_HOME": os.path.join(home, ".local", "share"),
           "XDG_CACHE_HOME": os.path.join(home, ".cache"), "XDG_STATE_HOME": os.path.join(home, ".local", "state"),
           "OPENAI_BASE_URL": url + "/v1", "OPENAI_API_KEY": "fake-openai-key", "OPENAI_MODEL": "fake-model",
           "LANG": "C.UTF-8", "TERM": "dumb", "NO_COLOR": "1", "CI": "1"}
    env.update(extra_env or {})
    return env


def run(repo, home, calls, timeout=60, extra_env=None, prompt="do the task"):
    repo, home = str(repo), str(home)
    prepare_home(home)
    with FakeModel(ChatCompletionsDialect(), calls_for(calls, repo), limit=timeout + 10) as fake:
        env = env_for(home, fake.url, extra_env)
        code, out, err = run_bounded([BINARY, "-p", prompt, "--auth-type", "openai", "--approval-mode", "yolo",
                                      "--output-format", "json"], repo, env, timeout)
        requests = list(fake.requests)
    results = chat_tool_results(requests)
    return {"code": code, "stdout": out, "stderr": err, "requests": requests, "tool_results": results,
            "feedback": results}
