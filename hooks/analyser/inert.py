"""Command lines the analyser would allow without looking further, told without loading it (its ~20
modules are ~3 ms of CPU on every tool call): one program of ``PROGRAMS`` with literal arguments, and
nothing else.

``PROGRAMS`` are programs the analyser knows by no name: not a shell, interpreter, wrapper, starter,
mutator, reserved word or builtin it reads (tests/test_inert.py holds the analyser's sources to that),
so it judges their command line by its words alone. With only the characters of ``_PLAIN`` there is
one simple command (no ``;``, ``&``, ``|``, newline, redirection, quote, expansion, glob, tilde or
comment), no assignment in front of it (the first word is a program name, no ``=``) and no path to
run (no ``/``). The analyser's answer for such a line is always "allow"; anything else goes to it."""

PROGRAMS = frozenset({
    "ls", "pwd", "wc", "which", "date", "whoami", "uname", "df", "du", "id", "hostname", "uptime", "nproc", "true",
    "false", "file", "stat", "cmp", "diff", "cat", "head", "tail", "grep", "rg", "echo", "npm", "pnpm", "yarn",
    "pytest", "cargo", "make", "tsc", "ruff", "mypy",
})
_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _.,:+@%=/-")
MAX_TEXT = 4096


def inert(command):
    """True when ``command`` is one program of ``PROGRAMS`` with literal arguments (see above): the
    analyser allows it. False says nothing: the analyser decides."""
    if not isinstance(command, str) or len(command) > MAX_TEXT or not _PLAIN.issuperset(command):
        return False
    words = command.split()
    return bool(words) and words[0] in PROGRAMS
