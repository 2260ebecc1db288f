"""The text of a program the analyser reads: what a literal ``echo``/``printf``/``cat`` writes to a
pipe, a file given to a shell or an interpreter, what ``< FILE`` feeds a command."""
import os

from .constructs import INVOLVES
from .shelltree import DYN, RESERVED, Simple
from ..rules import Block
from ..saferead import read_regular

MAX_PROGRAM = 64 * 1024


def literal_output(node, state):
    """What ``node`` writes to a pipe, when it is a literal echo/printf/cat (else None)."""
    if not isinstance(node, Simple):
        return None
    words = node.words
    while words and words[0].text in RESERVED and not words[0].quoted:  # `{ echo ...; } | sh`
        words = words[1:]
    if not words:
        return None
    name = os.path.basename(words[0].text)
    args = words[1:]
    if any(DYN in a.text for a in args):
        return None
    if name in ("echo", "printf") and args:  # each way the shell may print it (escapes decoded or not)
        from . import printed  # here: only echo and printf load it
        return "\n".join(printed.texts(name, [a.text for a in args]) or [])
    if name == "cat":
        if node.heredocs:
            return node.heredocs[-1]
        if args and state.cwd:
            data = read_regular(os.path.join(state.cwd, args[0].text), 64 * 1024)
            return None if data is None else data.decode("utf-8", "replace")
    return None


def read_program(cwd, path):
    """(text, whole) of the file ``path``: its first MAX_PROGRAM bytes, and whether that is all of it;
    None when it cannot be read."""
    if cwd is None:
        return None
    data = read_regular(os.path.join(cwd, os.path.expanduser(path)), MAX_PROGRAM + 1)
    if data is None:
        return None
    return data[:MAX_PROGRAM].decode("utf-8", "replace"), len(data) <= MAX_PROGRAM


def whole_program(found, origin):
    """The text of ``found`` (``read_program``'s answer) to analyse; None when there is nothing to
    read or it is too large and names nothing of git's; a Block when it is too large and does."""
    if found is None:
        return None
    text, whole = found
    if whole:
        return text
    if INVOLVES.search(text):
        raise Block("unanalysable", "%s too large to analyse" % origin)
    return None
