"""Parse what git writes to the reference-transaction and pre-push hooks.

Input is untrusted bytes: any encoding, any length. Parsers never raise; a line they cannot
read is returned as ``Malformed`` so the caller can refuse when it might touch a protected ref.
"""
from collections import namedtuple

from ..gitmodel.refnames import is_full_oid

MAX_LINES = 1000000

RefUpdate = namedtuple("RefUpdate", "old new ref")
PushLine = namedtuple("PushLine", "local_ref local_oid remote_ref remote_oid")
Malformed = namedtuple("Malformed", "text words")


def is_oid(value):
    return is_full_oid(value)


def is_zero(value):
    return is_oid(value) and value.strip("0") == ""


def is_symref_value(value):
    return value.startswith("ref:")


def _lines(data):
    if isinstance(data, bytes):
        data = data.decode("utf-8", "surrogateescape")
    lines = data.split("\n")
    if len(lines) > MAX_LINES:
        lines = lines[:MAX_LINES] + ["(input truncated)"]
    for line in lines:
        line = line.rstrip("\r")
        if line.strip():
            yield line


def parse_reftx(data):
    """``<old> SP <new> SP <ref>`` lines into RefUpdate (or Malformed) items."""
    items: list = []
    for line in _lines(data):
        words = line.split(" ")
        if len(words) == 3 and all(words) and _value_ok(words[0]) and _value_ok(words[1]) \
                and _ref_ok(words[2]):
            items.append(RefUpdate(*words))
        else:
            items.append(Malformed(line, line.split()))
    return items


def parse_prepush(data):
    """``<local ref> SP <local oid> SP <remote ref> SP <remote oid>`` lines.

    The local ref is the text as typed and may contain spaces, so the line is split from the
    right; the remote ref is always a full ref name.
    """
    items: list = []
    for line in _lines(data):
        words = line.rsplit(" ", 3)
        if len(words) == 4 and words[0] and is_oid(words[1]) and _ref_ok(words[2]) and is_oid(words[3]):
            items.append(PushLine(*words))
        else:
            items.append(Malformed(line, line.split()))
    return items


def _value_ok(value):
    return is_oid(value) or (is_symref_value(value) and _ref_ok(value[4:]))


def _ref_ok(ref):
    return bool(ref) and not any(c in ref for c in " \t\0") and all(ord(c) >= 0x20 for c in ref)
