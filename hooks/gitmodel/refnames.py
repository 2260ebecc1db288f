"""Refspecs, and how git expands each side of one.

- a fetch destination (remote.c ``get_local_ref``): ``refs/...`` as written; ``heads/``, ``tags/``,
  ``remotes/`` get ``refs/`` in front; anything else is a branch (``refs/heads/<name>``).
- a fetch source or a push destination names a ref *of the other side*, matched the way
  ``git rev-parse`` matches (``refname_match``): ``<name>``, ``refs/<name>``, ``refs/tags/<name>``,
  ``refs/heads/<name>``, ``refs/remotes/<name>``, ``refs/remotes/<name>/HEAD``.
- a revision on this side (``origin/main``, ``@``, ``HEAD``) follows the same rules.
"""

ZERO_OID = "0" * 40
MAX_SYMREF_DEPTH = 5  # git's own limit (SYMREF_MAXDEPTH in refs.h)
REV_PARSE_RULES = ("%s", "refs/%s", "refs/tags/%s", "refs/heads/%s", "refs/remotes/%s", "refs/remotes/%s/HEAD")
_HEX = "0123456789abcdef"  # an object id in lower-case hex, told without re (every git hook run asks)


class Refspec:
    """``[+]<src>[:<dst>]`` or ``^<src>`` (negative)."""
    __slots__ = ("text", "force", "negative", "src", "dst")

    def __init__(self, text):
        self.text = text
        self.negative = text.startswith("^")
        body = text[1:] if self.negative else text
        self.force = body.startswith("+")
        body = body[1:] if self.force else body
        src, sep, dst = body.partition(":")
        self.src = src
        self.dst = dst if sep else None  # None: no ":" at all; "" : an empty destination

    @property
    def is_glob(self):
        return "*" in self.src or (self.dst is not None and "*" in self.dst)

    def __repr__(self):
        return "Refspec(%r)" % self.text


def fetch_dst(name):
    """The local ref a fetch refspec's destination writes (``remotes/o/m`` -> ``refs/remotes/o/m``)."""
    if not name:
        return None
    if name.startswith("refs/"):
        return name
    if name.startswith(("heads/", "tags/", "remotes/")):
        return "refs/" + name
    return "refs/heads/" + name


def candidates(name):
    """Full ref names ``name`` may stand for, in git's order of preference."""
    if name.startswith("refs/"):
        return [name]
    return [rule % name for rule in REV_PARSE_RULES if rule != "%s" or name in ("HEAD", "FETCH_HEAD")]


def names_branch(name, branch):
    """True when ``name`` (a fetch source or a push destination) can stand for ``refs/heads/<branch>``."""
    return "refs/heads/" + branch in candidates(name) if name else False


def is_branch(name, branch):
    """True when ``name`` is ``refs/heads/<branch>`` written out: the one spelling that means that
    branch whatever else the other side has."""
    return name == "refs/heads/" + branch


def best_match(name, refs):
    """The ref of ``refs`` (full names another side advertises) git picks for ``name`` (remote.c
    ``find_ref_by_name_abbrev``: the earliest rule of ``REV_PARSE_RULES`` wins, so a tag ``main``
    is picked before the branch ``main``), or None when none matches."""
    names = set(refs)
    rules = [name] if name.startswith("refs/") else [rule % name for rule in REV_PARSE_RULES]
    return next((ref for ref in rules if ref in names), None)


def is_object_id(name):
    """A full or abbreviated object id (what CI checkouts fetch: ``+<sha>:refs/remotes/origin/main``)."""
    return 4 <= len(name) <= 64 and not name.strip(_HEX)  # \A[0-9a-f]{4,64}\Z


def is_full_oid(name):
    return len(name) in (40, 64) and not name.strip(_HEX)  # \A(?:[0-9a-f]{40}|[0-9a-f]{64})\Z


def map_glob(spec, ref, reverse=False):
    """Apply a glob refspec: the destination ``ref`` gets from the source (``reverse``: the
    source a destination comes from), or None when the pattern does not match."""
    src, dst = (spec.dst, spec.src) if reverse else (spec.src, spec.dst)
    if src is None or dst is None or src.count("*") != 1 or dst.count("*") != 1:
        return None
    head, _, tail = src.partition("*")
    if not (ref.startswith(head) and ref.endswith(tail) and len(ref) >= len(head) + len(tail)):
        return None
    middle = ref[len(head):len(ref) - len(tail)]
    return dst.replace("*", middle, 1)


def fetch_sources_of(spec, local_ref):
    """What ``spec`` (a fetch refspec) fetches into ``local_ref``: [] when it does not write it,
    else the source names (a glob gives the remote ref the pattern maps to it)."""
    if spec.negative or spec.dst is None or spec.dst == "":
        return []
    if "*" in spec.dst:
        dst = fetch_dst(spec.dst) if spec.dst.startswith(("refs/", "heads/", "tags/", "remotes/")) else spec.dst
        src = map_glob(Refspec("%s:%s" % (spec.src, dst)), local_ref, reverse=True)
        return [src] if src is not None else []
    return [spec.src] if fetch_dst(spec.dst) == local_ref else []


def push_destinations(spec):
    """The remote refs a push refspec names as its destination: a glob stays a pattern."""
    if spec.negative:
        return []
    dst = spec.dst if spec.dst is not None else spec.src
    return candidates(dst) if dst else []



def follow_symrefs(ref, symrefs):
    """The ref ``ref`` ends at through ``symrefs`` (name -> target, as a v2 listing names them), or
    None past git's depth limit or in a loop."""
    seen = [ref]
    while seen[-1] in symrefs:
        seen.append(symrefs[seen[-1]])
        if len(seen) > MAX_SYMREF_DEPTH + 1 or seen[-1] in seen[:-1]:
            return None
    return seen[-1]
