"""Regular expressions without ``import re`` until one is used: ``re`` brings ``enum``, ``functools``
and ``collections`` (~4 ms of CPU, half the interpreter's own start), and a tool call's pre-check of
``ls`` or ``git status`` uses none. ``compile`` gives a pattern compiled the first time one of its
methods is asked for (its text may be a function, called then: a table built from every harness's
module); the module functions (``sub``, ``match``...) are ``re``'s, imported when first called."""
import sys

# re.RegexFlag's values (tests/test_lazyre.py compares them with re's)
I = IGNORECASE = 2  # noqa: E741 (named as re's)
M = MULTILINE = 8
S = DOTALL = 16
X = VERBOSE = 64


def _re():
    mod = sys.modules.get("re")
    if mod is None:
        import re as mod
    return mod


class Lazy:
    """``re.compile(pattern, flags)``, compiled when one of its methods or attributes is first asked for;
    ``pattern`` may be a function returning the pattern's text."""

    __slots__ = ("_args", "_compiled")

    def __init__(self, pattern, flags=0):
        self._args = (pattern, flags)
        self._compiled = None

    def __getattr__(self, name):
        if self._compiled is None:
            pattern, flags = self._args
            self._compiled = _re().compile(pattern() if callable(pattern) else pattern, flags)
        return getattr(self._compiled, name)


def compile(pattern, flags=0):  # noqa: A001 (named as re's)
    return Lazy(pattern, flags)


def sub(pattern, repl, string, count=0, flags=0):
    return _re().sub(pattern, repl, string, count, flags)


def match(pattern, string, flags=0):
    return _re().match(pattern, string, flags)


def fullmatch(pattern, string, flags=0):
    return _re().fullmatch(pattern, string, flags)


def search(pattern, string, flags=0):
    return _re().search(pattern, string, flags)


def findall(pattern, string, flags=0):
    return _re().findall(pattern, string, flags)


def finditer(pattern, string, flags=0):
    return _re().finditer(pattern, string, flags)


def escape(pattern):
    return _re().escape(pattern)
