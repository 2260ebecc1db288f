"""The analyser's shells and interpreters: ``sh -c``, a script given to a shell, ``source``, ``| sh``,
``python -c``/``perl -e``... and a program an interpreter reads from a file, a here-document or stdin."""

from .. import lazyre
from . import constructs, writtencode
from .constructs import INVOLVES, unversioned
from .programtext import MAX_PROGRAM, whole_program
from .shelltree import DYN
from .wrappers import skip_options
from .writetargets import GUARD_TEXT
from ..rules import Block

SHELLS = {"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox", "fish", "yash"}
INTERPRETERS = {"python": ("-c",), "perl": ("-e", "-E"), "ruby": ("-e",), "node": ("-e", "--eval", "-p", "--print"),
                "nodejs": ("-e", "--eval", "-p", "--print"), "php": ("-r",), "deno": ("eval",), "bun": ("-e", "--eval"),
                "osascript": ("-e",), "lua": ("-e",), "tclsh": ()}
INTERPRETER_VALUE_OPTS = {"python": {"-W", "-X", "-Q"}, "perl": {"-I", "-M", "-m", "-x"}, "node": {"-r", "--require"},
                          "ruby": {"-I", "-r"}, "php": {"-c", "-d", "-z"}}
RUNS_PROCESS = lazyre.compile(r"subprocess|os\.system|popen|spawn|exec|system\s*\(|`|child_process|Process|run\(")

TYPE_CHECKING = False  # not `typing`'s: `check` imports nothing it does not need
if TYPE_CHECKING:
    from typing import Any, Callable


class Interpreters:
    """Text a shell or an interpreter runs, read like the command line itself."""

    check_text: "Callable[..., Any]"  # the Analyser's
    agentguard: "Callable[..., Any]"
    mutator: "Callable[..., Any]"

    def shell(self, args, state, piped):
        i = 0
        while i < len(args):
            t = args[i].text
            if t.startswith("-") and not t.startswith("--") and "c" in t[1:]:
                if i + 1 >= len(args):
                    return
                script = args[i + 1]
                if DYN in script.text:
                    if INVOLVES.search(script.text):
                        raise Block("unanalysable", "sh -c with a variable")
                    return constructs.computed(self, [script], "sh -c of text only known when it runs")
                self.check_text(script.text, state, "sh -c")
                return
            if t in ("-o", "+o", "--rcfile", "--init-file"):
                i += 2
                continue
            if t.startswith(("-", "+")) and t not in ("-", "--"):
                i += 1
                continue
            if t == "--":
                i += 1
                continue
            self.run_file(args[i:i + 1], state, "script")
            return
        if state.stdin_text is not None:
            self.check_text(state.stdin_text, state, "| sh")
        elif state.piped:
            raise Block("unanalysable", "a shell reading commands from a pipe")

    def run_file(self, args, state, origin):
        if not args or state.cwd is None:
            return
        if DYN in args[0].text:
            if INVOLVES.search(args[0].text):
                raise Block("unanalysable", "%s named by a variable" % origin)
            return constructs.computed(self, args[:1], "%s only known when it runs" % origin)
        constructs.program_file(self, state, args[0].text, origin)
        for found in writtencode.programs(self, state, args[0].text):
            code = whole_program(found, origin)
            if code is not None:
                self.check_text(code, state, origin)

    def interpreter(self, base, args, state):
        flags = INTERPRETERS[base]
        if base == "perl" and any(a.text.startswith("-") and "i" in a.text[1:] and not a.text.startswith("--")
                                  for a in args):
            self.mutator("perl", args, state)
        code = None
        for i, a in enumerate(args):
            t = a.text
            if t in flags and i + 1 < len(args):
                code = args[i + 1]
                break
            if t.startswith("-") and not t.startswith("--") and any(f[1:] == t[-1] for f in flags if len(f) == 2) \
                    and i + 1 < len(args) and t[1:].isalpha():
                code = args[i + 1]  # clusters such as perl -ne, python -Sc
                break
        if base == "python" and any(a.text == "-m" for a in args):
            idx = [a.text for a in args].index("-m")
            if idx + 1 < len(args) and args[idx + 1].text.startswith("agentguard"):
                self.agentguard([w.text for w in args[idx + 2:]], state)
            return
        if code is None:
            self.program_of(base, args, state)
            return
        self.inline_code(code.text, state)

    def program_of(self, base, args, state):
        """An interpreter without ``-c``: its program comes from a file, a here-document or stdin,
        and is read like ``-c`` (``python3 - <<'EOF'``, ``node < x.js``, ``perl script.pl``)."""
        script = next((a for a in skip_options(args, INTERPRETER_VALUE_OPTS.get(base, set())) if a.text != "--"),
                      None)
        if script is not None and script.text != "-":
            if DYN in script.text:
                if INVOLVES.search(script.text):
                    raise Block("unanalysable", "a program named by a variable")
                return constructs.computed(self, [script], "a program only known when it runs")
            constructs.program_file(self, state, script.text, "a %s program" % base)
            found = writtencode.programs(self, state, script.text)
        elif state.stdin_text is not None:
            found = [(state.stdin_text, len(state.stdin_text) <= MAX_PROGRAM)]
        elif state.piped:
            raise Block("unanalysable", "%s reading its program from a pipe" % base)
        else:
            return
        for each in found:
            code = whole_program(each, "a %s program" % base)
            if code is not None:
                self.inline_code(code, state)

    def run_code(self, program, code, state, origin):
        """``code`` run by ``program`` (a ``#!`` line's): a shell's, an interpreter's, or another's (refused
        when it names git or the guard: it is not read)."""
        base = unversioned(program)
        if program in SHELLS or base in SHELLS:
            self.check_text(code, state, origin)
        elif base in INTERPRETERS:
            self.inline_code(code, state)
        elif constructs.names_git(code):
            raise Block("unanalysable", "%s, run by %s" % (origin, program))

    def inline_code(self, code, state):
        from . import codewrites  # here: only inline code loads it
        if DYN in code and INVOLVES.search(code):
            raise Block("unanalysable", "inline code built from variables")
        if GUARD_TEXT.search(code) and codewrites.may_write(code):
            raise Block("guard-files", "inline code names the guard's files and can change files")
        if not lazyre.search(r"\bgit\b", code) and not lazyre.search(r"\bgit\b", codewrites.unescaped(code)):
            return
        found = False
        for literal in _string_literals(code):
            if lazyre.match(r"\s*git\s", literal):
                found = True
                self.check_text(literal, state, "inline code")
        for seq in lazyre.findall(r"[\[(]\s*(['\"]git['\"]\s*(?:,\s*['\"][^'\"]*['\"]\s*)*)[\])]", code):
            found = True
            parts = lazyre.findall(r"['\"]([^'\"]*)['\"]", seq)
            self.check_text(" ".join(_shell_quote(p) for p in parts), state, "inline code")
        if not found and RUNS_PROCESS.search(code):
            raise Block("unanalysable", "inline code that runs git")


def _string_literals(code):
    out = []
    for m in lazyre.finditer(r'"((?:[^"\\]|\\.)*)"|\'((?:[^\'\\]|\\.)*)\'', code):
        out.append(m.group(1) if m.group(1) is not None else m.group(2))
    return out


def _shell_quote(text):
    return "'" + text.replace("'", "'\\''") + "'"

