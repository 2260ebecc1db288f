"""``agentguard check``: the decision command every harness adapter calls.

    check [--cwd DIR] [--json] COMMAND      a shell command an agent is about to run
    check [--cwd DIR] [--json] --write PATH  a file an agent's file tool is about to write
    check --hook HARNESS                     one tool call as HARNESS's hook hands it over (stdin);
                                             exit 0 allow, 2 block (see harness/hook.py)
    check --after [--cwd DIR] [--json]       after a tool call: undo what it did to the guard
                                             (exit 0 nothing to undo, 3 undone, 1 not all undone)
    check --after --hook HARNESS             the same, answered in HARNESS's post-tool-call terms

Exit 0 allow, 1 block, 2 usage error; ``--json`` prints {"decision", "rule", "reason"}. It reads
the repository and never changes anything. Anything unexpected ends in a block.
"""
import sys

from ..jsonlite import dumps  # json.dumps's text without `import json` (json.decoder imports re)

USAGE = ("usage: agentguard check [--cwd DIR] [--json] (COMMAND | --write PATH) | check [--after] --hook HARNESS"
         " | check --after [--cwd DIR] [--json]")


def parse_args(argv, after=False):
    """(cwd, as_json, write, command) of ``check``'s arguments; ``after``: only --cwd and --json."""
    cwd, as_json, write = ".", False, None
    rest: list = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if rest:  # every option goes before the command: the rest is the command's own
            rest.extend(argv[i:])
            break
        if a == "--" and not after:
            rest.extend(argv[i + 1:])
            break
        if a == "--json":
            as_json = True
        elif a == "--cwd" and i + 1 < len(argv):
            cwd = argv[i + 1]
            i += 1
        elif a.startswith("--cwd="):
            cwd = a[len("--cwd="):]
        elif after:
            raise ValueError("--after takes only --cwd DIR and --json")
        elif a == "--write" and i + 1 < len(argv):
            write = argv[i + 1]
            i += 1
        elif a.startswith("--write="):
            write = a[len("--write="):]
        elif a.startswith("-") and a != "-":
            raise ValueError("unknown option %s" % a)
        else:
            rest.append(a)
        i += 1
    if not after and ((write is None) == (not rest) or (write is not None and rest)):
        raise ValueError("give a COMMAND or --write PATH")
    return cwd, as_json, write, " ".join(rest) if rest else None


def main(argv, out=None):
    out = out or sys.stdout
    after = bool(argv) and argv[0] == "--after"
    if after:
        argv = argv[1:]
    if argv in (["--help"], ["-h"]) and not after:
        out.write("%s\n%s" % (USAGE, __doc__.split("\n", 1)[1].split("\nExit")[0]))
        out.write("Exit 0 allow, 1 block, 2 usage error.\n")
        return 0
    hook = argv[1] if len(argv) == 2 and argv[0] == "--hook" else None
    if hook is None and argv and argv[0].startswith("--hook"):
        sys.stderr.write("%s\nagentguard check: --hook takes one harness name and nothing else\n" % USAGE)
        return 2
    try:
        if hook is not None:
            cwd, as_json, write, command = ".", False, None, None
        else:
            cwd, as_json, write, command = parse_args(argv, after)
    except ValueError as exc:
        sys.stderr.write("%s\nagentguard check: %s\n" % (USAGE, exc))
        return 2
    from .. import layout
    layout.for_check()  # one rev-parse for the analyser and the snapshot (and the after-check's shortcut)
    if hook is not None:
        from ..harness.hook import main as hook_main, after_main
        return after_main(hook) if after else hook_main(hook)
    if after:
        from ..harness.hook import quiet
        from ..outcome.report import Report
        if not as_json and quiet(cwd):  # (--json lists the processes the call left running, even then)
            report = Report()
        else:
            from ..outcome.after import run
            report = run(cwd)
        if as_json:
            out.write(dumps(report.to_json()) + "\n")
        elif report.reason():
            out.write(report.reason() + "\n")
        return report.status
    from .decision import analyse, record_snapshot
    block = analyse(command, write, cwd)
    record_snapshot(cwd, command if write is None else "write " + write)
    if as_json:
        out.write(dumps(block.to_json() if block else {"decision": "allow", "rule": "", "reason": ""}) + "\n")
    elif block is not None:
        out.write(block.reason() + "\n")
    return 0 if block is None else 1


def __getattr__(name):
    """The decision's own names, as this module has always offered them, loaded when asked for: the
    after-check, which comes here too, never needs them."""
    if name in ("analyse", "record_snapshot", "verdict"):
        from . import decision
        return getattr(decision, name)
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


__all__ = ["main", "parse_args"]
