"""Which pushes go through the guard: git's own answer (``git remote -v`` applies every
``pushInsteadOf``, ``insteadOf`` and ``pushurl`` at every config level), never a re-implementation."""
from .. import gitio
from .helper import PREFIX

PROBE = "agentguard-probe"


def push_urls(top, target, is_remote):
    """The URLs git pushes to for remote ``target`` (or, when not ``is_remote``, for the URL
    ``target`` typed on a command line); None when git cannot say."""
    name, args = target, ["remote", "-v"]
    if not is_remote:
        name, args = PROBE, ["-c", "remote.%s.url=%s" % (PROBE, target), "remote", "-v"]
    rc, out = gitio.run(args, cwd=top)
    if rc != 0:
        return None
    return [line.split("\t", 1)[1][:-len(" (push)")] for line in out.decode("utf-8", "surrogateescape").splitlines()
            if line.startswith(name + "\t") and line.endswith(" (push)")]


def covered(urls):
    return bool(urls) and all(u.startswith(PREFIX) for u in urls)
