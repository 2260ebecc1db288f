"""Which pushes go through the guard: git's own answer (``git remote -v`` applies every
``pushInsteadOf``, ``insteadOf`` and ``pushurl`` at every config level), never a re-implementation."""
from .. import gitio

# the URL scheme of agentguard's push helper (git-remote-agw): a push to `agw::URL` goes through it
SCHEME = "agw"
PREFIX = SCHEME + "::"
PROBE = "agentguard-probe"


def parse_push_urls(out):
    """{remote: [push URL...]} from ``git remote -v`` output."""
    found: dict = {}
    for line in out.splitlines():
        name, tab, rest = line.partition("\t")
        if tab and rest.endswith(" (push)"):
            found.setdefault(name, []).append(rest[:-len(" (push)")])
    return found


def push_urls(top, url=None):
    """{remote: [the URLs git pushes to]} for every remote, and for ``url`` typed on a command line
    (under the name ``PROBE``); None when git cannot say."""
    args = ["-c", "remote.%s.url=%s" % (PROBE, url)] if url is not None else []
    rc, out = gitio.run(args + ["remote", "-v"], cwd=top)
    return parse_push_urls(out.decode("utf-8", "surrogateescape")) if rc == 0 else None


def covered(urls):
    return bool(urls) and all(u.startswith(PREFIX) for u in urls)
