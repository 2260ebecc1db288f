"""Code a command line writes to a file and then runs: ``cat > x.sh <<'EOF' ... EOF``, ``printf '...' >
x.py``, ``echo ... >> x.pl``, ``tee x.sh <<EOF``, followed in the same command line by ``sh x.sh``,
``. x.sh``, ``python3 x.py``, ``perl x.pl``, ``node x.js`` or ``./x.sh``. What each write puts in the file
is kept, per path, for the rest of the command line (every way it may read: a write on one side of
``&&``/``||`` may not happen, so each text written there is read), and the file, where it runs, is read as
the code of whatever runs it, as ``sh -c``/``python3 -c`` would be. A file this command line writes
with text it cannot know (``curl ... > x.sh``, ``cp``, ``base64 -d > x.sh``) is judged as code the
analyser cannot read (``constructs.program_file``). A script run by its path (``./x.sh``) that this
command line did not write is read from disk when it is a file of the work tree (at most
``MAX_PROGRAM`` bytes; a longer one, ``./configure``, is not read)."""
import os
import re

from .constructs import makes_text, names_git, read_regular
from .programtext import MAX_PROGRAM, literal_output, read_program, whole_program
from .shelltree import DYN, RESERVED, Simple, is_assignment
from ..guardpaths import inside, real
from ..rules import Block

OUTPUT_REDIRS = (">", ">>", ">|", "&>", "&>>")
# Commands that name a file this command line wrote without changing what it holds.
READERS = {"sh", "bash", "dash", "zsh", "ksh", "source", ".", "python", "python3", "perl", "node", "nodejs",
           "chmod", "cat", "ls", "head", "tail", "wc", "grep", "test", "[", "stat", "file", "diff", "cmp", "less",
           "more", "nohup", "setsid", "timeout", "nice", "env", "exec", "command", "md5sum", "sha256sum", "echo"}
MAX_VARIANTS = 8  # texts kept per path (each is read where the file runs)
MADE = ("made",)  # a text made from other text when it runs (`base64 -d > x.sh`): never run unread
_ESCAPE = re.compile(r"\\(0[0-7]{0,3}|[1-7][0-7]{0,2}|x[0-9A-Fa-f]{1,2}|.)", re.S)
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v", "e": "\x1b",
                   "\\": "\\"}
_SHEBANG = re.compile(r"#!\s*(\S+)(?:[ \t]+(\S+))?")


def record(analyser, cmd, state, piped):
    """What ``cmd`` (its redirections judged already) writes to files, kept for the rest of the line."""
    if state.cwd is None:
        return
    files = analyser.defined.files
    words = _command_words(cmd)
    name = os.path.basename(words[0].text) if words else ""
    out = None
    for op, target in cmd.redirects:
        if op not in OUTPUT_REDIRS or DYN in target.text or target.text in ("-", "/dev/null") or \
                target.text.isdigit():
            continue
        out = output(cmd, words, state, piped) if out is None else out
        made = [MADE] if out is None and _makes(cmd, name) else out
        _written(files, _path(state, target.text), made, append=op.endswith(">>"))
    if name == "tee" and not any(DYN in w.text for w in words[1:]):
        stdin = [cmd.heredocs[-1]] if cmd.heredocs else output(piped, _command_words(piped), state, None) \
            if isinstance(piped, Simple) else None
        append = any(w.text in ("-a", "--append") for w in words[1:])
        for w in words[1:]:
            if not w.text.startswith("-"):
                _written(files, _path(state, w.text), stdin, append)
    elif files and name not in READERS:  # `cp`, `sed -i`, `curl -o`...: what it leaves there is not known
        for w in words[1:]:
            path = _path(state, w.text.split("=", 1)[-1]) if DYN not in w.text else None
            if path in files:
                _written(files, path, None, append=False)


def output(node, words, state, piped):
    """The texts a literal ``echo``/``printf``/``cat`` writes to stdout (each way the shell may read it:
    ``echo`` decodes backslashes in ``sh``, not in ``bash``); None when not known."""
    if not words or any(DYN in w.text for w in words):
        return None
    name, args = os.path.basename(words[0].text), [w.text for w in words[1:]]
    if name == "echo":
        newline = "\n"
        while args and re.fullmatch(r"-[neE]+", args[0]):
            newline = "" if "n" in args[0] else newline
            args = args[1:]
        text = " ".join(args)
        return sorted({text + newline, _decode(text)[0] + newline})
    if name == "printf" and args:
        return [_printf(args[0], args[1:])]
    if name == "cat" and isinstance(node, Simple):
        if node.heredocs:
            return [node.heredocs[-1]]
        if not args and isinstance(piped, Simple):
            return output(piped, _command_words(piped), state, None)
        made = literal_output(node, state) if len(args) == 1 else None
        return None if made is None else [made]
    return None


def programs(analyser, state, name):
    """``read_program``'s answers for the file ``name`` as it is when it runs: each text this command line
    wrote there, else what is on disk."""
    path = _path(state, name)
    texts = analyser.defined.files.get(path)
    if texts is None:
        found = read_program(state.cwd, name) if state.cwd is not None else None
        return [found] if found is not None else []
    return [(t[:MAX_PROGRAM], len(t) <= MAX_PROGRAM) for t in texts if isinstance(t, str)]


def stdin_program(analyser, state, name):
    """``read_program``'s answer for ``< name``: every text this command line wrote there, one after the other
    (each is read); refused as ``program_file`` refuses when that text is not known."""
    if state.cwd is None:
        return None
    if unknown(analyser, state, _path(state, name)) and names_git(analyser.defined.text):
        raise Block("unanalysable", "input this command line writes before it reads it")
    found = programs(analyser, state, name)
    return None if not found else ("\n".join(t for t, _ in found), all(whole for _, whole in found))


def unknown(analyser, state, path):
    """Whether this command line writes ``path`` with text it cannot know; a Block when that text is made
    from other text as it runs (``base64 -d > x.sh``, as ``base64 -d | sh`` is)."""
    path = real(path)
    texts = analyser.defined.files.get(path)
    if texts is not None and MADE in texts:
        raise Block("unanalysable", "a program this command line makes from text before it runs it")
    return None in texts if texts is not None else path in state.written


def direct(analyser, words, state):
    """A program run by its path (``./x.sh``, ``bin/x``): the text this command line wrote there, or
    the work tree's file, read as the code of the interpreter its ``#!`` line names (sh without one)."""
    head = words[0].text
    if "/" not in head or DYN in head or state.cwd is None:
        return
    path = _path(state, head)
    texts = analyser.defined.files.get(path)
    if texts is None and path not in state.written:
        found = read_program(state.cwd, head)  # None (no file: the common case) before any git is asked
        repo = analyser.repo_at(state.cwd) if found is not None and found[1] else None
        texts = [found[0]] if repo is not None and inside(path, real(repo.top)) else []
    elif unknown(analyser, state, path) and names_git(analyser.defined.text):
        raise Block("unanalysable", "a program this command line writes, with text only known when it runs, "
                                    "in a command line that involves git")
    for text in texts or []:
        if isinstance(text, str):
            run(analyser, text, state.copy(), "the program %s" % head)


def run(analyser, text, state, origin):
    """``text`` run as a program: by the interpreter of its ``#!`` line, sh without one."""
    if "\0" in text[:4096]:
        return  # a binary
    code = whole_program((text[:MAX_PROGRAM], len(text) <= MAX_PROGRAM), origin)
    if code is None:
        return
    shebang = _SHEBANG.match(code)
    program = ""
    if shebang:
        program = os.path.basename(shebang.group(1))
        if program == "env" and shebang.group(2):
            program = os.path.basename(shebang.group(2) if shebang.group(2) != "-S" else
                                       (code.split("\n", 1)[0].split() + [""])[3])
    base = re.sub(r"[0-9.]+$", "", program)
    from .interpreters import INTERPRETERS, SHELLS
    if not shebang or program in SHELLS or base in SHELLS:
        analyser.check_text(code, state, origin)
    elif base in INTERPRETERS:
        analyser.inline_code(code, state)
    elif names_git(code):
        raise Block("unanalysable", "%s, run by %s" % (origin, program))


def _makes(cmd, name):
    """Whether ``cmd`` prints text it makes from other text (``base64 -d``, ``sed``, ``printf "$(... | xxd -r)"``);
    not a plain ``echo``/``printf`` of a variable (``echo "PATH=$PATH" > env.sh``: code only known when it runs,
    judged as ``eval "$X"`` is)."""
    if name in ("echo", "printf", "cat"):
        return any(makes_text(sub) for w in cmd.words for sub in w.subs)
    return makes_text(cmd)


def _written(files, path, texts, append):
    texts, old = texts or [None], files.get(path)
    if append:
        if old is None:
            data = read_regular(path, MAX_PROGRAM + 1)
            old = [data.decode("utf-8", "replace") if data is not None else ""]
        new = [MADE if MADE in (o, t) else None if None in (o, t) else o + t for o in old for t in texts]
    else:
        new = (old or []) + texts
    unique = list(dict.fromkeys(new))
    files[path] = unique if len(unique) <= MAX_VARIANTS else [None]


def _path(state, text):
    return real(os.path.join(state.cwd, os.path.expanduser(text)))


def _command_words(cmd):
    if not isinstance(cmd, Simple):
        return []
    words = list(cmd.words)
    while words and not words[0].quoted and (words[0].text in RESERVED or is_assignment(words[0].text)):
        words = words[1:]
    return words


def _decode(text, printf=False):
    """(``text`` with its backslash escapes decoded, whether ``\\c`` ended it)."""
    out, pos = [], 0
    for match in _ESCAPE.finditer(text):
        out.append(text[pos:match.start()])
        pos = match.end()
        e = match.group(1)
        if e == "c":
            return "".join(out), True
        if e[0] in "01234567" and (printf or e[0] == "0"):
            out.append(chr(int(e[1:] if e[0] == "0" and not printf else e, 8) or 0))
        elif e[0] == "x" and len(e) > 1:
            out.append(chr(int(e[1:], 16)))
        else:
            out.append(_SIMPLE_ESCAPES.get(e, "\\" + e))
    out.append(text[pos:])
    return "".join(out), False


def _printf(fmt, args):
    """What ``printf FMT ARGS...`` prints: the format reused while arguments remain."""
    out = []
    while True:
        used = 0
        text, pos = [], 0
        for match in re.finditer(r"%([-+ #0]*[0-9*]*(?:\.[0-9*]*)?)([a-zA-Z%])", fmt):
            text.append(_decode(fmt[pos:match.start()], printf=True)[0])
            pos = match.end()
            conv = match.group(2)
            if conv == "%":
                text.append("%")
                continue
            value = args[used] if used < len(args) else ""
            used += 1
            text.append(_decode(value)[0] if conv == "b" else value)
        text.append(_decode(fmt[pos:], printf=True)[0])
        out.append("".join(text))
        args = args[used:]
        if not used or not args:
            return "".join(out)
