"""Run inside the gptme venv: load the workspace config and plugins as gptme does, run shell
blocks through the real confirm/execute path, then the real `complete` verification hook.
Usage: python gptme_driver.py WORKSPACE < commands.json
Prints one JSON line per command: {"outputs": [...]}, then {"complete": "closed" | "retry: <text>",
"denylisted": bool}."""
import json
import os
import sys
from pathlib import Path

ws = Path(sys.argv[1]).resolve()
os.chdir(ws)
from gptme.config import set_config_from_workspace  # noqa: E402

set_config_from_workspace(ws)
from gptme.init import init  # noqa: E402

init(model=None, interactive=False, tool_allowlist=["shell", "complete", "save"], tool_format="markdown",
     no_confirm=True, require_llm=False)
from gptme.message import Message  # noqa: E402
from gptme.tools import execute_msg  # noqa: E402
from gptme.tools.complete import SessionCompleteException, complete_hook  # noqa: E402
from gptme.tools.shell_validation import is_denylisted  # noqa: E402

for block in json.load(sys.stdin):
    msgs = list(execute_msg(Message("assistant", block), workspace=ws))
    print(json.dumps({"outputs": [m.content for m in msgs]}), flush=True)

script = ws / ".gptme" / "verify-completion.sh"
denied = is_denylisted(script.read_text())[0] if script.exists() else None
try:
    out = list(complete_hook([Message("user", "do it"), Message("assistant", "```complete\n```")], workspace=ws))
    verdict = "retry: " + " | ".join(getattr(m, "content", str(m)) for m in out)
except SessionCompleteException:
    verdict = "closed"
print(json.dumps({"complete": verdict, "denylisted": denied}), flush=True)
