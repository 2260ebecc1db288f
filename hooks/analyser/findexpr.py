"""``find ... -delete``: which files it can take. A find whose expression is a plain conjunction with
``-name``/``-iname`` tests deletes only files of those names, so housekeeping such as
``find . -name '*.pyc' -delete`` from the work tree's top (which walks into ``.git``) is judged by the
guard's files it would really match, not by the directory it starts in."""
import os

from ..globmatch import fnmatchcase
from ..guardpaths import inside

# tests that only narrow what a conjunction matches (each takes one argument, or none)
NARROWING = {"-name": 1, "-iname": 1, "-type": 1, "-mtime": 1, "-mmin": 1, "-size": 1, "-newer": 1,
             "-user": 1, "-group": 1, "-perm": 1, "-maxdepth": 1, "-mindepth": 1, "-empty": 0, "-depth": 0,
             "-xdev": 0, "-mount": 0, "-delete": 0, "-print": 0, "-print0": 0, "-a": 0, "-and": 0}
MAX_WALK = 20000


def name_patterns(args):
    """(starting points, [(pattern, case-insensitive)]) when ``args`` (find's words) delete only files
    matching every pattern; None when the expression could delete anything else (``-o``, ``!``,
    ``-exec``, ``-path``, no ``-name``...)."""
    starts = []
    i = 0
    while i < len(args) and args[i] in ("-H", "-L", "-P"):
        i += 1
    while i < len(args) and not args[i].startswith(("-", "(", "!", ")")):
        starts.append(args[i])
        i += 1
    patterns = []
    while i < len(args):
        word = args[i]
        if word not in NARROWING or i + NARROWING[word] >= len(args):
            return None
        if word in ("-name", "-iname"):
            patterns.append((args[i + 1], word == "-iname"))
        i += 1 + NARROWING[word]
    if "-delete" not in args or not patterns:
        return None
    return starts or ["."], patterns


def matches(name, patterns):
    return all(fnmatchcase(name.lower() if fold else name, pat.lower() if fold else pat)
               for pat, fold in patterns)


def guarded_match(guarded_roots, start, patterns):
    """The first existing file below ``start`` and inside one of ``guarded_roots`` whose name matches
    ``patterns``, else None; on a tree too large to walk, ``start``. (The runtime copy keeps no
    ``.pyc``: ``find . -name '*.pyc' -delete`` from the top finds none of the guard's files.)"""
    seen = 0
    for root in guarded_roots:
        if not (inside(root, start) or inside(start, root)):
            continue
        top = root if inside(root, start) else start
        if os.path.isfile(top) or os.path.islink(top):
            if matches(os.path.basename(top), patterns):
                return top
            continue
        for folder, dirs, names in os.walk(top):
            seen += len(names) + len(dirs)
            if seen > MAX_WALK:
                return start
            for name in names + dirs:
                path = os.path.join(folder, name)
                if matches(name, patterns):
                    return path
    return None

