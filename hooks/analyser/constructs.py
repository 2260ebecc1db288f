"""The shell constructs that run commands outside a plain command line, for the analyser: function
definitions and their calls, ``trap``, ``time -p``, ``coproc``, aliases, and text or command names
only known when the command runs (``eval "$X"``, ``$(...)`` in command position, ``| sh``).

And what "could involve git or the guard" means for text the analyser cannot read (a parse error, a
timeout): the text with its quotes, backslashes and expansions taken out names git or the guard's
files, or one of its command names is not known before it runs.
"""
import os
import stat

from .shellparse import Parser
from .. import lazyre
from .shelltree import DYN, RESERVED, Simple, Word, iter_simple, text_of
from ..harness import registry
from ..rules import Block

# Text that involves git or the guard: what cannot be analysed is blocked when it matches.
# Each harness names its own files (``harness/<name>.py``).
# (its text built when first used: it imports every harness's module)
INVOLVES = lazyre.compile(lambda: "|".join([r"\bgit\b", r"\bgit-", r"\.git\b", "hookspath", "agentguard"]
                                           + registry.involves() + ["packed-refs", "refs/heads", "husky",
                                                                    "pre-commit", "update-ref", "disableAllHooks"]),
                          lazyre.I)

# Besides INVOLVES: git's own programs and plumbing that write refs.
PLUMBING = lazyre.compile(r"send-pack|receive-pack|upload-pack|fetch-pack|update-ref|symbolic-ref|hooks", lazyre.I)
# Programs that print text made from their arguments or input: what they print, executed, is unknown code.
TEXT_MAKERS = {"echo", "printf", "base64", "base32", "basenc", "xxd", "od", "rev", "tr", "sed", "awk", "gawk", "mawk",
               "nawk", "cut", "cat", "tac", "zcat", "gzip", "gunzip", "bzcat", "bzip2", "xz", "xzcat", "unxz", "zstd",
               "zstdcat", "openssl", "uudecode", "iconv", "perl", "python", "python3", "ruby", "node", "nodejs",
               "php", "lua", "head", "tail", "printenv", "paste", "jq", "yq", "dd", "strings", "sort", "fold",
               "envsubst", "m4", "cpp", "sh", "bash", "dash", "zsh", "ksh", "eval", "xargs", "tee", "column",
               "expand", "unexpand", "nl", "pr", "fmt", "split", "csplit", "join", "comm", "grep", "recode"}
OPENERS = {"for", "select", "case", "function"}  # what follows these on a line is not a command name
# Variables whose value the shell runs: prompts (their `$(...)`: PS4 under `set -x`), PROMPT_COMMAND;
# BASH_ENV and ENV name a file a starting shell sources.
CODE_VARIABLES = {"PS0", "PS1", "PS2", "PS3", "PS4", "PROMPT_COMMAND"}
SOURCED_VARIABLES = {"BASH_ENV", "ENV"}
MAX_SCAN = 256 * 1024
MADE = ("made",)  # written to a file: a text made from other text when it runs (never run unread)
MAX_CALLS = 100  # function calls and alias expansions read again at the place they run, per analysis
_EXPANSION = lazyre.compile(r"\$(\{[^}]*\}|\([^)]*\)|[A-Za-z_][A-Za-z0-9_]*|[@*#?$!0-9-])")
_ANSI = lazyre.compile(r"\$'((?:[^'\\]|\\.)*)'", lazyre.S)
_SEPARATORS = set(";&|(){}\n`")
_VERSION = "0123456789."


class Defined:
    """What the command line defines as it goes, for every later part of it (one per analysis)."""

    def __init__(self):
        self.text = ""  # the whole command line
        self.functions = {}  # name -> [bodies]
        self.aliases = {}  # name -> text
        self.traps = []  # (text, origin) run when the shell exits
        self.calling = set()  # functions and aliases being read (a recursive call is read once)
        self.calls = 0  # how many were read again where they run (each body is read where it is defined)
        self.reads = False  # it reads variables from input (`read`, `mapfile`): their values are unseen text
        self.files = {}  # path -> the texts this command line writes there, None: unknown (writtencode)


# -- could this text involve git or the guard? -------------------------------------------------------
def plain(text):
    """``text`` with ``$'...'`` decoded and quotes and backslashes removed (``g''it``, ``g\\it`` are git)."""

    def decode(match):
        parser = Parser(match.group(1) + "'", 0)
        return parser.ansi_c()
    return lazyre.sub(r"['\"\\]", "", _ANSI.sub(decode, text))


def could_involve(text):
    """Whether ``text``, which cannot be analysed, could involve git or the guard: read broadly (past
    MAX_SCAN characters, assumed: no command is that long, and reading it would outlast the check)."""
    if len(text) > MAX_SCAN:
        return True
    return names_git(text) or any(_unresolved(word) for word in command_words(text))


def names_git(text):
    """Whether ``text``, its quotes, backslashes and expansions taken out, names git or the guard."""
    flat = plain(text)
    return any(INVOLVES.search(variant) or PLUMBING.search(variant)
               for variant in (flat, _EXPANSION.sub("", flat)))  # `g${X}it`: an empty variable runs git


def _unresolved(word):
    if word in ("[", "[[", "]]", "((", "))"):
        return False
    return "`" in word or _EXPANSION.search(word) is not None or any(c in word for c in "*?[") or \
        (word.startswith("~") and "/" not in word)


def command_words(text):
    """The words in command position of ``text`` (quotes kept), read roughly: the first word of each
    part between separators outside quotes, after assignments, redirections and reserved words."""
    words, parts = [], _split(text)
    for part in parts:
        for word in _words(part):
            bare = plain(word)
            if bare in RESERVED or lazyre.match(r"[A-Za-z_][A-Za-z0-9_]*\+?=", bare) or \
                    lazyre.match(r"[0-9]*[<>]", word):
                continue
            if bare not in OPENERS:
                words.append(word)
            break
    return words


def _split(text):
    parts, current, quote, i = [], [], None, 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == quote:
                quote = None
            elif c == "\\" and quote == '"':
                current.append(c)
                i += 1
                c = text[i] if i < len(text) else ""
        elif c in "'\"":
            quote = c
        elif c == "\\":
            current.append(c)
            i += 1
            c = text[i] if i < len(text) else ""
        elif c == "$" and text[i + 1:i + 2] in "({":  # an expansion stays in its word
            current.append(c)
            i += 1
            c = text[i]
            current.append(c)
            i += 1
            continue
        elif c in _SEPARATORS:
            parts.append("".join(current))
            current = []
            if c == "`":
                current.append(c)  # `...` in command position: an unknown command name
            i += 1
            continue
        current.append(c)
        i += 1
    parts.append("".join(current))
    return parts


def _words(part):
    """The blank-separated words of ``part``, quotes kept and quoted blanks not splitting."""
    out, current, quote = [], "", None
    for c in part:
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c in " \t":
            if current:
                out.append(current)
            current = ""
            continue
        current += c
    if current:
        out.append(current)
    return out


def unversioned(name):
    """``name`` without the version at its end (``python3.11``: ``python``), as ``re.sub(r"[0-9.]+$", "",
    name)`` (whose ``$`` also matches before a last newline) without loading ``re``."""
    if name.endswith("\n"):
        return name[:-1].rstrip(_VERSION) + "\n"
    return name.rstrip(_VERSION)


# -- text and names only known when the command runs ------------------------------------------------
def makes_text(node):
    """Whether ``node`` (a substitution, a pipe's producer) prints text made from its arguments or input."""
    for cmd in iter_simple(node):
        words = [w for w in cmd.words if w.quoted or w.text not in RESERVED]
        name = os.path.basename(words[0].text) if words else ""
        if DYN in name or name in TEXT_MAKERS or unversioned(name) in TEXT_MAKERS:
            return True
    return False


def computed(analyser, words, what):
    """Code only known when the command runs (``eval "$X"``, ``sh -c "$(...)"``, ``trap "$X"``): refused
    when the command line names git or the guard (``names_git``: ``X='g''it push ...'; eval "$X"``), or
    when a substitution makes it from text (``eval "$(echo ... | base64 -d)"``), or when the command line
    reads variables from input."""
    subs = [sub for w in words for sub in w.subs]
    if names_git(analyser.defined.text) or analyser.defined.reads or any(makes_text(sub) for sub in subs):
        raise Block("unanalysable", what)


def dynamic_head(analyser, cmd, words, state):
    """A command name only known when it runs (``$X args``, ``$(...)``): refused when it looks like git,
    when the command line names git or the guard, or when its text is made from text; and
    every function the command line defines could be what it calls."""
    from .gitrules import BUILTINS
    looks_git = len(words) > 1 and words[1].text in BUILTINS
    if looks_git or INVOLVES.search(text_of(cmd)):
        raise Block("unanalysable", "a variable or $(...) in command position")
    computed(analyser, words[:1], "a command name only known when it runs, in a command line that involves git")
    for name in list(analyser.defined.functions):
        call(analyser, name, state)


class UnknownInput:
    """Whether the command reads, on stdin, text it cannot know that could be code running git, as a truth
    value: ``unseen`` (text that reaches stdin unread) names git or the guard, or it comes from a producer
    that makes text or in a command line that names git, or from a pipe, device or socket named by ``<``.
    What needs no pattern is answered now, the patterns (INVOLVES, ``names_git``) only when a shell or
    interpreter asks whether its stdin is unknown (``make | tail -5`` never does). They read texts that
    do not change (``unseen``, the whole command line): asked later, the same answer."""

    __slots__ = ("_now", "_unseen", "_text", "_value")

    def __init__(self, analyser, cmd, piped, state, unseen=""):
        self._now = piped is not None and makes_text(piped)
        for op, target in cmd.redirects:
            if op == "<" and DYN not in target.text and state.cwd is not None and \
                    special_file(os.path.join(state.cwd, os.path.expanduser(target.text))):
                self._now = True
        self._unseen = unseen
        self._text = analyser.defined.text if piped is not None else None
        self._value = True if self._now else None

    def __bool__(self):
        if self._value is None:
            self._value = (self._unseen != "" and INVOLVES.search(self._unseen) is not None) or \
                (self._text is not None and names_git(self._text))
        return self._value


def special_file(path):
    """Whether ``path`` is there and is not a regular file (a pipe, device or socket: reading it could
    block or give anything), /dev/null aside."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode) and os.path.realpath(path) != "/dev/null"


def program_file(analyser, state, name, origin):
    """A program a shell or interpreter runs from the file ``name``: refused when it is a pipe, device or
    socket, or when this command line writes it first (its text is not there yet to read) and names git
    or the guard; one of /dev or /proc (``/dev/stdin``, ``/dev/fd/3 3<<<...``, whose text is the command
    line's own) when the command line names git or the guard."""
    if state.cwd is None:
        return
    path = os.path.join(state.cwd, os.path.expanduser(name))
    if path.startswith(("/dev/", "/proc/")) and os.path.realpath(path) != "/dev/null":
        if names_git(analyser.defined.text):
            raise Block("unanalysable", "%s read from %s" % (origin, name))
        return
    if special_file(path):
        raise Block("unanalysable", "%s read from a pipe, device or socket" % origin)
    if written_unknown(analyser, state, path) and names_git(analyser.defined.text):
        raise Block("unanalysable", "%s this command line writes before it runs it" % origin)


def written_unknown(analyser, state, path):
    """Whether this command line writes ``path`` with text it cannot know (``writtencode`` keeps what it
    writes); a Block when that text is made from other text as it runs (``base64 -d > x.sh``, as
    ``base64 -d | sh`` is)."""
    path = os.path.realpath(path)
    texts = analyser.defined.files.get(path)
    if texts is not None and MADE in texts:
        raise Block("unanalysable", "a program this command line makes from text before it runs it")
    return None in texts if texts is not None else path in state.written


# -- functions, aliases, trap, coproc, time -----------------------------------------------------------
def define(analyser, node, state):
    """``name() { body; }``: the body may run (read now, on a copy) and runs again at each call."""
    analyser.defined.functions.setdefault(node.name, []).append(node.body)
    analyser.walk(node.body, state.copy())


def call(analyser, name, state):
    """A call of a function this command line defined: its bodies, in the caller's shell (past
    MAX_CALLS, only where they were defined: `f1(){ f0; f0; }; f2(){ f1; f1; }...` doubles at each step)."""
    defined = analyser.defined
    if name in defined.calling or defined.calls >= MAX_CALLS:
        return
    defined.calls += 1
    defined.calling.add(name)
    try:
        for body in analyser.defined.functions.get(name, ()):
            analyser.walk(body, state)
    finally:
        analyser.defined.calling.discard(name)


def after_time(words):
    """The words after the reserved word ``time``: its ``-p`` is not the command."""
    while words and not words[0].quoted and words[0].text in ("-p", "--"):
        words = words[1:]
    return words


def dispatch(analyser, name, words, state, piped):
    """The constructs of this module for the command ``words`` (named ``name``); True when it is one of
    them and nothing else is to be done with it."""
    head, defined = words[0], analyser.defined
    key = ("alias", head.text)
    if not head.quoted and head.text in defined.aliases and key not in defined.calling:
        if defined.calls >= MAX_CALLS:  # read where it was defined; past this, not again
            return True
        defined.calls += 1
        defined.calling.add(key)  # `alias ls='ls -la'`: the shell does not expand it again either
        try:
            text = " ".join([defined.aliases[head.text]] + [_requote(w) for w in words[1:]])
            analyser.check_text(text, state, "alias %s" % head.text)
        finally:
            defined.calling.discard(key)
        return True
    if name in ("read", "mapfile", "readarray"):
        defined.reads = True  # `while read -r l; do $l; done < cmds.txt` runs the file's lines
    if name in analyser.defined.functions:
        call(analyser, name, state)  # and as a program too: `command NAME` skips the function
    if name == "alias":
        for w in words[1:]:
            key, sep, value = w.text.partition("=")
            if not sep or w.text.startswith("-"):
                continue
            if DYN in value:
                computed(analyser, [w], "an alias whose text is only known when it runs")
                value = value.replace(DYN, "$_")
            analyser.defined.aliases[key] = value
            analyser.check_text(value, state.copy(), "alias")
        return True
    if name == "trap":
        args = words[1:]
        if args and args[0].text == "--":
            args = args[1:]
        if not args or args[0].text in ("-", "-p", "-l", "-P"):
            return True
        if DYN in args[0].text:
            computed(analyser, args[:1], "a trap whose command is only known when it runs")
            return True
        analyser.defined.traps.append(args[0].text)
        analyser.check_text(args[0].text, state.copy(), "trap")
        return True
    if name == "coproc":
        rest = words[1:]
        if len(rest) > 1 and rest[1].text == "{" and not rest[1].quoted:  # coproc NAME { ...; }
            rest = rest[1:]
        while rest and rest[0].text in RESERVED and not rest[0].quoted:
            rest = rest[1:]
        rest = analyser.unwrap(rest, state)
        if rest and DYN in rest[0].text:
            cmd = Simple()
            cmd.words = rest
            dynamic_head(analyser, cmd, rest, state)
        elif rest:
            analyser.dispatch(os.path.basename(rest[0].text), rest, state.copy(), piped)
        return True
    return False


def code_variable(analyser, name, value, state):
    """An assignment to a variable whose value the shell runs (``PS4='$(...)'``, ``PROMPT_COMMAND``) or
    sources (``BASH_ENV``, ``ENV``): that code is read as commands that run."""
    text = value.text if hasattr(value, "text") else value
    if name not in CODE_VARIABLES and name not in SOURCED_VARIABLES:
        return
    if DYN in text:
        computed(analyser, [value] if hasattr(value, "subs") else [], "%s only known when it runs" % name)
    elif name in SOURCED_VARIABLES:
        word = Word()
        word.text = text
        analyser.run_file([word], state.copy(), name)
    else:
        analyser.check_text(text, state.copy(), name)


def at_exit(analyser, state):
    """The traps the command line set run when its shell exits, in the state it ends in."""
    for text in analyser.defined.traps:
        analyser.check_text(text, state, "trap")


def _requote(word):
    """``word`` as shell text again (an unknown part stays unknown: ``"$_"``)."""
    parts = word.text.split(DYN)
    return '"$_"'.join("'" + p.replace("'", "'\\''") + "'" for p in parts)
