"""A git command line parsed the way git parses it.

Global options are git.c's own (not parse-options, so no abbreviations); the table below is
checked against ``git --help``'s usage line and against what git accepts by the test suite. The
command's options follow parse-options: ``--name=value`` or ``--name value`` for a required value,
``--name=value`` only for an optional one, unique abbreviations, ``--no-`` negations, clusters of
short flags (``-qj4``, ``-qj 4``), options and positionals in any order until ``--``.

``argv[0]`` of the form ``git-<cmd>`` selects ``<cmd>`` (the dashed form). A caller can set
``argv[0]`` to anything (``exec -a``), but git dispatches on the same words we read.
"""
import os

from .options import NONE, OPTIONAL, REQUIRED, CommandOptions, for_command

# git.c: global options that take a value, as a separate word or after "=" ...
GLOBAL_VALUE = {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix",
                "--attr-source"}
# ... only after "=" (``--exec-path`` alone prints the path; ``--list-cmds=`` lists)
GLOBAL_EQ_ONLY = {"--exec-path", "--list-cmds"}
GLOBAL_FLAGS = {"-p", "--paginate", "-P", "--no-pager", "--no-replace-objects", "--bare",
                "--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs",
                "--no-optional-locks", "--no-lazy-fetch", "--no-advice", "--html-path", "--man-path",
                "--info-path"}


class Option:
    __slots__ = ("name", "value", "negated", "word")

    def __init__(self, name, value, negated, word):
        self.name = name  # canonical: the long name without dashes, or "-x" for a short-only option
        self.value = value  # None: no value given
        self.negated = negated
        self.word = word  # the word(s) as given

    def __repr__(self):
        return "Option(%r, %r%s)" % (self.name, self.value, ", negated" if self.negated else "")


class GitCall:
    """A parsed git invocation.

    ``cmd``: the command (None for ``git --version`` and the like), ``sub``: its subcommand when the
    command has them (``worktree add``), ``options``: [Option], ``positionals``: the other words
    (those after ``--`` included), ``dashdash``: how many positionals came before ``--`` (None
    without one), ``args``: every word after the command, ``config``: [(key, value)] from ``-c``,
    ``globals``: every global option word in order."""

    def __init__(self, cmd=None, args=(), config=(), globals_=(), ag_home=None):
        self.cmd = cmd
        self.args = list(args)
        self.config = list(config)
        self.globals = list(globals_)
        self.sub = None
        self.options = []
        self.positionals = []
        self.dashdash = None
        self._top = self._table = for_command(cmd, ag_home) if cmd else CommandOptions([])
        if cmd:
            self._parse(ag_home)

    def _parse(self, ag_home):
        table = self._top
        args = self.args
        if table.subcommands:
            # parse-options stops at the subcommand; what follows is the subcommand's
            i = _parse_options(table, args, self.options, self.positionals, stop_at_positional=True)
            if i < len(args) and args[i] in table.subcommands:
                self.sub = args[i]
                table = self._table = for_command("%s %s" % (self.cmd, self.sub), ag_home)
                args = args[i + 1:]
            else:
                args = args[i:]
        i = _parse_options(table, args, self.options, self.positionals)
        if i < len(args):  # stopped at "--"
            self.dashdash = len(self.positionals)
            self.positionals.extend(args[i + 1:])

    # -- questions the rules ask -------------------------------------------------------------
    def _queries(self, names):
        return {self._table.query(n) for n in names} | {self._top.query(n) for n in names}

    def has(self, *names):
        """True when one of ``names`` (``--long`` or ``-x``, as a user writes them) is in effect:
        given, and not undone by its negation later (``--no-verify`` ... ``--verify``)."""
        queries = self._queries(names)
        state = False
        for option in self.options:
            for name, negated in queries:
                if option.name == name:
                    state = option.negated == negated
        return state

    def is_option(self, option, name):
        """True when ``option`` (one of ``self.options``) is ``name`` as a user writes it."""
        return (option.name, option.negated) in self._queries([name])

    def values(self, *names):
        """The values given to ``names``, in order."""
        wanted = {name for name, negated in self._queries(names) if not negated}
        return [o.value for o in self.options if o.name in wanted and not o.negated and o.value is not None]

    def value(self, *names):
        """The value of the last of ``names`` given with one, or None."""
        found = self.values(*names)
        return found[-1] if found else None

    def words(self):
        """The positionals before ``--`` (all of them when there is none)."""
        return self.positionals if self.dashdash is None else self.positionals[:self.dashdash]


def _parse_options(table, args, options, positionals, stop_at_positional=False):
    """Fill ``options``/``positionals`` from ``args``; return the index where parsing stopped
    (``len(args)``, the index of ``--``, or of the first positional with ``stop_at_positional``)."""
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--":
            return i
        if word.startswith("--"):
            name, eq, value = word[2:].partition("=")
            found = table.long_option(name)
            if found is None:
                options.append(Option(name, value if eq else None, False, word))
            else:
                canonical, arity, negated = found
                if not eq and arity == REQUIRED and i + 1 < len(args):
                    i += 1
                    value = args[i]
                    eq = "="
                options.append(Option(canonical, value if eq else None, negated, word))
        elif word.startswith("-") and word[1:].isdigit():
            options.append(Option("-NUM", word[1:], False, word))  # `git log -3`
        elif word.startswith("-") and len(word) > 1:
            i = _short_cluster(table, args, i, options)
        else:
            if stop_at_positional:
                return i
            positionals.append(word)
        i += 1
    return i


def _short_cluster(table, args, i, options):
    word = args[i]
    j = 1
    while j < len(word):
        letter = word[j]
        found = table.short_option(letter)
        name, arity, negated = found if found else ("-" + letter, NONE, False)
        rest = word[j + 1:]
        if arity == REQUIRED:
            if rest:
                options.append(Option(name, rest, negated, "-" + letter))
            elif i + 1 < len(args):
                i += 1
                options.append(Option(name, args[i], negated, "-" + letter))
            else:
                options.append(Option(name, None, negated, "-" + letter))
            return i
        if arity == OPTIONAL:
            options.append(Option(name, rest or None, negated, "-" + letter))
            return i
        options.append(Option(name, None, negated, "-" + letter))
        j += 1
    return i


def parse(argv, ag_home=None):
    """Parse a full argv (``argv[0]`` included) into a GitCall."""
    if not argv:
        return GitCall()
    base = os.path.basename(argv[0])
    if base.startswith("git-") and len(base) > 4:
        return GitCall(base[4:], argv[1:], ag_home=ag_home)
    return parse_after_git(list(argv[1:]), ag_home)


def parse_after_git(words, ag_home=None):
    """Parse the words after ``git``: global options, then the command and its arguments."""
    config, globals_ = [], []
    i = 0
    while i < len(words):
        word = words[i]
        if word in GLOBAL_VALUE:
            value = words[i + 1] if i + 1 < len(words) else None
            globals_.extend([word] + ([value] if value is not None else []))
            if word == "-c" and value is not None:
                config.append(config_pair(value))
            i += 2
            continue
        head = word.split("=", 1)[0]
        if word.startswith("--") and "=" in word and (head in GLOBAL_VALUE or head in GLOBAL_EQ_ONLY):
            globals_.append(word)
            if head == "--config-env":
                config.append(config_pair(word.split("=", 1)[1]))
            i += 1
            continue
        if word.startswith(("-c", "-C")) and len(word) > 2 and not word.startswith("--"):
            globals_.append(word)
            if word.startswith("-c"):
                config.append(config_pair(word[2:]))
            i += 1
            continue
        if word in GLOBAL_FLAGS or word in GLOBAL_EQ_ONLY:
            globals_.append(word)
            i += 1
            continue
        if word.startswith("-"):
            # --version, --help and unknown options: git handles them itself, no subcommand.
            globals_.append(word)
            return GitCall(None, words[i + 1:], config, globals_)
        return GitCall(word, words[i + 1:], config, globals_, ag_home)
    return GitCall(None, [], config, globals_)


def config_pair(text):
    """``key=value`` of ``-c`` (``-c key`` alone means true): (lower-cased key, value or None)."""
    key, sep, value = text.partition("=")
    return (key.strip().lower(), value if sep else None)


def cwd_of(call, start):
    """The directory git runs in after its ``-C`` options, starting from ``start``."""
    cwd = start
    g = call.globals
    i = 0
    while i < len(g):
        if g[i] == "-C" and i + 1 < len(g):
            cwd = os.path.join(cwd, g[i + 1]) if g[i + 1] else cwd
            i += 2
            continue
        if g[i].startswith("-C") and len(g[i]) > 2:
            cwd = os.path.join(cwd, g[i][2:])
        i += 1
    return cwd


def git_dir_of(call):
    """The repository ``--git-dir`` names (the last one given), or None."""
    found = None
    g = call.globals
    for i, word in enumerate(g):
        if word == "--git-dir" and i + 1 < len(g):
            found = g[i + 1]
        elif word.startswith("--git-dir="):
            found = word[len("--git-dir="):]
    return found


def environment_config(environ):
    """[(lower-cased key, value)] a command line put in the environment of git's children: git's own
    ``GIT_CONFIG_PARAMETERS`` (sq-quoted ``'key'='value'``, or the older ``'key=value'``) and
    ``GIT_CONFIG_COUNT`` with its ``GIT_CONFIG_KEY_<n>``/``GIT_CONFIG_VALUE_<n>``; None when
    ``GIT_CONFIG_PARAMETERS`` is not as git writes it."""
    found = _sq_words(environ.get("GIT_CONFIG_PARAMETERS", ""))
    if found is None:
        return None
    count = environ.get("GIT_CONFIG_COUNT", "")
    for i in range(int(count) if count.isdigit() else 0):
        key = environ.get("GIT_CONFIG_KEY_%d" % i)
        if key is not None:
            found.append((key.strip().lower(), environ.get("GIT_CONFIG_VALUE_%d" % i)))
    return found


def _sq_step(text, i):
    """One sq-quoted string at ``text[i]`` (git's ``sq_dequote_step``): (its value, the index after
    it), or None."""
    if i >= len(text) or text[i] != "'":
        return None
    out = []
    i += 1
    while True:
        end = text.find("'", i)
        if end < 0:
            return None
        out.append(text[i:end])
        i = end + 1
        if text[i:i + 3] in ("\\''", "\\!'"):
            out.append(text[i + 1])
            i += 3
            continue
        return "".join(out), i


def _sq_words(text):
    """[(key, value)] of ``GIT_CONFIG_PARAMETERS``, or None when it is not as git writes it."""
    pairs = []
    i = 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        step = _sq_step(text, i)
        if step is None:
            return None
        key, i = step
        if i < len(text) and text[i] == "=":
            value = None
            if i + 1 < len(text) and text[i + 1] == "'":
                step = _sq_step(text, i + 1)
                if step is None:
                    return None
                value, i = step
            else:
                i += 1
            pairs.append((key.strip().lower(), value))
        else:
            pairs.append(config_pair(key))
    return pairs
