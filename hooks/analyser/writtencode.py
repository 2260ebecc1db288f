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

from .. import lazyre
from .constructs import MADE, makes_text, names_git, written_unknown
from .programtext import MAX_PROGRAM, literal_output, read_program, whole_program
from .shelltree import DYN, RESERVED, Simple, is_assignment
from ..guardpaths import inside, real
from ..rules import Block
from ..saferead import read_regular

OUTPUT_REDIRS = (">", ">>", ">|", "&>", "&>>")
# Commands that name a file this command line wrote without changing what it holds.
READERS = {"sh", "bash", "dash", "zsh", "ksh", "source", ".", "python", "python3", "perl", "node", "nodejs",
           "chmod", "cat", "ls", "head", "tail", "wc", "grep", "test", "[", "stat", "file", "diff", "cmp", "less",
           "more", "nohup", "setsid", "timeout", "nice", "env", "exec", "command", "md5sum", "sha256sum", "echo"}
MAX_VARIANTS = 8  # texts kept per path (each is read where the file runs)
_SHEBANG = lazyre.compile(r"#!\s*(\S+)(?:[ \t]+(\S+))?")


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
        stdin = [MADE] if stdin is None and piped is not None and makes_text(piped) else stdin
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
    """The texts a literal ``echo``/``printf``/``cat`` writes to stdout (``printed.texts``); None when not
    known."""
    if not words or any(DYN in w.text for w in words):
        return None
    name, args = os.path.basename(words[0].text), [w.text for w in words[1:]]
    if name in ("echo", "printf"):
        from . import printed  # here: only echo and printf load it
        return printed.texts(name, args)
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


def redirected_input(analyser, cmd, state):
    """``read_program``'s answer for what ``< FILE`` feeds the command, or None."""
    for op, target in cmd.redirects:
        if op == "<" and DYN not in target.text:
            return stdin_program(analyser, state, target.text)
    return None


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
    """``constructs.written_unknown``."""
    return written_unknown(analyser, state, path)


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
    analyser.run_code(program if shebang else "sh", code, state, origin)


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
