"""Which branches are protected: the one place that validates and matches branch patterns.

A pattern is a shell-style glob over the branch name (``main``, ``release/*``); matching is
case-sensitive (where the repository's file system ignores case, the backstop also refuses every
other spelling: ``backstop/casefold.py``) and ``*`` also matches ``/`` (a broader match protects
more, never less).
Names that merely contain a protected name (``main-docs``, ``feature/main``) do not match.
"""
import os

from . import globmatch

FORMAT = 1
DEFAULT_BRANCHES = ("main", "master")
MAX_PATTERNS = 100
MAX_PATTERN_LEN = 200
MAX_REMOTES = 100
MAX_URL_LEN = 1024
GLOB_CHARS = "*?["
# Characters a pattern may not contain: those git refuses in ref names (except the glob
# characters) plus quoting characters, so a pattern can be embedded in a hook script verbatim.
_FORBIDDEN = set(' ~^:\\"\'`$') | {chr(c) for c in range(0x20)} | {"\x7f"}


class PolicyError(Exception):
    """The policy (a config file, an option or the recorded policy) is not valid."""


def pattern_problem(pattern):
    """Why ``pattern`` is not an acceptable branch pattern, or None."""
    if not isinstance(pattern, str):
        return "a branch pattern must be a string, not %s" % type(pattern).__name__
    if not pattern:
        return "a branch pattern must not be empty"
    if len(pattern) > MAX_PATTERN_LEN:
        return "a branch pattern must be at most %d characters" % MAX_PATTERN_LEN
    bad = sorted(set(pattern) & _FORBIDDEN)
    if bad:
        return "branch pattern %r contains a character git does not allow in branch names (%r)" % (
            pattern, bad[0])
    if pattern.startswith(("-", "/", "refs/")) or pattern.endswith(("/", ".", ".lock")):
        return "branch pattern %r is not a branch name (give it without refs/heads/)" % pattern
    if ".." in pattern or "//" in pattern or "@{" in pattern:
        return "branch pattern %r is not a valid branch name" % pattern
    if pattern.count("[") != pattern.count("]"):
        return "branch pattern %r has an unbalanced [...]" % pattern
    if set(pattern) <= set("*/"):
        return ("branch pattern %r protects every branch, so no commit could be made anywhere; "
                "name the protected branches" % pattern)
    return None


def validate_patterns(patterns):
    """Return the patterns as a de-duplicated list, or raise PolicyError."""
    if not isinstance(patterns, (list, tuple)):
        raise PolicyError("branches must be a list of patterns")
    if not patterns:
        raise PolicyError("branches must name at least one pattern (an empty list would protect nothing)")
    if len(patterns) > MAX_PATTERNS:
        raise PolicyError("at most %d branch patterns are supported" % MAX_PATTERNS)
    result = []
    for pattern in patterns:
        problem = pattern_problem(pattern)
        if problem:
            raise PolicyError(problem)
        if pattern not in result:
            result.append(pattern)
    return result


def remote_problem(name, url):
    """Why the remote ``name`` fetching from ``url`` cannot be recorded in the policy file, or None."""
    if not isinstance(name, str) or not isinstance(url, str):
        return "a remote's name and URL must be strings"
    if not name or len(name) > MAX_PATTERN_LEN or not url or len(url) > MAX_URL_LEN:
        return "remote %r has an empty or overlong name or URL" % name[:MAX_PATTERN_LEN]
    if any(ord(c) < 0x20 or c == "\x7f" for c in name + url):
        return "remote %r has a control character in its name or URL" % name[:MAX_PATTERN_LEN]
    return None


def validate_remotes(remotes):
    """{name: fetch URL} as recorded, or raise PolicyError; None (not recorded) stays None."""
    if remotes is None:
        return None
    if not isinstance(remotes, dict) or len(remotes) > MAX_REMOTES:
        raise PolicyError("remotes must be a table of at most %d name = URL entries" % MAX_REMOTES)
    for name, url in remotes.items():
        problem = remote_problem(name, url)
        if problem:
            raise PolicyError(problem)
    return dict(sorted(remotes.items()))


def literal_prefix(pattern):
    """The part of ``pattern`` before its first glob character (all of it if there is none)."""
    cut = min([pattern.find(c) for c in GLOB_CHARS if c in pattern] or [len(pattern)])
    return pattern[:cut]


class Policy:
    """The effective policy: the branch patterns install recorded, and the remotes protected
    branches follow (``{name: fetch URL}`` as configured at install; None in a policy file written
    before remotes were recorded, or by an install that found no remote at all: then every remote's
    tracking refs count, as configured now. A new project is installed before its first remote is
    added, and its main must follow that remote: pulled, fast-forwarded; ``agentguard install`` pins
    them once they exist, and the doctor says so)."""

    def __init__(self, branches, source="default", remotes=None):
        self.branches = validate_patterns(branches)  # by type first: a string is no list of patterns
        if not isinstance(source, str):
            raise PolicyError("the policy's source must be a string")
        self.source = source
        self.remotes = validate_remotes(remotes) or None

    def is_protected(self, branch, fold=False):
        """``fold``: in any letter case (what a file system that ignores case makes of a ref name)."""
        if fold:
            return any(globmatch.fnmatchcase(branch.lower(), p.lower()) for p in self.branches)
        return any(globmatch.fnmatchcase(branch, p) for p in self.branches)

    def classify(self, ref, fold=False):
        """('local', branch), ('remote', remote, branch) or None for a full ref name (``fold``: its
        letters in any case, ``refs/HEADS/Main`` too)."""
        if fold:
            ref = ref.lower()
        if ref.startswith("refs/heads/"):
            branch = ref[len("refs/heads/"):]
            return ("local", branch) if branch and self.is_protected(branch, fold) else None
        if ref.startswith("refs/remotes/"):
            rest = ref[len("refs/remotes/"):]
            pos = rest.find("/")
            while pos > 0:
                branch = rest[pos + 1:]
                if branch and branch != ("head" if fold else "HEAD") and self.is_protected(branch, fold):
                    return ("remote", rest[:pos], branch)
                pos = rest.find("/", pos + 1)
        return None

    def to_json(self):
        data = {"format": FORMAT, "branches": self.branches, "source": self.source}
        if self.remotes is not None:
            data["remotes"] = self.remotes
        return data

    def dumps(self):
        import json
        return json.dumps(self.to_json(), indent=2, sort_keys=True) + "\n"

    @classmethod
    def from_json(cls, data):
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise PolicyError("policy snapshot has an unknown format")
        return cls(data.get("branches"), data.get("source", "snapshot"), data.get("remotes"))


POLICY_FILE = "policy.json"
TEMPLATE_MARK = "template.json"  # in <git dir>/agentguard of a repository made from `install --template`
MAX_POLICY_FILE = 256 * 1024


def load_policy(ag_home):
    """Read the policy install recorded (``policy.json`` in ``<git common dir>/agentguard``); raise PolicyError."""
    return Policy.from_json(read_json(os.path.join(ag_home, POLICY_FILE), MAX_POLICY_FILE, "the policy snapshot"))


def read_json(path, limit, what):
    """The JSON document at ``path`` (at most ``limit`` bytes); PolicyError naming ``what`` when it
    is missing, too large or not JSON."""
    from .saferead import read_regular
    raw = read_regular(path, limit + 1)  # never waits on a FIFO put where the file was
    if raw is None:
        raise PolicyError("%s is missing" % what)
    if len(raw) > limit:
        raise PolicyError("%s is too large" % what)
    try:
        from .jsonlite import loads
        return loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise PolicyError("%s is not valid JSON" % what)
