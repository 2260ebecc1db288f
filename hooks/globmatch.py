"""``fnmatch.fnmatchcase`` without importing ``fnmatch`` (which imports ``re``, ~6 ms of CPU on every
tool call) for the patterns the guard meets on every call: a plain name and ``*`` wildcards
(``settings*.json``, ``release/*``). Any other pattern (``?``, ``[...]``) goes to ``fnmatch`` itself."""


def fnmatchcase(name, pattern):
    """``fnmatch.fnmatchcase(name, pattern)``: ``*`` matches any run of characters, ``/`` included."""
    if "?" in pattern or "[" in pattern:
        import fnmatch
        return fnmatch.fnmatchcase(name, pattern)
    parts = pattern.split("*")
    if len(parts) == 1:
        return name == pattern
    first, last = parts[0], parts[-1]
    if len(name) < len(first) + len(last) or not name.startswith(first) or not name.endswith(last):
        return False
    pos, end = len(first), len(name) - len(last)
    for part in parts[1:-1]:  # each middle piece at its first place after the one before: greedy is exact for *
        found = name.find(part, pos, end)
        if found < 0:
            return False
        pos = found + len(part)
    return True
