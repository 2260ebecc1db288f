"""Whether a Python, Perl or node program can change a file: the line between reading the guard's files
(``open('.git/refs/heads/main').read()``, ``os.listdir('.git/hooks')``, ``fs.readFileSync``), never
refused, and writing them (``open(p, 'w')``, ``write_text``, ``os.replace``, ``unlink``, perl
``open(my $f, '>', ...)``, ``fs.writeFileSync``...). A program that names the guard's files and has a
construct that writes, deletes, moves, links or changes a file's mode, or that runs other programs or
code made at run time, is refused: the analyser does not tie each write to its path (on doubt, refuse)."""

from .. import lazyre

# Calls that change a file whatever their arguments (Python, Perl, node; a name followed by `(`, or a
# Perl builtin used without parentheses).
_WRITE_CALLS = lazyre.compile(r"""
    \b(?:write_text|write_bytes|symlink_to|hardlink_to|link_to|touch|unlink|unlinkSync|rmdir|rmdirSync|rmtree|
       rename|renameSync|renames|removedirs|remove|chmod|chmodSync|lchmod|chown|chownSync|lchown|truncate|
       truncateSync|ftruncate|utime|utimes|utimesSync|symlink|symlinkSync|link|linkSync|mkfifo|mknod|
       makedirs|mkdir|mkdirSync|copyFile|copyFileSync|cp|cpSync|rm|rmSync|writeFile|writeFileSync|appendFile|
       appendFileSync|createWriteStream|writeSync|sysopen|dup2)\s*\(
  | \b(?:unlink|rename|link|symlink|chmod|chown|utime|truncate|mkdir|rmdir|sysopen)\s+[\$"'(A-Za-z0-9]
  | \bos\.(?:replace|write|open)\b
  | \bshutil\.(?!which\b|disk_usage\b|get_terminal_size\b)\w+
  | \bfileinput\b | \binplace\b | \$\^I | \bFile::Copy\b | \bfs\.promises\b | \bfs/promises\b
""", lazyre.X)
# Code that runs other programs or code made at run time: what it does is not read here.
_RUNS = lazyre.compile(r"""\b(?:subprocess|system|popen|Popen|spawn|spawnSync|exec|execSync|execFile|execFileSync|
    execv\w*|child_process|eval|(?<!re\.)compile|__import__|importlib|getattr|globals|ctypes|qx|pty)\b|`|\bdo\s+["'$]
""", lazyre.X)
# A file opened to be written: perl's mode (or its 2-argument `>file`, a pipe), an `os.open` flag. (A mode
# string of Python or node, `'w'`, counts only as an argument of an `open`: ``_open_writes``.)
_WRITE_MODE = lazyre.compile(r"""['"]\s*(?:\+<|\+?>|\|\s*\w)|\w\s*\|['"]|\bO_(?:WRONLY|RDWR|CREAT|TRUNC|APPEND)\b""")
_MODE = lazyre.compile(r"""\s*(?:mode\s*=\s*|flags?\s*:\s*)?['"]([^'"]*)['"]\s*""")
_REPLACE = lazyre.compile(r"\.replace\s*\(")  # Path.replace(target): one argument; str.replace: two
_OPEN = lazyre.compile(r"\b(?:open|fdopen|openSync)\s*\(")


def may_write(code):
    """Whether ``code`` could change a file (or runs what is not read here)."""
    text = _no_read_calls(code)
    return bool(_WRITE_CALLS.search(text) or _RUNS.search(text) or _WRITE_MODE.search(code)
                or _open_writes(code) or any(len(_arguments(code, m.end())) == 1 for m in _REPLACE.finditer(code)))


def _no_read_calls(code):
    """``code`` with the calls that only read taken out of the names ``_WRITE_CALLS`` looks for:
    ``open(p)`` / ``open(p, 'r')`` (judged by ``_WRITE_MODE`` and ``_open_with_unknown_mode``),
    (``str.replace(a, b)`` is not ``Path.replace(target)``: ``_REPLACE``)."""
    return _OPEN.sub("read(", code)


def _open_writes(code):
    """An ``open(...)`` with a mode that writes (``'w'``, ``'a+'``, ``mode='x'``) or whose mode is not a
    string written out (``open(p, m)``): it may write."""
    for match in _OPEN.finditer(code):
        args = _arguments(code, match.end())
        for arg in args:
            literal = _MODE.fullmatch(arg)
            if literal and lazyre.fullmatch(r"[rbtU]*[wax+][rbtU+]*", literal.group(1)):
                return True
        mode = args[1] if len(args) > 1 else next((a.split("=", 1)[1] for a in args if a.startswith("mode=")), None)
        if mode is None or _MODE.fullmatch(mode) or (lazyre.match(r"\s*\w+\s*=", mode) and not mode.startswith("mode")):
            continue
        return True
    return False


def _arguments(code, start):
    """The top-level arguments of the call whose ``(`` ends just before ``start`` (bounded)."""
    args: list = []
    current: list = []
    depth, quote = 0, None
    for c in code[start:start + 2000]:
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif c == "," and depth == 0:
            args.append("".join(current).strip())
            current = []
            continue
        current.append(c)
    args.append("".join(current).strip())
    return [a for a in args if a]


def unescaped(code):
    """``code`` with the escapes of its string literals decoded (``"\\x67it"``, ``"\\147it"``, ``"\\u0067it"``)."""
    if "\\" not in code:
        return code
    return lazyre.sub(r"\\(x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|[0-7]{1,3})",
                  lambda m: chr(int(m.group(1)[1:], 16) if m.group(1)[0] in "xu" else int(m.group(1), 8)), code)
