"""A PowerShell command (Claude Code's PowerShell tool), judged as far as it safely can be.

The analyser reads POSIX sh. A PowerShell command line reads the same only when it uses none of
what PowerShell reads differently: the backtick escape, ``$`` variables and subexpressions, ``@``
splatting and here-strings, ``&`` and ``.`` calls, ``(...)`` expressions and ``[type]`` casts in
arguments, ``{...}`` script blocks, ``,`` (an array: separate arguments), ``--%``, ``<#`` comments,
a backslash that is no escape (``"a\\" --no-verify "b"``), doubled or nested quotes (which Windows
PowerShell passes to a native program broken up), and characters outside ASCII (PowerShell takes
curly quotes and dashes for plain ones). So ``check`` first reads the command as sh (a plain
``git push --no-verify`` is refused the same way), and then refuses one that uses any of these, or
whose commands are not all git and ones that only read (``Set-Content``, ``Remove-Item``: what they
do is not read here), when it names git or the guard (with backticks, quotes, ``+`` and ``,`` taken
out: ``"gi"+"t"``) or makes a command name or a string only when it runs (``& $x``, ``iex``,
``Start-Process``, ``[char]``, ``-f``, ``::``).
"""
from .. import lazyre

from .constructs import names_git, plain
from ..rules import Block

# the commands a PowerShell line may run next to git and still be read as sh (lower case, no .exe):
# cd as sh reads it, but not Set-Location and its aliases (the sh reading would not follow them)
READERS = {"git", "cd", "get-location", "gl", "pwd", "select-string", "sls", "select-object", "select",
           "sort-object", "sort", "measure-object", "measure", "format-table", "ft", "format-list", "fl",
           "out-string", "out-host",
           "write-output", "write", "echo", "write-host", "get-childitem", "gci", "ls", "dir", "test-path",
           "get-content", "gc", "cat", "type", "get-item", "resolve-path", "rvpa"}
# what makes a command name, code or a string only when it runs: the call operator, dot-sourcing,
# .NET calls, code runners and aliases, string builders
COMPUTED = lazyre.compile(r"(?<![0-9*>&])&(?!&)|(^|[;|{(\n]\s*)\.\s|::|\$executioncontext|"
                      r"(?<![\w-])(iex|invoke-expression|icm|invoke-command|start-process|saps|start|start-job|sajb|"
                      r"start-threadjob|invoke-item|ii|powershell|pwsh|cmd|sh|bash|wsl|set-alias|sal|new-alias|nal|"
                      r"add-type|new-object|-f|-replace|-join|-split|\[char\]|\[convert\]|frombase64string)(?![\w-])",
                      lazyre.I)
SEPARATORS = lazyre.compile(r"&&|\|\||[;|\n\r]")
REDIRECT_AND = lazyre.compile(r"[0-9*]?>&[0-9]")  # 2>&1: not a call


def doubt(text):
    """Why the sh reading of the PowerShell command ``text`` may miss what it does, or None."""
    if any(ord(c) > 126 or (ord(c) < 32 and c not in "\t\n\r") for c in text):
        return "characters PowerShell may read as quotes or dashes"
    outside, quoted = _outside_single_quotes(text)
    if quoted is None:
        return "an unterminated quote"
    if any('"' in q for q in quoted):
        return "a double quote inside single quotes"
    outside = REDIRECT_AND.sub(" ", outside).replace("&&", ";")
    for chars, what in (("`", "a backtick escape"), ("$", "a variable or subexpression"), ("@", "@ (splatting)"),
                        ("&", "the call operator"), ("()[]{}", "an expression or script block"),
                        (",", "a comma (an array)")):
        if any(c in outside for c in chars):
            return what
    if lazyre.search(r"\\[^A-Za-z0-9_.\-/]|\\$", outside):
        return "a backslash PowerShell does not read as an escape"
    if lazyre.search(r'(?<=\S)""|""(?=\S)', outside):
        return "a doubled double quote"
    if "--%" in outside or "<#" in outside:
        return "--% or a <# comment"
    for part in SEPARATORS.split(outside):
        words = part.split()
        name = words[0].strip('"').lower() if words else ""
        if name.endswith(".exe"):
            name = name[:-4]
        if name and name not in READERS:
            return "%s, whose effect is not read" % name[:40]
    return None


def _outside_single_quotes(text):
    """(the text with each single-quoted string as ``''``, [the strings]); None for the strings when a
    quote is left open. In PowerShell ``''`` inside single quotes is one quote, and ``'`` inside
    double quotes is no quote."""
    out: list = []
    strings: list = []
    i, double = 0, False
    while i < len(text):
        c = text[i]
        if c == '"':
            double = not double
        elif c == "'" and not double:
            end = i + 1
            while True:
                end = text.find("'", end)
                if end < 0:
                    return "".join(out), None
                if text[end + 1:end + 2] != "'":
                    break
                end += 2
            strings.append(text[i + 1:end])
            out.append("''")
            i = end + 1
            continue
        out.append(c)
        i += 1
    return "".join(out), (None if double else strings)


def check(text):
    """The Block for a PowerShell command that names git or the guard and cannot be read as sh, or None."""
    why = doubt(text)
    flat = plain(text.replace("`", ""))  # PowerShell's escape taken out too (g`it)
    if why is not None and (names_git(flat) or names_git(lazyre.sub(r"[\s+,()]", "", flat)) or COMPUTED.search(text)):
        return Block("unanalysable", "a PowerShell command with %s" % why)
    return None
