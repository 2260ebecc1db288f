"""Run inside the hermes-agent venv, cwd = the project: discover plugins the way Hermes does
(import model_tools), then dispatch tool calls for real. Reads a JSON list of
[tool, args] from stdin; prints one JSON line per call:
{"block": message or null, "result": the dispatch result}."""
import json
import sys

import model_tools  # noqa: F401  (discovers plugins, once per process)
from hermes_cli.plugins import resolve_pre_tool_block

for tool, args in json.load(sys.stdin):
    block = resolve_pre_tool_block(tool, args, task_id="t")
    result = model_tools.handle_function_call(tool, args, task_id="t")
    print(json.dumps({"block": block, "result": str(result)[:2000]}), flush=True)
