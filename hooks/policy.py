"""Which branches are protected: the one place that validates and matches branch patterns.

A pattern is a shell-style glob over the branch name (``main``, ``release/*``); matching is
case-sensitive and ``*`` also matches ``/`` (a broader match protects more, never less).
Names that merely contain a protected name (``main-docs``, ``feature/main``) do not match.
"""
import fnmatch
import json
import os

FORMAT = 1
DEFAULT_BRANCHES = ("main", "master")
MAX_PATTERNS = 100
MAX_PATTERN_LEN = 200
GLOB_CHARS = "*?["
# Characters a pattern may not contain: those git refuses in ref names (except the glob
# characters) plus quoting characters, so a pattern can be embedded in a hook script verbatim.
_FORBIDDEN = set(' ~^:\\"\'`$') | {chr(c) for c in range(0x20)} | {"\x7f"}


class PolicyError(Exception):
    """The policy (a config file, an option or the snapshot) is not valid."""


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


def literal_prefix(pattern):
    """The part of ``pattern`` before its first glob character (all of it if there is none)."""
    cut = min([pattern.find(c) for c in GLOB_CHARS if c in pattern] or [len(pattern)])
    return pattern[:cut]


class Policy:
    """The effective policy: the branch patterns a snapshot recorded."""

    def __init__(self, branches, source="default"):
        self.branches = validate_patterns(list(branches))
        self.source = source

    def is_protected(self, branch):
        return any(fnmatch.fnmatchcase(branch, p) for p in self.branches)

    def classify(self, ref):
        """('local', branch), ('remote', remote, branch) or None for a full ref name."""
        if ref.startswith("refs/heads/"):
            branch = ref[len("refs/heads/"):]
            return ("local", branch) if branch and self.is_protected(branch) else None
        if ref.startswith("refs/remotes/"):
            rest = ref[len("refs/remotes/"):]
            pos = rest.find("/")
            while pos > 0:
                branch = rest[pos + 1:]
                if branch and branch != "HEAD" and self.is_protected(branch):
                    return ("remote", rest[:pos], branch)
                pos = rest.find("/", pos + 1)
        return None

    def to_json(self):
        return {"format": FORMAT, "branches": self.branches, "source": self.source}

    def dumps(self):
        return json.dumps(self.to_json(), indent=2, sort_keys=True) + "\n"

    @classmethod
    def from_json(cls, data):
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise PolicyError("policy snapshot has an unknown format")
        return cls(data.get("branches"), str(data.get("source", "snapshot")))


SNAPSHOT_NAME = "policy.json"
MAX_SNAPSHOT = 256 * 1024


def load_snapshot(ag_home):
    """Read the policy snapshot from ``<git common dir>/agentguard``; raise PolicyError."""
    path = os.path.join(ag_home, SNAPSHOT_NAME)
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_SNAPSHOT + 1)
    except OSError:
        raise PolicyError("the policy snapshot is missing")
    if len(raw) > MAX_SNAPSHOT:
        raise PolicyError("the policy snapshot is too large")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise PolicyError("the policy snapshot is not valid JSON")
    return Policy.from_json(data)
