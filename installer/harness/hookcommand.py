"""The one hook command every hook-command harness runs (in its settings file, or in a whole file of
ours), and the POSIX-sh hook script it sources: the answers in each harness's own terms come from its
runtime protocol (``hooks/harness``)."""
import functools
import json
import re
from importlib import resources

from ...hooks.analyser.constructs import INVOLVES
from ...hooks.harness.hook import PROTOCOLS, UNCHECKED, ere, not_installed, read_tools

HOOK_TIMEOUT = 30  # seconds the harness gives the hook; the runtime gives up after 10 (harness/hook.py: TIMEOUT)
SH_SAFE = re.compile(r"""^[^"'`$\\\n]*$""")  # text that can sit inside the hook's double quotes


@functools.lru_cache(maxsize=None)
def hook_script():
    """The hook as one shell program: the template without its comments, the INVOLVES pattern
    filled in as a POSIX ERE inside double quotes, and the after-check's answer when the runtime
    cannot give one, rendered from the harness protocols (``Protocol.tell``)."""
    text = resources.files("agentguard.templates").joinpath("adapters", "harness-hook.sh").read_text("utf-8")
    ere = INVOLVES.pattern.replace(r"\b", "")
    assert not set(ere) & set("\"$`'\n"), "INVOLVES must stay a plain ERE"
    unchecked = UNCHECKED.format("{0}")
    assert SH_SAFE.match(unchecked), "UNCHECKED must stay plain text"
    body = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    return ("\n".join(body).replace("@INVOLVES_ERE@", ere.replace("\\\\", "\\\\\\\\"))
            .replace("@UNCHECKED@", UNCHECKED.format("$w")).replace("@AFTER_ANSWER@", _after_answers())
            .replace("@READ_TOOLS_ERE@", read_tools()).replace("@NOT_INSTALLED@", not_installed("$1"))
            .replace("@DENY_ANSWER@", _answers(lambda p: p.deny("$r") if p.deny is not None else (None, 2)))
            .replace("@FALLBACK_ANSWER@", _answers(_fallback, keep=lambda a: a[0] is not None)) + "\n")


def _fallback(protocol):
    """The answer when the runtime cannot decide: the deny where exit 2 is no block, else the JSON
    deny that goes with exit 2 (the reason on stderr and exit 2 follow it: ``_answers``'s ``then``)."""
    answer, status = protocol.deny("$r") if protocol.deny is not None else (None, 2)
    if protocol.exit_blocks and status != 2:
        return None, 2
    return answer, status


def _after_answers():
    """A ``case "$1"`` that answers, in each harness's post-hook terms, with the reason in ``$r``
    and the event in ``$2``: the same answer ``harness.hook.after_main`` gives."""
    return _answers(lambda protocol: protocol.tell("$r", "$2") if protocol.tell is not None else (None, 2))


def _answers(answer_of, keep=None):
    """A ``case "$1"`` that gives each harness's answer ``answer_of(protocol)`` (JSON or None, status);
    with ``keep``, only the answers it keeps, JSON with exit 2 going on to what follows the case."""
    branches = {}
    for harness in PROTOCOLS:
        protocol = PROTOCOLS[harness]
        answer, status = answer_of(protocol)
        if keep is not None and not keep((answer, status)):
            continue
        if keep is not None and status == 2:
            branches.setdefault('echo "%s"' % json.dumps(answer).replace('"', '\\"'), []).append(harness)
            continue
        if answer is None:
            line = 'echo "$r" >&2; exit %d' % status
        else:
            text = json.dumps(answer)
            assert SH_SAFE.match(text.replace("$r", "").replace("$2", "").replace('"', ""))
            line = 'echo "%s"; exit %d' % (text.replace('"', '\\"'), status)
        branches.setdefault(line, []).append(harness)
    return "case \"$1\" in\n%s\nesac" % "\n".join("%s) %s;;" % ("|".join(names), line)
                                              for line, names in branches.items())


HOOK_FILE = "harness-hook"  # the hook script, in <git common dir>/agentguard


def hook_command(harness, event=None):
    """What each harness's settings run: ``sh -c '<launcher>' agentguard HARNESS`` before a tool call,
    and ``... agentguard HARNESS EVENT`` for each of its post-call events. The launcher sources the hook
    script install wrote into the git common dir; where there is none (a clone where the team
    committed the settings and agentguard was never installed, or a damaged installation), read-only
    tools pass, nothing is said after a call, and every other call is refused in the harness's own
    terms with one message that says how to install it (exit 1 would be *allow* in Claude Code,
    Codex and Gemini CLI)."""
    assert event is None or re.match(r"^[A-Za-z._]+$", event)
    protocol = PROTOCOLS[harness]
    reads = "|".join(ere(t) for t in protocol.reads)
    answer, status = protocol.deny("$r") if protocol.deny is not None else (None, 2)
    if answer is None:
        deny = 'echo "$r" >&2;exit %d' % status
    else:
        text = json.dumps(answer)
        assert SH_SAFE.match(text.replace("$r", "").replace('"', ""))
        deny = 'echo "%s";exit %d' % (text.replace('"', '\\"'), status)
    message = not_installed(harness)
    assert SH_SAFE.match(message) and SH_SAFE.match(reads)
    passes = ('grep -Eq "\\"%s\\"[[:space:]]*:[[:space:]]*\\"(%s)\\""&&exit 0;' % (protocol.tool, reads)
              if reads else "")
    # ./.git is the git dir git finds first here; taken without asking git only when it is a plain one of this
    # user's (no commondir file: not a linked worktree's; git refuses another user's) with the hook in it and
    # no GIT_DIR/GIT_COMMON_DIR says otherwise; a copied or moved clone finds its own. Else git is asked (also
    # where the shell's test has no -O, which POSIX leaves out: posh).
    launcher = ('a=agentguard/%s;h=.git/$a;{ [ -z "${GIT_DIR-}${GIT_COMMON_DIR-}" ]&&[ -O . ]&&[ -O .git ]&&'
                '[ ! -e .git/commondir ]&&[ -f "$h" ];} 2>/dev/null||'
                'h="$(git rev-parse --git-common-dir 2>/dev/null)/$a";[ -f "$h" ]&&. "$h";'
                '[ -n "$2" ]&&exit 0;%sr="%s";%s' % (HOOK_FILE, passes, message, deny))
    assert "'" not in launcher
    return "sh -c '%s' agentguard %s%s" % (launcher, harness, " " + event if event else "")


def dump_json(data, like=None):
    """JSON text indented the way ``like`` (the file's bytes before) was: its diff stays ours alone."""
    indent = 2
    found = re.search(rb'^([ \t]+)"', like or b"", re.M)
    if found:
        indent = found.group(1).decode() if b"\t" in found.group(1) else len(found.group(1))
    return (json.dumps(data, indent=indent, ensure_ascii=False) + "\n").encode("utf-8")
