"""Which options a git command takes, and which take a value: read from git, not guessed.

The table comes from ``git <cmd> --help-all`` (``installer/gitaccess/gitoptions.py``), written at install
time as ``<git common dir>/agentguard/gitoptions.json`` (the installed table). ``options.json`` next to this
file is the same table for the supported gits; it answers for a command the installed table lacks and when
there is none. An option neither knows is taken to have no value (git itself rejects it).
"""
import os

from ..jsonlite import loads

FORMAT = 1
TABLE_FILE = "gitoptions.json"
MAX_TABLE_FILE = 2 * 1024 * 1024
NONE, REQUIRED, OPTIONAL = "n", "r", "o"

_HERE = os.path.dirname(os.path.abspath(__file__))
_tables: dict = {}  # loaded tables and per-command views, once per process


def _load(path):
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_TABLE_FILE + 1)
        data = loads(raw.decode("utf-8")) if len(raw) <= MAX_TABLE_FILE else None
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("commands"), dict):
        return None
    return data


def shipped():
    if "shipped" not in _tables:
        _tables["shipped"] = _load(os.path.join(_HERE, "options.json")) or {"commands": {}}
    return _tables["shipped"]


def installed_table(ag_home):
    """The install-time table of the repository whose agentguard home is ``ag_home`` (or None)."""
    if not ag_home:
        return None
    key = ("installed", ag_home)
    if key not in _tables:
        _tables[key] = _load(os.path.join(ag_home, TABLE_FILE))
    return _tables[key]


class CommandOptions:
    """The options of one command (``fetch``) or subcommand (``worktree add``)."""

    def __init__(self, entries):
        self.long: dict = {}  # name -> arity
        self.short: dict = {}  # letter -> (long name or "", arity)
        self.subcommands: set = set()
        for entry in entries:
            for name, arity in _dict(entry.get("long")).items():
                self.long.setdefault(name, arity)
            for letter, spec in _dict(entry.get("short")).items():
                if isinstance(spec, list) and len(spec) == 2:
                    self.short.setdefault(letter, (spec[0], spec[1]))
            self.subcommands.update(x for x in entry.get("subcommands") or () if isinstance(x, str))

    def long_option(self, word):
        """(canonical name, arity, negated) for ``--word`` (no dashes, no ``=value``), resolving
        unique abbreviations and ``--no-`` forms the way parse-options does, or None. The canonical
        name of a negatable pair is the positive one: ``--no-verify`` is ("verify", "n", True) when
        git knows ``--verify``."""
        if word in self.long:
            return self._canonical(word, self.long[word])
        if word.startswith("no-") and word[3:] in self.long:
            return word[3:], NONE, True
        if "no-" + word in self.long:  # --verify negates --no-verify
            return self._canonical("no-" + word, NONE, negate=True)
        candidates = {n for n in self.long if n.startswith(word)}
        candidates |= {"no-" + n for n in self.long if ("no-" + n).startswith(word) and not n.startswith("no-")}
        if len(candidates) == 1:
            return self.long_option(candidates.pop())
        return None

    def _canonical(self, name, arity, negate=False):
        if name.startswith("no-") and name[3:] in self.long:
            return name[3:], NONE, not negate
        return name, arity, negate

    def short_option(self, letter):
        """(canonical name, arity, negated) for ``-letter``: by its long name when it has one, else
        ``-x``; or None."""
        spec = self.short.get(letter)
        if spec is None:
            return None
        name, arity = spec
        if not name:
            return "-" + letter, arity, False
        return self._canonical(name, arity)

    def query(self, name):
        """(canonical name, negated) that an option written ``name`` (``--x`` or ``-x``) has."""
        if name.startswith("--"):
            found = self.long_option(name[2:])
            return (found[0], found[2]) if found else (name[2:], False)
        found = self.short_option(name[1:2]) if len(name) == 2 else None
        return (found[0], found[2]) if found else (name, False)


def _dict(value):
    return value if isinstance(value, dict) else {}


def for_command(key, ag_home=None):
    """CommandOptions for ``key`` ("fetch", "worktree add"): the installed table's when it has the command
    (the git that runs), else the shipped table's (read only then: a hook pays for one table)."""
    cache_key = ("cmd", key, ag_home)
    if cache_key not in _tables:
        entry = None
        for load in (lambda: installed_table(ag_home), shipped):
            table = load()
            entry = table["commands"].get(key) if table is not None else None
            if isinstance(entry, dict):
                break
        _tables[cache_key] = CommandOptions([entry] if isinstance(entry, dict) else [])
    return _tables[cache_key]
