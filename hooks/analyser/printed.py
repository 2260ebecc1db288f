"""What a literal ``echo`` or ``printf`` prints: ``printf``'s format (reused while arguments remain) and
escapes, ``echo``'s escapes (decoded by ``sh``'s echo, not by ``bash``'s: both are kept)."""

from .. import lazyre

_ESCAPE = lazyre.compile(r"\\(0[0-7]{0,3}|[1-7][0-7]{0,2}|x[0-9A-Fa-f]{1,2}|.)", lazyre.S)
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v", "e": "\x1b",
                   "\\": "\\"}


def texts(name, args):
    """Each text ``name`` (echo or printf) prints for the literal arguments ``args``."""
    if name == "echo":
        newline = "\n"
        while args and lazyre.fullmatch(r"-[neE]+", args[0]):
            newline = "" if "n" in args[0] else newline
            args = args[1:]
        text = " ".join(args)
        return sorted({text + newline, _decode(text)[0] + newline})
    return [_printf(args[0], args[1:])] if args else None


def _decode(text, printf=False):
    """(``text`` with its backslash escapes decoded, whether ``\\c`` ended it)."""
    out, pos = [], 0
    for match in _ESCAPE.finditer(text):
        out.append(text[pos:match.start()])
        pos = match.end()
        e = match.group(1)
        if e == "c":
            return "".join(out), True
        if e[0] in "01234567" and (printf or e[0] == "0"):
            out.append(chr(int(e[1:] if e[0] == "0" and not printf else e, 8) or 0))
        elif e[0] == "x" and len(e) > 1:
            out.append(chr(int(e[1:], 16)))
        else:
            out.append(_SIMPLE_ESCAPES.get(e, "\\" + e))
    out.append(text[pos:])
    return "".join(out), False


def _printf(fmt, args):
    """What ``printf FMT ARGS...`` prints: the format reused while arguments remain."""
    out = []
    while True:
        used = 0
        text, pos = [], 0
        for match in lazyre.finditer(r"%([-+ #0]*[0-9*]*(?:\.[0-9*]*)?)([a-zA-Z%])", fmt):
            text.append(_decode(fmt[pos:match.start()], printf=True)[0])
            pos = match.end()
            conv = match.group(2)
            if conv == "%":
                text.append("%")
                continue
            value = args[used] if used < len(args) else ""
            used += 1
            text.append(_decode(value)[0] if conv == "b" else value)
        text.append(_decode(fmt[pos:], printf=True)[0])
        out.append("".join(text))
        args = args[used:]
        if not used or not args:
            return "".join(out)
