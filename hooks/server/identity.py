"""Who is pushing: the name the serving layer put in the hook's environment.

The hook cannot authenticate anybody; it trusts the layer that fixed the receiving command:
ssh (``environment="AGENTGUARD_PUSHER=alice"`` per key in ``authorized_keys``, with
``PermitUserEnvironment yes``), a web server in front of ``git http-backend`` (``REMOTE_USER``),
gitolite (``GL_USER``), Gitea and Forgejo (``GITEA_PUSHER_NAME``; Forgejo kept the name).
Two sources that name different pushers make the pusher unknown: nothing says which one to believe.
"""
SOURCES = ("AGENTGUARD_PUSHER", "REMOTE_USER", "GL_USER", "GITEA_PUSHER_NAME")
MAX_NAME = 128


def name_problem(name):
    """Why ``name`` cannot be a pusher's name, or None: printable, no spaces, bounded."""
    if not isinstance(name, str) or not name:
        return "a pusher's name must be a non-empty string"
    if len(name) > MAX_NAME:
        return "a pusher's name must be at most %d characters" % MAX_NAME
    if any(ord(c) <= 0x20 or c == "\x7f" or 0x80 <= ord(c) <= 0x9f for c in name):
        return "a pusher's name must not contain spaces or control characters"
    return None


class Pusher:
    """``name`` (None: unknown), ``source`` (the variable(s) it came from) and, when unknown,
    ``problem`` (one sentence: why)."""

    def __init__(self, name, source, problem=None):
        self.name = name
        self.source = source
        self.problem = problem

    def describe(self):
        return self.name if self.name is not None else "an unknown pusher"


def pusher(environ):
    """The pusher the environment names (see the module's docstring)."""
    found = [(var, environ.get(var, "")) for var in SOURCES if environ.get(var, "")]
    if not found:
        return Pusher(None, None, "the server set none of %s" % ", ".join(SOURCES))
    for var, value in found:
        if name_problem(value):
            return Pusher(None, var, "%s is not a usable name" % var)
    names = sorted({value for _, value in found})
    if len(names) > 1:
        return Pusher(None, ", ".join(var for var, _ in found),
                      "%s name different pushers; agentguard believes neither"
                      % " and ".join(var for var, _ in found))
    return Pusher(names[0], ", ".join(var for var, _ in found))
