"""A small POSIX-shell parser for the command analyser (stdlib only, bounded, never hangs).

It understands what decides which programs run with which arguments: lists (``;`` ``&&`` ``||``
``&`` newlines), pipelines, subshells, quoting and escapes (``ma''in`` is ``main``), ``$'...'``,
command substitution (``$(...)``, backticks, ``<(...)``), parameter and arithmetic expansion
(marked *dynamic*: their value is unknown), redirections and here-documents.

Why not a parser from PyPI: bashlex (the one pure-Python candidate) is GPLv3 and raises on
``[[ ]]``, ``case`` and ``$((...))``; tree-sitter needs compiled code the ``python -I -S``
runtime copy cannot load. Anything this parser cannot read raises ParseError, and the
analyser then blocks whatever involves git or the guard's files.
"""

from .shelltree import RESERVED, FuncDef, Pipeline, Seq, Simple, Subshell, Word, is_assignment

MAX_INPUT = 64 * 1024
MAX_DEPTH = 24


class ParseError(Exception):
    pass


class TooDeep(ParseError):
    """Nesting beyond MAX_DEPTH: never retried another way."""


OPENING_WORDS = RESERVED - {"fi", "done", "}", "in"}
_OPS = ("&&", "||", ";;", "|&", ";", "&", "|", "\n")
_REDIRS = ("&>>", "<<<", "<<-", ">>", "<<", "<&", ">&", "<>", ">|", "&>", "<", ">")
_META = set(" \t\n;&|()<>")


def parse(text):
    if len(text) > MAX_INPUT:
        raise ParseError("command too long to analyse")
    parser = Parser(text, 0)
    node = parser.parse_list(end=None)
    if parser.pos < len(parser.s):
        raise ParseError("unexpected %r" % parser.s[parser.pos])
    return node


class Parser:
    def __init__(self, s, depth):
        if depth > MAX_DEPTH:
            raise TooDeep("nested too deeply")
        self.s = s
        self.pos = 0
        self.depth = depth
        self.pending_heredocs = []  # (delimiter, strip_tabs, strip_quotes, Simple)
        self.braces = 0  # `{` opened inside a function body being read (its `}` is not the body's)

    # -- lists -------------------------------------------------------------------------------
    def parse_list(self, end):
        items: list = []
        op = None
        while True:
            self.skip_blanks()
            if self.pos >= len(self.s):
                break
            c = self.s[self.pos]
            if end and c == end:
                if end != "}" or not self.braces:
                    break
                self.braces -= 1  # the `}` of a `{` inside a function body: a command of its own
                self.pos += 1
                items.append((op, _reserved("}")))
                op = None
                continue
            if c == "#":
                self.skip_comment()
                continue
            if c == "\n" or c == ";":
                self.pos += 1
                if c == "\n":
                    self.read_heredocs()
                if self.s.startswith(";", self.pos):  # ';;' (case): treat as a separator
                    self.pos += 1
                op = op or ";"
                continue
            before = self.pos
            node = self.parse_pipeline(end)
            if self.pos == before:
                raise ParseError("unexpected %r" % self.s[self.pos])
            items.append((op, node))
            if end == "}":
                self.braces += _braces_opened(node)
            self.skip_blanks()
            op = None
            for candidate in ("&&", "||", "&"):
                if self.s.startswith(candidate, self.pos) and not self.s.startswith("&>", self.pos):
                    op = candidate
                    self.pos += len(candidate)
                    break
        self.read_heredocs()
        return Seq(items)

    def parse_pipeline(self, end):
        cmds = [self.parse_command(end)]
        while True:
            self.skip_blanks()
            if self.s.startswith("||", self.pos):
                break
            if self.s.startswith("|&", self.pos):
                self.pos += 2
            elif self.s.startswith("|", self.pos):
                self.pos += 1
            else:
                break
            self.skip_newlines()
            cmds.append(self.parse_command(end))
        return cmds[0] if len(cmds) == 1 else Pipeline(cmds)

    def parse_command(self, end):
        self.skip_blanks()
        if self.s.startswith("((", self.pos):
            # bash reads `((...))` as arithmetic, POSIX sh as two subshells: `((git commit))` runs
            # git in dash. Analyse it as commands when it parses as such (arithmetic is harmless
            # either way), as arithmetic only when it does not.
            start = self.pos
            try:
                return self.parse_subshell()
            except TooDeep:
                raise
            except ParseError:
                self.pos = start
            self.pos += 2
            self.read_balanced("(", ")", depth=2)
            simple = Simple()
            w = Word()
            w.dynamic = True
            w.text = "(("
            simple.words.append(w)
            return simple
        if self.s.startswith("(", self.pos):
            return self.parse_subshell()
        if self.s.startswith("function", self.pos) and self.s[self.pos + 8:self.pos + 9] in (" ", "\t"):
            self.pos += 8
            self.skip_blanks()
            name = self.read_word()
            self.skip_blanks()
            if self.s.startswith("(", self.pos):
                self.function_parens()
            return FuncDef(name.text, self.function_body())
        simple = Simple()
        while True:
            self.skip_blanks()
            if self.pos >= len(self.s):
                break
            c = self.s[self.pos]
            if c == "#" and not simple.words:
                self.skip_comment()
                break
            redir = self.match_redirect()
            if redir:
                self.read_redirect(simple, redir)
                continue
            if c in "\n;&|)" or (end and c == end):
                break
            if c == "(":
                if simple.words and not simple.assigns and not simple.redirects and all(
                        w.text in OPENING_WORDS and not w.quoted for w in simple.words):
                    return self.parse_command(end)  # `{ (cd x && ...); }`, `if (...)`, `! (...)`
                if simple.words and simple.words[-1].text.endswith("="):
                    raise ParseError("array assignment")
                plain = not simple.assigns and not simple.redirects and not any(
                    w.quoted or w.dynamic for w in simple.words)
                if plain and [w.text for w in simple.words][:1] == ["coproc"] and len(simple.words) <= 2:
                    return self.parse_subshell()  # `coproc [NAME] ( ... )`: runs it, in the background
                if plain and len(simple.words) == 1:  # `name() { ...; }`
                    self.function_parens()
                    return FuncDef(simple.words[0].text, self.function_body())
                if simple.words:
                    raise ParseError("a stray (")
                raise ParseError("unexpected (")
            word = self.read_word()
            if not simple.words and is_assignment(word.text) and (
                    not word.quoted or (word.unquoted_prefix or 0) > word.text.index("=")):
                simple.assigns.append((word.text.split("=", 1)[0], _value_word(word)))
            else:
                simple.words.append(word)
        return simple

    def parse_subshell(self):
        self.pos += 1
        sub = Parser(self.s, self.depth + 1)
        sub.pos = self.pos
        body = sub.parse_list(end=")")
        if not self.s.startswith(")", sub.pos):
            raise ParseError("unclosed (")
        self.pos = sub.pos + 1
        node = Subshell(body)
        self.parse_trailing_redirects(Simple())
        return node

    def function_parens(self):
        self.pos += 1
        self.skip_blanks()
        if not self.s.startswith(")", self.pos):
            raise ParseError("a stray (")
        self.pos += 1

    def function_body(self):
        """A function's body: ``{ list; }`` or ``( list )`` (any other compound command is not read)."""
        self.skip_newlines()
        if self.s.startswith("(", self.pos):
            return self.parse_subshell()
        if not self.s.startswith("{", self.pos) or self.s[self.pos + 1:self.pos + 2] not in (" ", "\t", "\n"):
            raise ParseError("a function body that is not { ...; } or ( ... )")
        self.pos += 1
        sub = Parser(self.s, self.depth + 1)
        sub.pos = self.pos
        body = sub.parse_list(end="}")
        if not self.s.startswith("}", sub.pos):
            raise ParseError("unclosed {")
        self.pos = sub.pos + 1
        self.parse_trailing_redirects(Simple())
        return body

    def parse_trailing_redirects(self, simple):
        while True:
            self.skip_blanks()
            redir = self.match_redirect()
            if not redir:
                return
            self.read_redirect(simple, redir)

    # -- redirections and here-documents -----------------------------------------------------------
    def match_redirect(self):
        i = self.pos
        while i < len(self.s) and self.s[i].isdigit():
            i += 1
        for op in _REDIRS:
            if self.s.startswith(op, i):
                if op in ("<", ">") and self.s.startswith("(", i + 1):
                    return None  # process substitution: part of a word
                return (i, op)
        return None

    def read_redirect(self, simple, redir):
        i, op = redir
        self.pos = i + len(op)
        self.skip_blanks()
        target = self.read_word()
        if op in ("<<", "<<-"):
            delim = target.text
            self.pending_heredocs.append((delim, op == "<<-", simple))
        elif op == "<<<":
            simple.heredocs.append(target.text)
        else:
            simple.redirects.append((op, target))

    def read_heredocs(self):
        while self.pending_heredocs:
            delim, strip, simple = self.pending_heredocs.pop(0)
            lines = []
            while self.pos < len(self.s):
                nl = self.s.find("\n", self.pos)
                line = self.s[self.pos:] if nl < 0 else self.s[self.pos:nl]
                self.pos = len(self.s) if nl < 0 else nl + 1
                check = line.lstrip("\t") if strip else line
                if check == delim:
                    break
                lines.append(check)
            simple.heredocs.append("\n".join(lines) + "\n")

    # -- words -------------------------------------------------------------------------------
    def read_word(self):
        word = Word()
        start = self.pos
        before = 0
        while self.pos < len(self.s):
            c = self.s[self.pos]
            if word.unquoted_prefix is None and (word.quoted or word.dynamic):
                word.unquoted_prefix = before  # the text before it: `NAME="v"` is still an assignment
            before = len(word.text)
            if c in _META:
                if c in "<>" and self.s.startswith("(", self.pos + 1):
                    self.pos += 2
                    word.unknown(self.sub_list(")"))
                    continue
                break
            if c == "\\":
                if self.pos + 1 < len(self.s):
                    if self.s[self.pos + 1] != "\n":
                        word.text += self.s[self.pos + 1]
                    self.pos += 2
                else:
                    self.pos += 1
                word.quoted = True
            elif c == "'":
                end = self.s.find("'", self.pos + 1)
                if end < 0:
                    raise ParseError("unclosed '")
                word.text += self.s[self.pos + 1:end]
                self.pos = end + 1
                word.quoted = True
            elif c == '"':
                self.pos += 1
                self.read_double(word)
                word.quoted = True
            elif c == "$":
                self.read_dollar(word, in_double=False)
            elif c == "`":
                self.pos += 1
                word.unknown(self.backtick())
            elif c in "*?[" or (c == "~" and self.pos == start):
                word.text += c
                if c == "~":
                    word.dynamic = True
                else:
                    word.glob = True
                self.pos += 1
            else:
                word.text += c
                self.pos += 1
        if self.pos == start:
            raise ParseError("expected a word at %d" % self.pos)
        if word.unquoted_prefix is None and (word.quoted or word.dynamic):
            word.unquoted_prefix = before
        return word

    def read_double(self, word):
        while True:
            if self.pos >= len(self.s):
                raise ParseError('unclosed "')
            c = self.s[self.pos]
            if c == '"':
                self.pos += 1
                return
            if c == "\\" and self.pos + 1 < len(self.s) and self.s[self.pos + 1] in '$`"\\\n':
                if self.s[self.pos + 1] != "\n":
                    word.text += self.s[self.pos + 1]
                self.pos += 2
            elif c == "$":
                self.read_dollar(word, in_double=True)
            elif c == "`":
                self.pos += 1
                word.unknown(self.backtick())
            else:
                word.text += c
                self.pos += 1

    def read_dollar(self, word, in_double):
        s, i = self.s, self.pos
        nxt = s[i + 1] if i + 1 < len(s) else ""
        if nxt == "'" and not in_double:
            self.pos = i + 2
            word.text += self.ansi_c()
            word.quoted = True
        elif s.startswith("$((", i):
            self.pos = i + 3
            self.read_balanced("(", ")", depth=2)
            word.unknown()
        elif nxt == "(":
            self.pos = i + 2
            word.unknown(self.sub_list(")"))
        elif nxt == "{":
            self.pos = i + 2
            self.read_balanced("{", "}", depth=1)
            word.unknown()
        elif nxt and (nxt.isalnum() or nxt in "_@*#?$!-"):
            j = i + 1
            if nxt.isalpha() or nxt == "_":
                while j < len(s) and (s[j].isalnum() or s[j] == "_"):
                    j += 1
            else:
                j += 1
            self.pos = j
            word.unknown()
        else:
            word.text += "$"
            self.pos = i + 1

    def ansi_c(self):
        out: list = []
        escapes = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b",
                   "f": "\f", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}
        while self.pos < len(self.s):
            c = self.s[self.pos]
            if c == "'":
                self.pos += 1
                return "".join(out)
            if c == "\\" and self.pos + 1 < len(self.s):
                e = self.s[self.pos + 1]
                if e in escapes:
                    out.append(escapes[e])
                    self.pos += 2
                elif e == "x":
                    j = self.pos + 2
                    digits = ""
                    while j < len(self.s) and len(digits) < 2 and self.s[j] in "0123456789abcdefABCDEF":
                        digits += self.s[j]
                        j += 1
                    out.append(chr(int(digits, 16)) if digits else "\\x")
                    self.pos = j
                elif e in "01234567":
                    j = self.pos + 1
                    digits = ""
                    while j < len(self.s) and len(digits) < 3 and self.s[j] in "01234567":
                        digits += self.s[j]
                        j += 1
                    out.append(chr(int(digits, 8)))
                    self.pos = j
                else:
                    out.append("\\" + e)
                    self.pos += 2
            else:
                out.append(c)
                self.pos += 1
        raise ParseError("unclosed $'")

    def sub_list(self, close):
        sub = Parser(self.s, self.depth + 1)
        sub.pos = self.pos
        body = sub.parse_list(end=close)
        if not self.s.startswith(close, sub.pos):
            raise ParseError("unclosed $(")
        self.pos = sub.pos + 1
        return body

    def backtick(self):
        end = self.pos
        text = []
        while end < len(self.s) and self.s[end] != "`":
            if self.s[end] == "\\" and end + 1 < len(self.s):
                text.append(self.s[end + 1])
                end += 2
                continue
            text.append(self.s[end])
            end += 1
        if end >= len(self.s):
            raise ParseError("unclosed `")
        self.pos = end + 1
        return Parser("".join(text), self.depth + 1).parse_list(end=None)

    def read_balanced(self, open_, close, depth):
        while self.pos < len(self.s):
            c = self.s[self.pos]
            self.pos += 1
            if c == open_:
                depth += 1
            elif c == close:
                depth -= 1
                if depth == 0:
                    return
        raise ParseError("unclosed %s" % open_)

    # -- blanks ------------------------------------------------------------------------------
    def skip_blanks(self):
        while self.pos < len(self.s) and self.s[self.pos] in " \t":
            self.pos += 1
        if self.s.startswith("\\\n", self.pos):
            self.pos += 2
            self.skip_blanks()

    def skip_newlines(self):
        while self.pos < len(self.s) and self.s[self.pos] in " \t\n":
            self.pos += 1

    def skip_comment(self):
        nl = self.s.find("\n", self.pos)
        self.pos = len(self.s) if nl < 0 else nl


def _reserved(text):
    simple = Simple()
    word = Word()
    word.text = text
    simple.words.append(word)
    return simple


def _braces_opened(node):
    """How many `{` open at the start of ``node`` (``{ a``, ``if x; then { b``) in the flat reading."""
    first = node.cmds[0] if isinstance(node, Pipeline) else node
    count = 0
    for w in first.words if isinstance(first, Simple) else ():
        if w.quoted or w.text not in RESERVED:
            break
        count += w.text == "{"
    return count


def _value_word(word):
    value = Word()
    value.text = word.text.split("=", 1)[1]
    value.dynamic = word.dynamic
    value.subs = word.subs
    return value
