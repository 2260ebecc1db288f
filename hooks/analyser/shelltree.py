"""The shell parser's tree (``shellparse`` builds it, the analyser walks it): words, simple commands,
pipelines, subshells, function definitions and lists, and the small readings of it every part shares."""

# Reserved words the analyser steps over; those that can come before a command on its line.
RESERVED = frozenset({"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "{", "}", "!", "time", "in"})
DYN = "\x00"  # stands in the text of a Word wherever an expansion's value is unknown


class Word:
    """One shell word: ``text`` with quotes removed; ``dynamic`` when it holds an expansion."""

    def __init__(self):
        self.text = ""
        self.dynamic = False
        self.subs = []  # nested command lists from $(...), `...`, <(...)
        self.quoted = False
        self.glob = False
        self.unquoted_prefix = None  # how much of text came before the first quote or expansion

    def __repr__(self):
        return "Word(%r%s)" % (self.text, ", dynamic" if self.dynamic else "")

    def unknown(self, sub=None):
        """Mark an expansion here (its value is unknown); ``sub``: the commands it runs."""
        if sub is not None:
            self.subs.append(sub)
        self.dynamic = True
        self.text += DYN


class Simple:
    def __init__(self):
        self.assigns = []  # (name, Word)
        self.words = []
        self.redirects = []  # (operator, Word)
        self.heredocs = []  # bodies (text) fed to stdin

    def __repr__(self):
        return "Simple(%r)" % [w.text for w in self.words]


class Pipeline:
    def __init__(self, cmds):
        self.cmds = cmds


class Subshell:
    def __init__(self, body):
        self.body = body


class FuncDef:
    """``name() { body; }``, ``function name { body; }``: ``body`` (a Seq, or a Subshell) runs when
    ``name`` is called."""

    def __init__(self, name, body):
        self.name = name
        self.body = body


class Seq:
    """``items``: [(operator before it or None, node)]."""

    def __init__(self, items):
        self.items = items


def is_assignment(text):
    name, sep, _ = text.partition("=")
    return bool(sep) and bool(name) and (name[0].isalpha() or name[0] == "_") and \
        all(c.isalnum() or c == "_" for c in name)



def literal_word(text, dynamic=False):
    """A Word of ``text`` made by the analyser (not parsed): ``dynamic`` when its value is only known when it runs."""
    w = Word()
    w.text = text
    w.dynamic = dynamic
    return w


def text_of(node):
    """The words of every simple command in ``node``, as one text."""
    return " ".join(w.text for s in iter_simple(node) for w in s.words)


def iter_simple(node):
    """Every Simple command in ``node``, nested substitutions included, in source order."""
    if isinstance(node, Simple):
        yield node
        for w in node.words + [v for _, v in node.assigns] + [t for _, t in node.redirects]:
            for sub in w.subs:
                yield from iter_simple(sub)
    elif isinstance(node, Pipeline):
        for cmd in node.cmds:
            yield from iter_simple(cmd)
    elif isinstance(node, (Subshell, FuncDef)):
        yield from iter_simple(node.body)
    elif isinstance(node, Seq):
        for _, item in node.items:
            yield from iter_simple(item)
