"""The decision ``agentguard check`` and the harness hooks (``harness/hook.py``) both ask for: does this command or
write run, and the guard's state recorded before it does for ``check --after``."""
import os

from .inert import inert


def analyse(command=None, write=None, cwd="."):
    """The Block that refuses the command or write, or None when it may run."""
    if write is None and inert(command):  # (`ls -la`: what the analyser would say, without loading it)
        return None
    from .analyse import Analyser  # here: `check --after` runs without the analyser
    from ..rules import Block
    analyser = Analyser(launcher_home())
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


def launcher_home():
    """``<git common dir>/agentguard`` when this is the runtime copy an installation's decision command
    runs (``.../agentguard/runtime/hooks/analyser/decision.py``), else None (the installed package)."""
    runtime = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if os.path.basename(runtime) == "runtime" and os.path.isfile(os.path.join(runtime, "run.py")):
        return os.path.dirname(runtime)
    return None


def verdict(command=None, write=None, cwd="."):
    """``check``'s verdict on a command or a write: ("allow", "", "") or ("block", rule, reason)."""
    block = analyse(command, write, cwd)
    return ("allow", "", "") if block is None else ("block", block.rule, block.reason())


def record_snapshot(cwd, call=None):
    """The guard's state before the tool call runs, for ``check --after`` (whatever the decision:
    the call may run anyway); ``call``: its command or tool, named when a later check repairs what
    changed since. Never fails the check."""
    try:
        from ..outcome.baseline import record
        record(cwd, call=call)
    except Exception:
        pass
