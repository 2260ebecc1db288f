"""Ask git which options each of its commands takes, and which of them take a value.

git's parse-options prints every option of a command with ``git <cmd> --help-all`` (hidden ones
included): ``-j, --jobs <n>`` takes a value, ``--recurse-submodules[=<x>]`` takes an optional one
(only as ``--opt=x`` / ``-ox``), ``--[no-]progress`` (git 2.45+) is negatable. Commands with
subcommands list them in their usage lines (``or: git remote add ...``) and describe each one's
options with ``git <cmd> <sub> --help-all``.

The table is written at install time next to the policy (``gitoptions.json``) and read by the
runtime (``hooks/gitmodel/options.py``); ``hooks/gitmodel/options.json`` is the same table for the
supported gits, used when there is no installed table or a command is missing from it.
"""
import functools
import hashlib
import json
import os
import re
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor

from ...hooks.gitmodel.options import FORMAT, TABLE_FILE, shipped  # noqa: F401  (one name and format: the runtime reads the installed table; install and the doctor name it through this module)
from .gitenv import run, clean_env, isolated_env
from .gitenv import git as run_git
from ..errors import AgentguardError
from ..fsops import atomic_write, read_regular

_SPEC_END = re.compile(r"\s{2,}")
_LONG = re.compile(r"--(\[no-\])?([A-Za-z0-9][A-Za-z0-9_-]*)")
_SUBCOMMAND = re.compile(r"^\s*(?:usage|or):\s+git\s+([a-z][a-z0-9-]*)\s+([a-z][a-z0-9-]*)\b")


def parse_help(text):
    """{"long": {name: arity}, "short": {letter: [long name or "", arity]}, "subcommands": [...]}
    from ``--help-all`` output. Arity: "n" no value, "r" required, "o" optional (sticked only)."""
    longs, shorts, subs = {}, {}, []
    for line in text.splitlines():
        sub = _SUBCOMMAND.match(line)
        if sub and sub.group(2) not in subs:
            subs.append(sub.group(2))
            continue
        if not line.startswith("    -"):
            continue
        parsed = _parse_spec(_spec_of(line))
        if parsed is None:
            continue
        short, name, negatable, arity = parsed
        if name:
            longs[name] = arity
            if negatable and not name.startswith("no-"):
                longs.setdefault("no-" + name, "n")
        if short:
            shorts[short] = [name or "", arity]
    return {"long": longs, "short": shorts, "subcommands": subs}


def _spec_of(line):
    """The option part of a usage line. Help starts in column 26 after at least two spaces, or on
    the next line when the option is wider; git 2.4x prints an option exactly one column too wide
    with a single space before its help (``    -P, --[no-]prune-tags prune local tags...``)."""
    if len(line) > 26 and line[24] != " " and line[25] == " " and line[26] not in " <[=" and "  " not in line[4:25]:
        return line[:25].strip()
    return _SPEC_END.split(line.strip(), 1)[0]


def _parse_spec(spec):
    """(short letter or "", long name or "", negatable, arity) of one option line, or None."""
    short = name = ""
    negatable = False
    rest = spec
    if rest.startswith("-") and not rest.startswith("--"):
        if len(rest) < 2 or rest[1] in " <[" or rest[1:2].isdigit():
            return None  # `-<n>`, `-NUM`: numbers, not options
        short, rest = rest[1], rest[2:]
        if rest.startswith(", "):
            rest = rest[2:]
    if rest.startswith("--"):
        match = _LONG.match(rest)
        if not match:
            return None
        negatable, name, rest = bool(match.group(1)), match.group(2), rest[match.end():]
    if rest.startswith("[=") or (rest.startswith("[") and not name):
        arity = "o"
    elif rest.startswith((" ", "=")) and rest.strip():
        arity = "r"
    else:
        arity = "n"
    if not short and not name:
        return None
    return short, name, negatable, arity


def builtins(git, env, cwd):
    out = run_git(["--list-cmds=builtins"], cwd=cwd, env=env, program=git)
    return sorted({c for c in out.split() if re.match(r"^[a-z][a-z0-9-]*$", c) and "--" not in c})


def derive(git="git", commands=None):
    """The option table of the ``git`` on PATH (or the one given), asked in an empty repository."""
    with tempfile.TemporaryDirectory(prefix="agentguard-gitopts-") as tmp:
        env = isolated_env(tmp)
        repo = os.path.join(tmp, "repo")
        run_git(["init", "-q", repo], cwd=tmp, env=env, program=git)
        version = run_git(["--version"], cwd=tmp, env=env, program=git).strip()
        with ThreadPoolExecutor(max_workers=8) as pool:
            def ask_all(word_lists):
                return dict(zip((" ".join(w) for w in word_lists),
                                pool.map(lambda words: _ask(git, words, repo, env), word_lists)))
            found = ask_all([[c] for c in commands or builtins(git, env, tmp)])
            subs = ask_all([[cmd, sub] for cmd, entry in found.items() if entry for sub in entry["subcommands"]])
    table = {}
    for key, entry in list(found.items()) + list(subs.items()):
        if entry is None or (" " in key and not (entry["long"] or entry["short"])):
            continue
        if not entry["subcommands"]:
            del entry["subcommands"]
        elif not (entry["long"] or entry["short"]):
            _legacy_options(entry, [subs.get("%s %s" % (key, sub)) for sub in entry["subcommands"]])
        table[key] = entry
    return {"format": FORMAT, "git": version, "commands": table}


def _legacy_options(entry, sub_entries):
    """git 2.46+ prints only subcommand usage for ``git config --help-all``, yet still takes the
    options without a subcommand (``git config --file F key value``): those are its subcommands'."""
    for sub in sub_entries:
        for name, arity in (sub or {}).get("long", {}).items():
            entry["long"].setdefault(name, arity)
        for letter, spec in (sub or {}).get("short", {}).items():
            entry["short"].setdefault(letter, spec)


def _ask(git, words, repo, env):
    rc, out, err = run(words + ["--help-all"], repo, 10, env, git)
    text = (out + err).decode("utf-8", "replace")
    if "usage:" not in text:
        return None
    return parse_help(text)


_memo = {}
CACHE_ENV = "AGENTGUARD_CACHE_HOME"


def table_bytes():
    """The installed table install writes: the table of the git on PATH. Asking takes a git process per command
    (~0.5 s of CPU, half of an install), so the answer is kept once per process and in the user's cache
    (``cache_dir``), keyed by the git binary (path, inode, size, mtime) and this module's own code."""
    path = shutil.which("git", path=clean_env().get("PATH")) or "git"
    try:
        real = os.path.realpath(path)
        st = os.stat(real)
        key = (real, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    except OSError:
        return dumps(derive(path)).encode()
    if key not in _memo:
        _memo[key] = _cached(key) or _remember(key, dumps(derive(path)).encode())
    return _memo[key]


def cache_dir():
    """``$AGENTGUARD_CACHE_HOME``, else ``$XDG_CACHE_HOME/agentguard``, else ``~/.cache/agentguard``."""
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "agentguard")


@functools.lru_cache(maxsize=1)
def _code_digest():
    """This module's code, which the cache key includes (read once per process)."""
    with open(__file__, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


def _cache_path(key):
    digest = hashlib.sha256(repr((key, FORMAT, _code_digest())).encode()).hexdigest()[:40]
    return os.path.join(cache_dir(), "gitoptions-%s.json" % digest)


def _cached(key):
    """The cached table for ``key`` when it reads as one (anything else is asked again and rewritten)."""
    try:
        data = read_regular(_cache_path(key))
        table = json.loads(data.decode("utf-8")) if data else None
    except (OSError, AgentguardError, UnicodeDecodeError, ValueError):
        return None
    if not (isinstance(table, dict) and table.get("format") == FORMAT and isinstance(table.get("git"), str)
            and isinstance(table.get("commands"), dict)) or _contradicts_shipped(table):
        return None
    return data


def _contradicts_shipped(table):
    """True when the table gives an option another arity than the table agentguard ships for the supported
    gits says every one of them has: a cache written by something other than ``derive`` (the cache is the
    user's to write, as the installer itself is; an unsupported git is asked again, which costs only time)."""
    for cmd, known in shipped()["commands"].items():
        entry = table["commands"].get(cmd)
        if not isinstance(entry, dict):
            continue
        varies = set(known.get("varies", ()))
        for kind, prefix in (("long", ""), ("short", "-")):
            theirs = entry.get(kind)
            if not isinstance(theirs, dict):
                return True
            for name, spec in known[kind].items():
                if name in theirs and theirs[name] != spec and prefix + name not in varies:
                    return True
    return False


def _remember(key, data):
    """Keep ``data`` in the cache (best effort: an unwritable cache only costs the next install the time)."""
    try:
        path = _cache_path(key)
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        atomic_write(path, data, mode=0o600)
    except (OSError, AgentguardError):
        pass
    return data


def dumps(table):
    return json.dumps(table, indent=None, sort_keys=True, separators=(",", ":")) + "\n"


def merge(*tables):
    """One table that knows every option any of ``tables`` knows (for the shipped fallback). Where
    the gits disagree on an option's value, the last table wins and the option is listed under
    "varies" (the installed table, taken from the git that runs, is exact)."""
    commands = {}
    for table in tables:
        for cmd, entry in table["commands"].items():
            into = commands.setdefault(cmd, {"long": {}, "short": {}})
            for kind in ("long", "short"):
                for name, spec in entry[kind].items():
                    if name in into[kind] and into[kind][name] != spec:
                        into.setdefault("varies", [])
                        if ("-" + name if kind == "short" else name) not in into["varies"]:
                            into["varies"].append("-" + name if kind == "short" else name)
                    into[kind][name] = spec
            if entry.get("subcommands"):
                into["subcommands"] = sorted(set(into.get("subcommands", [])) | set(entry["subcommands"]))
    versions = " + ".join(t["git"] for t in tables)
    return {"format": FORMAT, "git": versions, "commands": commands}


def main(argv=None):
    """``python -m agentguard.installer.gitaccess.gitoptions OUT GIT...``: write the merged table of the gits."""
    import sys
    argv = sys.argv[1:] if argv is None else argv
    out, gits = argv[0], argv[1:] or ["git"]
    table = merge(*(derive(g) for g in gits))
    with open(out, "w") as fh:
        fh.write(dumps(table))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
