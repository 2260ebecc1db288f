"""Make untrusted text (branch names, command lines, hook output) safe to print.

Everything agentguard prints that came from a repository or a command line goes through
``safe()``: control characters (C0, DEL, C1), bidi overrides and zero-width characters are shown
as escapes, undecodable bytes as ``\\xNN``, and the length is bounded.
"""

_INVISIBLE = {0x200B, 0x200C, 0x200D, 0x200E, 0x200F, 0x2028, 0x2029, 0x2060, 0xFEFF}
_BIDI = set(range(0x202A, 0x202F)) | set(range(0x2066, 0x206A))


def _escape_char(ch: str) -> str:
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:  # surrogateescape'd byte
        return "\\x%02x" % (code - 0xDC00)
    if code < 0x20 or code == 0x7F or 0x80 <= code <= 0x9F:
        return "\\x%02x" % code
    if code in _INVISIBLE or code in _BIDI or 0xD800 <= code <= 0xDFFF:
        return "\\u%04x" % code
    if ch == "\\":
        return "\\\\"
    return ch


def safe(value, limit: int = 160) -> str:
    """Return ``value`` as one printable line of at most ``limit`` characters."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "surrogateescape")
    elif not isinstance(value, str):
        value = str(value)
    out = []
    size = 0
    for ch in value:
        piece = _escape_char(ch)
        if size + len(piece) > limit:
            out.append("...")
            break
        out.append(piece)
        size += len(piece)
    return "".join(out)


def safe_argv(argv, limit: int = 300) -> str:
    """A command line for display: arguments joined by spaces, each escaped, bounded."""
    if argv is None:
        return "(unknown)"
    return safe(" ".join(argv), limit)
