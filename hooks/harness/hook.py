"""``agentguard check --hook HARNESS``: one tool call, as a harness's hook hands it over (JSON on
stdin), decided by the analyser and answered in that harness's own terms. ``check --after --hook
HARNESS`` (``after_main``): the after-check once the call ran, from the harness's post-call payload,
its outcome told to the model the way that harness's post-call hook can (``Protocol.tell``).

Several harnesses take exit status 1 as *allow*, so a block is exit 2 with the reason on stderr,
unless the harness's ``Protocol.deny`` answers otherwise (a JSON deny on stdout, and its exit
status; each harness's module says why). Whatever goes wrong
(a payload that cannot be read, a timeout, a bug) ends in a block when the call involves git or the
guard's files, and in an allow otherwise.

The payload is untrusted: bounded, parsed once, and only the fields its ``descriptor.Protocol`` names are read.
The after path imports neither the analyser nor the rules (it runs after every call).
"""
import os
import sys

from ..jsonlite import loads
from . import registry

MAX_PAYLOAD = 16 * 1024 * 1024
TIMEOUT = 10  # seconds; every harness hook is given more (install writes 30), so ours ends first
# The files an apply_patch / V4A patch touches (a protocol's ``patches`` tools, a plugin's patch tool): each is a write.
PATCH_FILE = r"^\*\*\* (?:Update|Add|Delete) File: (.+)$|^\*\*\* Move to: (.+)$"  # re.M
COMMAND_KEYS = ("command", "cmd")


# What the model is told when the after-check itself could not run ({0}: why). The sh hook and the
# plugins render the same text (installer/harness/settingsfile.py, installer/harness/adapters.py), so it stays free of
# quotes, backslashes, ``$`` and backquotes.
UNCHECKED = ("agentguard: could not check what this tool call did to the git guard ({0}) [rule: guard-error]. "
             "Instead: run agentguard doctor; agentguard install repairs it.")



def not_installed(harness="{0}"):
    """What an adapter says when it runs in a clone where agentguard was never installed (no
    ``<git common dir>/agentguard/manifest.json``): the team committed its settings, and every tool
    call that runs a command or writes a file is blocked until ``agentguard install`` runs there.
    Rendered into the sh hook and the plugins by the installer (plain text: no quotes, ``$``, backquotes)."""
    from ..rules import Block
    return Block("not-installed", harness).reason()


def ere(name):
    """``name`` as a POSIX ERE that matches it alone (a ``-`` needs no backslash there)."""
    import re
    return re.escape(name).replace("\\-", "-")


def read_tools():
    """Every harness's read-only tools, as a POSIX ERE alternation (the sh hook's not-installed path)."""
    return "|".join(ere(t) for t in registry.read_tools())


def __getattr__(attr):
    if attr == "PROTOCOLS":  # every harness's protocol (the installer's): the registry's, built when asked for
        return registry.PROTOCOLS
    raise AttributeError(attr)


class _Timeout(BaseException):
    """Raised by the alarm; a BaseException so that the analyser's own catch-all does not take it."""


def _on_alarm(signum, frame):
    raise _Timeout()


def _signals():
    """The alarm's functions: ``_signal``, what ``signal`` wraps (``signal`` imports ``enum``: ~5 ms)."""
    try:
        import _signal as signals
    except ImportError:  # another Python than CPython
        import signal as signals  # type: ignore[no-redef]
    return signals


def _start_alarm():
    """Arm the TIMEOUT alarm; returns the handler it replaced, for ``_stop_alarm``."""
    signal = _signals()
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.alarm(TIMEOUT)
    return previous


def _stop_alarm(previous):
    signal = _signals()
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def load(protocol, data):
    """The payload in ``data`` (bytes), in the flat shape ``protocol`` names (``Protocol.load``)."""
    payload = loads(data.decode("utf-8"))
    return protocol.load(payload) if protocol.load is not None else payload


def subjects(protocol, payload):
    """[("command" | "powershell" | "write", text, cwd)] that the tool call in ``payload`` would run or write."""
    if not isinstance(payload, dict):
        raise ValueError("the payload is not a JSON object")
    tool = payload.get(protocol.tool)
    args = _args(protocol, payload)
    if isinstance(args, str):  # some harnesses hand the arguments over as a JSON string
        args = loads(args)
    if not isinstance(tool, str) or not isinstance(args, (dict, type(None))):
        raise ValueError("the payload names no tool")
    args = args or {}
    cwd = _payload_cwd(payload, protocol)
    out: list = []
    if tool in protocol.reads:
        return out
    if tool in protocol.shell or (tool not in protocol.writes and tool not in protocol.patches):
        keys = (protocol.shell[tool],) if tool in protocol.shell else COMMAND_KEYS
        kind = "powershell" if tool in protocol.powershell else "command"
        for key in keys:
            if key in args:
                texts = args[key] if tool in protocol.lists and isinstance(args[key], list) else [args[key]]
                out.extend((kind, _command_text(text), _workdir(protocol, tool, args, cwd)) for text in texts)
    for key in protocol.writes.get(tool, ()):
        if key in args:  # a path, or a list of paths (a plugin's tool call that changes several files)
            paths = args[key] if isinstance(args[key], list) else [args[key]]
            out += [("write", _text(path), cwd) for path in paths]
    if tool in protocol.patches:
        patch = _text(args.get(protocol.patches[tool], ""))
        import re
        for match in re.finditer(PATCH_FILE, patch, re.M):
            out.append(("write", (match.group(1) or match.group(2)).strip(), cwd))
        if "*** Begin Patch" in patch and not out:
            raise ValueError("a patch whose files cannot be read")
    return out


def _args(protocol, payload):
    """The tool call's arguments: under the protocol's key (of its keys, the first the payload has)."""
    keys = protocol.args if isinstance(protocol.args, tuple) else (protocol.args,)
    return next((payload[key] for key in keys if key in payload), None)


def _text(value):
    if not isinstance(value, str):
        raise ValueError("an argument is not text")
    return value


def _command_text(value):
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        import shlex  # only here: the --hook path runs on every tool call
        return shlex.join(value)  # an argv (a shell tool that takes one): as the shell would read it
    return _text(value)


def _workdir(protocol, tool, args, cwd):
    key = protocol.workdir.get(tool)
    value = args.get(key) if key else None
    if value is None:
        return cwd
    return os.path.join(cwd, _text(value))


def call_text(harness, data):
    """What a fallback judges: the tool call's name and arguments when the payload reads as JSON,
    else all of it (the session's own paths, ``cwd`` and ``transcript_path``, name no call's intent:
    ``~/.claude/projects/...`` must not block every call when the runtime fails)."""
    try:
        protocol = registry.protocol(harness)
        payload = load(protocol, data)
        tool, args = payload[protocol.tool], _args(protocol, payload)
        if isinstance(tool, str) and isinstance(args, (dict, str, type(None))):
            import json
            return json.dumps([tool, args], ensure_ascii=False)
    except Exception:
        pass
    return data.decode("utf-8", "replace")  # not the shape a harness sends: all of it


def _dumps(answer):
    import json
    return json.dumps(answer)


def quiet(cwd):
    """True when the after-check in ``cwd`` has nothing to undo or tell (``outcome.unchanged``: without
    loading the after-check); a fault there leaves it to the after-check itself."""
    from ..outcome.unchanged import nothing_to_undo
    try:
        return nothing_to_undo(cwd)
    except Exception:
        return False


def tool_call_block(harness, data):
    """The Block for the tool call in ``data`` (raw payload bytes), or None to allow; and, whatever the
    decision, the after-check's snapshot of the repository the call runs in."""
    from ..analyser.decision import analyse, record_snapshot
    protocol = registry.protocol(harness)
    payload = load(protocol, data)
    found, call = None, None
    for kind, text, cwd in subjects(protocol, payload):
        call = call or "%s %s" % (payload.get(protocol.tool), text)
        block = analyse(write=text, cwd=cwd) if kind == "write" else analyse(command=text, cwd=cwd)
        if block is None and kind == "powershell":  # read as sh first, then what sh may misread
            from ..analyser.powershell import check
            block = check(text)
        if block is not None:
            found = block
            break
    if payload.get(protocol.tool) not in protocol.reads:
        record_snapshot(_payload_cwd(payload, protocol), call or str(payload.get(protocol.tool)))
    return found


def _payload_cwd(payload, protocol):
    cwd = payload.get(protocol.cwd) if isinstance(payload, dict) else None
    return cwd if isinstance(cwd, str) and os.path.isdir(cwd) else os.getcwd()


# What a harness whose post-call hooks cannot speak (``Protocol.later``) is told with the after-check's
# report, when the call it arrives with was allowed and the harness has no answer that lets it run.
HELD = ("agentguard held this tool call back only to tell you the above: it did not run; make it again if it is "
        "still needed.")


def earlier(protocol, data):
    """``Protocol.later``: what the after-checks since the last pre-call found (kept by ``after_main``;
    with no post-call events, the after-check of the previous call runs now), "" for nothing."""
    try:
        payload = load(protocol, data)
    except (ValueError, RecursionError):
        return ""
    if not isinstance(payload, dict) or payload.get(protocol.tool) in protocol.reads:
        return ""
    cwd = _payload_cwd(payload, protocol)
    from ..outcome import later
    told = later.take(cwd)
    if not protocol.post:
        from ..outcome.after import run
        from ..outcome.report import UNCHANGED
        report = run(cwd)
        if report.decision != UNCHANGED:
            told = "\n".join(t for t in (told, report.reason()) if t)
    return told


def _fallback(harness, data, why):
    """The block for a call that could not be decided (a timeout, a bug), when it could involve git or the
    guard's files: each command it runs read as broadly as a command that cannot be parsed (quotes taken
    out, a command name only known when it runs), each file it writes by its path."""
    from ..analyser.constructs import INVOLVES, could_involve, names_git
    from ..rules import Block
    try:
        found = subjects(registry.protocol(harness), load(registry.protocol(harness), data))
        risky = any(INVOLVES.search(text) if kind == "write" else could_involve(text) for kind, text, _ in found)
    except Exception:  # not the payload a harness sends (or cut short): all of it, as text
        risky = names_git(call_text(harness, data))
    return Block("guard-error", why) if risky else None


def main(harness, stdin=None, out=None, err=None):
    stdin = stdin or sys.stdin.buffer
    out, err = out or sys.stdout, err or sys.stderr
    if registry.protocol(harness) is None:
        err.write("agentguard check: unknown harness %r (one of %s)\n" % (harness[:40], ", ".join(registry.PROTOCOLS)))
        return 2
    data = b""
    protocol = registry.protocol(harness)
    told = ""

    previous = _start_alarm()
    try:
        data = stdin.read(MAX_PAYLOAD + 1)
        if len(data) > MAX_PAYLOAD:
            from ..rules import Block
            block = Block("guard-error", "a tool call larger than %d bytes" % MAX_PAYLOAD)
        else:
            told = earlier(protocol, data) if protocol.later else ""
            block = tool_call_block(harness, data)
    except _Timeout:
        block = _fallback(harness, data, "timed out after %d s" % TIMEOUT)
    except RecursionError:
        block = _fallback(harness, data, "nested too deeply")
    except Exception as exc:  # an unreadable payload or a bug: never a traceback, never a silent pass on git
        block = _fallback(harness, data, type(exc).__name__)
    finally:
        _stop_alarm(previous)
    if block is None and not told:
        return 0
    if block is None and protocol.note is not None:
        answer, status = protocol.note(told)
        if answer is not None:
            out.write(_dumps(answer) + "\n")
        else:
            err.write(told + "\n")
        return status
    reason = block.reason() if block is not None else HELD
    reason = told + "\n" + reason if told else reason
    answer, status = protocol.deny(reason) if protocol.deny is not None else (None, 2)
    if protocol.refuse is not None:
        try:
            answer, status = protocol.refuse(reason, load(protocol, data))
        except Exception:  # a payload that could not be read: the answer to any call (``deny``)
            pass
    if answer is not None:
        out.write(_dumps(answer) + "\n")
    err.write(reason + "\n")
    return status


def after_command(argv):
    """``check --after --hook HARNESS`` (``argv``: those three words) as the runtime's launcher runs it,
    without the analyser's package: what ``analyser.check.main`` does for it."""
    from ..layout import for_check
    for_check()
    return after_main(argv[2])


def after_main(harness, stdin=None, out=None, err=None):
    """``check --after --hook HARNESS``: the after-check once the call in the harness's post-call
    payload ran. Nothing to say: exit 0, no output. Something undone, or not undoable, or the check
    itself failing (a timeout, a bug): the reason, told the way ``registry.protocol(harness).tell`` says.
    Read-only tools are skipped; a payload that cannot be read still gets the check (in the hook's
    own directory): the check needs nothing from it but the directory."""
    stdin = stdin or sys.stdin.buffer
    out, err = out or sys.stdout, err or sys.stderr
    if registry.protocol(harness) is None:
        err.write("agentguard check: unknown harness %r (one of %s)\n" % (harness[:40], ", ".join(registry.PROTOCOLS)))
        return 2
    protocol = registry.protocol(harness)
    event = protocol.post[0]

    previous = _start_alarm()
    try:
        data = stdin.read(MAX_PAYLOAD + 1)
        try:
            payload = load(protocol, data) if len(data) <= MAX_PAYLOAD else None
        except (ValueError, RecursionError, LookupError, TypeError, AttributeError):  # not UTF-8, not JSON, too deep
            payload = None
        if isinstance(payload, dict):
            if payload.get("hook_event_name") in protocol.post:
                event = payload["hook_event_name"]
            if payload.get(protocol.tool) in protocol.reads:
                return 0
        cwd = _payload_cwd(payload, protocol)
        if not protocol.later and quiet(cwd):
            return 0
        from ..outcome.after import run
        from ..outcome.report import UNCHANGED
        report = run(cwd)
        reason = "" if report.decision == UNCHANGED else report.reason()
        if protocol.later:  # its post hook cannot speak: the next pre-call tells the model
            from ..outcome import later
            later.keep(cwd, reason)
            return 0
    except _Timeout:
        reason = UNCHECKED.format("timed out after %d s" % TIMEOUT)
    except Exception as exc:  # a bug: never a traceback, never silence
        reason = UNCHECKED.format(type(exc).__name__)
    finally:
        _stop_alarm(previous)
    if not reason:
        return 0
    answer, status = protocol.tell(reason, event) if protocol.tell is not None else (None, 2)
    if answer is not None:
        out.write(_dumps(answer) + "\n")
    else:
        err.write(reason + "\n")
    return status
