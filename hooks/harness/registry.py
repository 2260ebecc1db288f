"""Every harness agentguard knows, in one order (the order install sets them up and lists them).
Adding a harness: its module next to this one, its name here, and its install-time module in
``installer/harness`` (when it has install-time facts)."""
import os

# in the order install sets them up and lists them; each is the module of that name next to this one
NAMES = ("pi", "hermes", "gptme", "claude", "codex", "gemini", "opencode", "copilot", "kilo", "amp", "goose", "crush",
         "kiro", "cline", "windsurf", "cursor", "qwen", "auggie", "droid")


def harness(name):
    """The ``descriptor.Harness`` of harness ``name`` (one of ``NAMES``), its module imported only now: a
    tool call's hook needs its own harness, not all nineteen."""
    if name not in NAMES:
        raise KeyError(name)
    return __import__("%s.%s" % (__package__, name), fromlist=["HARNESS"]).HARNESS  # (importlib imports warnings)


def protocol(name):
    """The hook protocol of harness ``name``; None for a name that is no harness, or one without a hook
    that runs ``check --hook`` (a plugin of ours)."""
    return harness(name).protocol if name in NAMES else None


def __getattr__(attr):
    """``HARNESSES`` ({name: Harness}) and ``PROTOCOLS`` (the harnesses whose hook runs ``check --hook
    HARNESS``: name -> descriptor.Protocol), built (every harness imported) when first asked for."""
    if attr == "HARNESSES":
        value = {name: harness(name) for name in NAMES}
    elif attr == "PROTOCOLS":
        value = {name: h.protocol for name, h in __getattr__("HARNESSES").items() if h.protocol is not None}
    else:
        raise AttributeError(attr)
    globals()[attr] = value
    return value


def worktree_files():
    """Every harness's guarded files in the work tree (relative, ``/``-separated): ``watched``'s table of
    what the descriptors say, without importing the harnesses."""
    from .watched import WORKTREE_FILES
    return WORKTREE_FILES


def user_files(environ=None):
    """Every harness's guarded user-level files, where ``environ`` (default: this process's) puts them."""
    from .watched import user_files as table
    return table(os.environ if environ is None else environ)


def not_watched():
    """Names of user-level files the harnesses write themselves all the time."""
    from .watched import NOT_WATCHED
    return NOT_WATCHED


def involves():
    """Every harness's regex alternatives for text that names its files."""
    return [part for h in __getattr__("HARNESSES").values() for part in h.involves]


def code_text():
    """Every harness's regex alternatives for code that names its adapter's files."""
    return [part for h in __getattr__("HARNESSES").values() for part in h.code_text]


def read_tools():
    """Every harness's read-only tools."""
    return sorted({t for p in __getattr__("PROTOCOLS").values() for t in p.reads})
