"""Drive the real Cline CLI (cline 3.0.65) headless against a scripted fake OpenAI-compatible provider
on 127.0.0.1: `cline auth -p openai-compatible -k KEY -m fake-model -b <fake>/v1`, then
`cline --json PROMPT` in the repository (headless, tools auto-approved). One run takes 2-5 s.

API: ``BINARY``; ``run(repo, home, calls, timeout=60, extra_env=None, prompt=...)`` -> dict {code (None
on timeout), stdout, stderr, requests, tool_results, feedback}. Steps: ("shell", cmd) -> run_commands
{commands: [cmd]}; ("write", path, content) -> editor {path (absolute), new_text}; ("edit", path, old,
new) -> editor {path, old_text, new_text}.

Observed with 3.0.65: the CLI posts to /v1/chat/completions ("stream": true); each tool result is a
role "tool" message holding the tool's JSON (``[{"query", "result", "error", "success"}]``); the hook
context a PreToolUse or PostToolUse hook gives (``contextModification``) follows it as a user message
``<hook_context source="..." tool_name="..." ...>TEXT</hook_context>``. Cline tells the model why a
refused edit failed only in that context, so here ``tool_results`` are per call the tool's message
with the messages after it (``feedback``), as the model reads them.
"""
import os
import signal

try:
    from .agent_opencode import ChatCompletionsDialect, chat_feedback
    from .fakeserver import FakeModel, binary, run_bounded
except ImportError:  # run as a script, or imported with tests/harness on sys.path
    from agent_opencode import ChatCompletionsDialect, chat_feedback
    from fakeserver import FakeModel, binary, run_bounded

BINARY = binary("cline")


def calls_for(repo, calls):
    """Harness-neutral steps -> Cline tool calls (the editor takes absolute paths)."""
    out = []
    for step in calls:
        kind = step[0]
        if kind == "shell":
            out.append(("run_commands", {"commands": [step[1]]}))
        elif kind == "write":
            out.append(("editor", {"path": os.path.join(repo, step[1]), "new_text": step[2]}))
        elif kind == "edit":
            out.append(("editor", {"path": os.path.join(repo, step[1]), "old_text": step[2], "new_text": step[3]}))
        else:
            raise ValueError("unknown step %r" % (kind,))
    return out


def env_for(home, extra_env=None):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "USER": "root",
           "CLINE_DIR": os.path.join(home, ".cline"), "XDG_CONFIG_HOME": os.path.join(home, ".config"),
           "XDG_DATA_HOME": os.path.join(home, ".local", "share"), "XDG_CACHE_HOME": os.path.join(home, ".cache"),
           "LANG": "C.UTF-8", "TERM": "dumb", "NO_COLOR": "1"}
    env.update(extra_env or {})
    return env


def stop_hub_daemons(cline_dir):
    """Kill the hub daemon cline starts for ``cline_dir``: it leaves the run's process group (its own
    session), so killing the group does not reach it, and it outlives the run by hours."""
    mark = ("CLINE_DIR=%s" % cline_dir).encode()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/environ" % pid, "rb") as fh:
                if mark in fh.read().split(b"\0"):
                    os.kill(int(pid), signal.SIGKILL)
        except OSError:
            continue


def run(repo, home, calls, timeout=60, extra_env=None, prompt="do the task"):
    """Run `cline --json PROMPT` in ``repo`` with HOME=``home`` against a fake model making ``calls``
    then answering "done". Returns {code, stdout, stderr, requests, tool_results, feedback}."""
    repo, home = str(repo), str(home)
    with FakeModel(ChatCompletionsDialect(), calls_for(repo, calls), limit=timeout + 10) as fake:
        env = env_for(home, extra_env)
        code, out, err = run_bounded([BINARY, "auth", "-p", "openai-compatible", "-k", "fake-provider-key",
                                      "-m", "fake-model", "-b", fake.url + "/v1"], repo, env, timeout)
        if code == 0:
            code, out, err = run_bounded([BINARY, "--json", prompt], repo, env, timeout)
        requests = list(fake.requests)
    stop_hub_daemons(env["CLINE_DIR"])
    feedback = chat_feedback(requests)
    return {"code": code, "stdout": out, "stderr": err, "requests": requests,
            "tool_results": feedback, "feedback": feedback}
