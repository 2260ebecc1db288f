"""The doctor's config questions, answered from one ``git config --list`` instead of one git each.

The doctor asked git about a repository's config about ten times (aliases, ``core.hooksPath``,
includes, config hooks, ``init.templateDir``, the push guard's alias, the ref storage, the settings that
run programs, the remotes' URLs): ~1.5 ms of CPU each, every repository of ``doctor --all``. Here
``git config -z --list --show-scope --show-origin`` (every level git reads, includes followed, in git's
order: the same environment and directory as the questions) is read once; each question is then answered
with the entries whose key it names, printed byte for byte as the git command it replaces prints them
(``--get``, ``--get-all``, ``--get-regexp``; ``-z``, ``--show-scope``, ``--show-origin`` with ``-z``).
``tests/test_fleet_config.py`` holds every form the doctor asks equal to git's own answer.

Keys are git's canonical form (section and variable lowercased, the subsection as written: what both
``--list`` and ``--get-regexp`` match against); a ``--get-regexp`` pattern is searched in them as git's
extended regular expression is (``.`` matches any byte). A question of another form, or a listing git
refused (a config file it cannot parse), is put to git itself, as before.
"""
import re

from .gitenv import TIMEOUT, git, run

LIST = ["config", "-z", "--list", "--show-scope", "--show-origin"]
ACTIONS = ("--get", "--get-all", "--get-regexp")
FLAGS = frozenset({"-z", "--show-scope", "--show-origin"})


def parse(out):
    """[(scope, origin, key, value or None)] (bytes) of ``git config -z --list --show-scope --show-origin``."""
    fields = out.split(b"\0")
    if fields and fields[-1] == b"":
        fields.pop()
    if len(fields) % 3:
        return None
    entries = []
    for i in range(0, len(fields), 3):
        key, nl, value = fields[i + 2].partition(b"\n")
        entries.append((fields[i], fields[i + 1], key, value if nl else None))
    return entries


def canonical(name):
    """``name`` as git lists it: section and variable lowercased, a subsection as written."""
    section, _, rest = name.partition(b".")
    middle, dot, var = rest.rpartition(b".")
    return section.lower() + b"." + (middle + dot if dot else b"") + var.lower()


class ConfigList:
    """``ask(args)``: the stdout of ``git ARGS`` in ``top`` (as ``gitenv.git(args, top, check=False)``
    returns it) for a config question, from the one listing."""

    def __init__(self, top):
        self.top = top
        rc, out, _ = run(LIST, top, TIMEOUT)
        self.entries = parse(out) if rc == 0 else None

    def ask(self, args):
        answer = self.answer(list(args)) if self.entries is not None else None
        if answer is None:
            return git(args, cwd=self.top, check=False)
        return answer.decode("utf-8", "surrogateescape").rstrip("\n")

    def answer(self, args):
        """The bytes git would print for ``args``, or None when this is no question answered here."""
        if len(args) < 3 or args[0] != "config" or args[-2] not in ACTIONS or not set(args[1:-2]) <= FLAGS:
            return None
        flags, action, name = set(args[1:-2]), args[-2], args[-1].encode("utf-8", "surrogateescape")
        z = "-z" in flags
        if "--show-origin" in flags and not z:
            return None  # git quotes an origin without -z: asked of git
        if action == "--get-regexp":
            try:
                pattern = re.compile(name, re.DOTALL)
            except re.error:
                return None
            found = [e for e in self.entries if pattern.search(e[2])]
        else:
            key = canonical(name)
            found = [e for e in self.entries if e[2] == key]
            if action == "--get":
                found = found[-1:]
        term, sep = (b"\0", b"\0") if z else (b"\n", b"\t")
        out = []
        for scope, origin, key, value in found:
            line = scope + sep if "--show-scope" in flags else b""
            line += origin + sep if "--show-origin" in flags else b""
            if action == "--get-regexp":
                line += key + ((b"\n" if z else b" ") + value if value is not None else b"")
            else:
                line += value or b""
            out.append(line + term)
        return b"".join(out)
