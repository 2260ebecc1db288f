"""A regular expression compiled the first time it is used (``re.compile`` of the analyser's large
patterns costs ~2 ms on every tool call, most of them only for commands that run code)."""
import re


class Lazy:
    """``re.compile(pattern, flags)``, compiled when one of its methods or attributes is first asked for."""

    __slots__ = ("_args", "_compiled")

    def __init__(self, pattern, flags=0):
        self._args = (pattern, flags)
        self._compiled = None

    def __getattr__(self, name):
        if self._compiled is None:
            self._compiled = re.compile(*self._args)
        return getattr(self._compiled, name)


def compile(pattern, flags=0):  # noqa: A001 (named as re's)
    return Lazy(pattern, flags)
