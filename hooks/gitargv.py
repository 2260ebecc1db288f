"""Parse a git command line the way git itself dispatches it.

Used for the command that called a hook (read from ``/proc/<pid>/cmdline``, NUL-separated, so
no quoting games) and, later, by the command analyser. ``argv[0]`` of the form ``git-<cmd>``
selects ``<cmd>`` (the dashed form); otherwise global options are skipped and the first other
word is the command. A caller can set ``argv[0]`` to anything (``exec -a``) but git dispatches on
the same words we read, so a spoofed ``argv[0]`` cannot make a command pose as another one.
"""
import os

# Global options that take a separate value (``-C dir``, ``--git-dir dir``).
_VALUE_OPTS = {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env",
               "--super-prefix", "--exec-path", "--attr-source", "--list-cmds"}
# Global options without a value.
_FLAG_OPTS = {"-p", "--paginate", "-P", "--no-pager", "--no-replace-objects", "--bare",
              "--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs",
              "--icase-pathspecs", "--no-optional-locks", "--no-lazy-fetch",
              "--no-advice", "--html-path", "--man-path", "--info-path"}


class GitCall:
    """A parsed git invocation: ``cmd`` (None when there is none), its ``args``, ``-c`` config."""

    def __init__(self, cmd, args, config, globals_):
        self.cmd = cmd
        self.args = args
        self.config = config  # list of (lower-cased key, value or None)
        self.globals = globals_  # every global option word, in order

    def has_option(self, *names):
        """True when any of the long/short ``names`` appears before ``--`` (``--x=v`` counts)."""
        for arg in self.args:
            if arg == "--":
                return False
            for name in names:
                if arg == name or (name.startswith("--") and arg.startswith(name + "=")):
                    return True
                if len(name) == 2 and name[0] == "-" and arg.startswith("-") and not arg.startswith("--") \
                        and len(arg) > 2 and name[1] in arg[1:] and _short_cluster(arg):
                    return True
        return False

    def positionals(self):
        """Arguments that are not options (everything after ``--`` counts)."""
        out, rest = [], False
        for arg in self.args:
            if rest:
                out.append(arg)
            elif arg == "--":
                rest = True
            elif not arg.startswith("-") or arg == "-":
                out.append(arg)
        return out


def _short_cluster(arg):
    # ``-fd`` is a cluster of short flags; ``-m<msg>``-style values make this a heuristic,
    # only used for flags that take no value.
    return arg[1:].isalpha()


def parse(argv):
    """Parse a full argv (``argv[0]`` included) into a GitCall."""
    if not argv:
        return GitCall(None, [], [], [])
    base = os.path.basename(argv[0])
    if base.startswith("git-") and len(base) > 4:
        return GitCall(base[4:], list(argv[1:]), [], [])
    return parse_after_git(list(argv[1:]))


def parse_after_git(words):
    """Parse the words after ``git``: global options, then the command and its arguments."""
    config, globals_ = [], []
    i = 0
    while i < len(words):
        word = words[i]
        if word in _VALUE_OPTS:
            value = words[i + 1] if i + 1 < len(words) else None
            globals_.extend([word] + ([value] if value is not None else []))
            if word == "-c" and value is not None:
                config.append(_config_pair(value))
            i += 2
            continue
        if word.startswith("--") and "=" in word and word.split("=", 1)[0] in _VALUE_OPTS:
            globals_.append(word)
            if word.startswith("--config-env="):
                config.append(_config_pair(word.split("=", 1)[1]))
            i += 1
            continue
        if word.startswith("-c") and len(word) > 2 and not word.startswith("--"):
            globals_.append(word)
            config.append(_config_pair(word[2:]))
            i += 1
            continue
        if word.startswith("-C") and len(word) > 2 and not word.startswith("--"):
            globals_.append(word)
            i += 1
            continue
        if word in _FLAG_OPTS or word.startswith("--exec-path"):
            globals_.append(word)
            i += 1
            continue
        if word.startswith("-"):
            # --version, --help and unknown options: git handles them itself, no subcommand.
            globals_.append(word)
            return GitCall(None, words[i + 1:], config, globals_)
        return GitCall(word, words[i + 1:], config, globals_)
    return GitCall(None, [], config, globals_)


def _config_pair(text):
    key, sep, value = text.partition("=")
    return (key.strip().lower(), value if sep else None)


def read_process_argv(pid):
    """The argv of process ``pid`` (Linux /proc), or None when it cannot be read."""
    try:
        with open("/proc/%d/cmdline" % int(pid), "rb") as fh:
            raw = fh.read(1 << 20)
    except (OSError, ValueError):
        return None
    if not raw:
        return None
    parts = raw.split(b"\0")
    if parts and parts[-1] == b"":
        parts.pop()
    return [p.decode("utf-8", "surrogateescape") for p in parts]
