"""``agentguard check``: the decision command every harness adapter calls.

    check [--cwd DIR] [--json] COMMAND      a shell command an agent is about to run
    check [--cwd DIR] [--json] --write PATH  a file an agent's file tool is about to write
    check --hook HARNESS                     one tool call as HARNESS's hook hands it over (stdin);
                                             exit 0 allow, 2 block (see harnesshook)

Exit 0 allow, 1 block, 2 usage error; ``--json`` prints {"decision", "rule", "reason"}. It reads
the repository and never changes anything. Anything unexpected ends in a block.
"""
import json
import os
import sys

from .analyse import Analyser
from ..gitio import scrubbed_env
from ..rules import Block

USAGE = "usage: agentguard check [--cwd DIR] [--json] (COMMAND | --write PATH) | check --hook HARNESS"


def analyse(command=None, write=None, cwd="."):
    """The Block that refuses the command or write, or None when it may run."""
    analyser = Analyser()
    try:
        if write is not None:
            analyser.check_write(write, cwd)
        else:
            analyser.check_command(command, cwd)
    except Block as block:
        return block
    except RecursionError:
        return Block("unanalysable", "nested too deeply")
    except Exception as exc:  # fail closed, without a traceback
        return Block("guard-error", type(exc).__name__)
    return None


def decide(command=None, write=None, cwd="."):
    """(decision, rule, reason)."""
    block = analyse(command, write, cwd)
    return ("allow", "", "") if block is None else ("block", block.rule, block.reason())


def parse_args(argv):
    cwd, as_json, write, rest = ".", False, None, []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            rest.extend(argv[i + 1:])
            break
        if a == "--json":
            as_json = True
        elif a == "--cwd" and i + 1 < len(argv):
            cwd = argv[i + 1]
            i += 1
        elif a.startswith("--cwd="):
            cwd = a[len("--cwd="):]
        elif a == "--write" and i + 1 < len(argv):
            write = argv[i + 1]
            i += 1
        elif a.startswith("--write="):
            write = a[len("--write="):]
        elif a.startswith("--") and not rest:
            raise ValueError("unknown option %s" % a)
        else:
            rest.append(a)
        i += 1
    if (write is None) == (not rest) or (write is not None and rest):
        raise ValueError("give a COMMAND or --write PATH")
    return cwd, as_json, write, " ".join(rest) if rest else None


def main(argv, out=None):
    out = out or sys.stdout
    hook = argv[1] if len(argv) == 2 and argv[0] == "--hook" else None
    if hook is None and argv and argv[0].startswith("--hook"):
        sys.stderr.write("%s\nagentguard check: --hook takes one harness name and nothing else\n" % USAGE)
        return 2
    try:
        cwd, as_json, write, command = parse_args(argv) if hook is None else (".", False, None, None)
    except ValueError as exc:
        sys.stderr.write("%s\nagentguard check: %s\n" % (USAGE, exc))
        return 2
    # The environment is the agent's: never let GIT_DIR & co. point the analysis elsewhere
    # (gitio.run hands os.environ to every git it starts).
    for key in os.environ.keys() - scrubbed_env().keys():
        del os.environ[key]
    if hook is not None:
        from .harnesshook import main as hook_main
        return hook_main(hook)
    block = analyse(command, write, cwd)
    if as_json:
        out.write(json.dumps(block.to_json() if block else {"decision": "allow", "rule": "", "reason": ""}) + "\n")
    elif block is not None:
        out.write(block.reason() + "\n")
    return 0 if block is None else 1
