"""git's rules for a full ref name (``check_refname_format`` in refs.c, as ``git check-ref-format``
applies them without options), for input that must be a ref name git itself produced: what fails
them was not written by git and is refused, not guessed at."""
_BAD_CHARS = set(" ~^:?*[\\\x7f") | {chr(c) for c in range(0x20)}


def is_full_refname(name):
    """True for a valid ref name under ``refs/``."""
    if not name.startswith("refs/") or name.endswith(("/", ".")) or "@{" in name or name == "@":
        return False
    if any(c in _BAD_CHARS for c in name) or ".." in name:
        return False
    return all(part and not part.startswith(".") and not part.endswith(".lock") for part in name.split("/"))
