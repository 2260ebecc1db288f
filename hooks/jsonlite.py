"""JSON read and written by the standard library's own C scanner and encoder (``_json``), without
``import json``: that imports ``json.decoder``, which imports ``re`` and ``enum`` (~8 ms of CPU on
every tool call, more than all the rest of a ``check --after`` that finds nothing to undo). The same
parser ``json.loads`` uses, set up the way ``json.JSONDecoder()`` sets it up; where ``_json`` is
missing or takes other arguments, ``json`` itself (slower, the same answers)."""
WHITESPACE = " \t\n\r"  # what JSON allows around a value (json.decoder.WHITESPACE)
# json.decoder's constants, without loading ``math`` (a shared library: ~0.5 ms of CPU)
_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}


class _Context:
    """What ``_json.make_scanner`` reads off a ``json.JSONDecoder()`` made with no arguments."""
    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__
    memo: dict = {}


def _scanner():
    try:
        from _json import make_scanner
        return make_scanner(_Context())  # type: ignore[arg-type]  # (what JSONDecoder hands it)
    except (ImportError, TypeError, AttributeError):
        return None


def _encoder(sort_keys=True):
    try:
        from _json import encode_basestring_ascii, make_encoder
        return make_encoder({}, _not_json, encode_basestring_ascii, None, ": ", ", ", sort_keys, False, True)
    except (ImportError, TypeError, AttributeError):
        return None


def _not_json(value):
    raise TypeError("Object of type %s is not JSON serializable" % type(value).__name__)


_SCAN = _scanner()
_ENCODE = _encoder()
_ENCODE_AS_IS = _encoder(sort_keys=False)


def loads(text):
    """``json.loads(text)`` for a str (ValueError when it is not one JSON document)."""
    if _SCAN is None:
        import json
        return json.loads(text)
    if not isinstance(text, str):
        raise TypeError("JSON text must be str")
    start = len(text) - len(text.lstrip(WHITESPACE))
    try:
        value, end = _SCAN(text, start)
    except StopIteration:
        raise ValueError("Expecting value")
    if text[end:].strip(WHITESPACE):
        raise ValueError("Extra data")
    return value


def dumps_sorted(value):
    """``json.dumps(value, sort_keys=True)``: the same text, byte for byte."""
    if _ENCODE is None:
        import json
        return json.dumps(value, sort_keys=True)
    return "".join(_ENCODE(value, 0))


def dumps(value):
    """``json.dumps(value)``: the same text, byte for byte (keys in their order)."""
    if _ENCODE_AS_IS is None:
        import json
        return json.dumps(value)
    return "".join(_ENCODE_AS_IS(value, 0))
