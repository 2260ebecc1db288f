"""Commands that start another command detached from the call (it may act after the call ended):
``daemonize``, ``start-stop-daemon --start``, ``systemd-run``, ``screen -dm``, ``flock``, and ``at``/``batch``
(whose code is read from stdin or ``-f FILE``). The command they start is judged as if run directly
(``setsid``, ``nohup``, ``timeout`` are plain wrappers: ``wrappers.WRAPPERS``). Files they are told to
write (``daemonize -o``, ``start-stop-daemon --output``) are judged as written by the command line."""
import os

from .shelltree import DYN, literal_word
from .wrappers import skip_options
from ..rules import Block

STARTERS = {"daemonize", "start-stop-daemon", "systemd-run", "screen", "flock"}
STDIN_CODE = {"at", "batch"}

_DAEMONIZE = {"-c", "-e", "-o", "-p", "-l", "-u", "-E"}
_SSD = {"-p", "--pidfile", "-x", "--exec", "-n", "--name", "-u", "--user", "-g", "--group", "-s", "--signal",
        "-R", "--retry", "-a", "--startas", "-N", "--nicelevel", "-P", "--procsched", "-I", "--iosched", "-k",
        "--umask", "-c", "--chuid", "-r", "--chroot", "-d", "--chdir", "-O", "--output", "--notify-timeout",
        "-m", "--make-pidfile", "-b", "--background", "-C", "--no-close", "-S", "--start", "-K", "--stop",
        "-o", "--oknodo", "-q", "--quiet", "-v", "--verbose", "-t", "--test", "-T", "--status"}
_SSD_FLAGS = {"-m", "--make-pidfile", "-b", "--background", "-C", "--no-close", "-S", "--start", "-K", "--stop",
              "-o", "--oknodo", "-q", "--quiet", "-v", "--verbose", "-t", "--test", "-T", "--status"}
_SYSTEMD_RUN = {"-u", "--unit", "-p", "--property", "--description", "--slice", "-E", "--setenv", "--uid", "--gid",
                "--nice", "-H", "--host", "-M", "--machine", "--on-active", "--on-boot", "--on-startup",
                "--on-unit-active", "--on-unit-inactive", "--on-calendar", "--timer-property", "--path-property",
                "--socket-property", "--working-directory", "--service-type", "--slice-inherit", "-C", "--capsule"}
_SCREEN = {"-S", "-c", "-e", "-h", "-Logfile", "-p", "-T", "-t", "-s"}
_FLOCK = {"-w", "--wait", "--timeout", "-E", "--conflict-exit-code"}


class Detaching:
    """``start_inner`` for ``wrappers.unwrap``: a part of the Analyser."""

    def start_inner(self, name, args, state):
        """The words of the command ``name`` starts (``[]``: none, or read here); None: not a starter."""
        return _inner(self, name, args, state) if name in STARTERS else None


def _inner(analyser, name, args, state):
    """The words of the command ``name`` starts (``[]``: none, or read here)."""
    if name == "daemonize":
        for i, a in enumerate(args[:-1]):
            if a.text in ("-o", "-e", "-p", "-l"):
                analyser.check_path(args[i + 1], state, "daemonize %s" % a.text)
            elif a.text == "-c":
                _chdir(state, args[i + 1].text)
        return skip_options(args, _DAEMONIZE)
    if name == "start-stop-daemon":
        return _start_stop_daemon(analyser, args, state)
    if name == "systemd-run":
        for a in args:
            if a.text.startswith("--working-directory="):
                _chdir(state, a.text.split("=", 1)[1])
        return skip_options(args, _SYSTEMD_RUN)
    if name == "screen":  # -dmS NAME: a cluster whose last letter takes a value
        return skip_options(args, _SCREEN | {a.text for a in args if a.text[:1] == "-" and a.text[-1:] in "Scehpt"})
    # flock [options] FILE|DIR (-c TEXT | COMMAND...)
    rest = skip_options(args, _FLOCK)[1:]
    if rest and rest[0].text in ("-c", "--command"):
        analyser.check_text(" ".join(w.text for w in rest[1:2]), state.copy(), "flock -c")
        return []
    return rest


def stdin_code(analyser, args, state, piped):
    """``at``/``batch``: the commands it reads (``-f FILE``, else stdin) run later, by sh, here."""
    texts = [a.text for a in args]
    if any(t in ("-l", "-r", "-d", "-c") for t in texts):
        return  # lists, removes or prints jobs
    for i, t in enumerate(texts[:-1]):
        if t == "-f":
            return analyser.run_file(args[i + 1:i + 2], state.copy(), "an at job")
    analyser.shell([], state, piped)


def _start_stop_daemon(analyser, args, state):
    program, i = None, 0
    texts = [a.text for a in args]
    if not any(t in ("-S", "--start") or t.startswith("--start") for t in texts):
        return []
    while i < len(args):
        t = texts[i]
        key, eq, value = t.partition("=")
        if t == "--":
            return ([program] if program is not None else []) + args[i + 1:]
        if t in _SSD_FLAGS or not t.startswith("-"):
            i += 1
            continue
        if not eq and i + 1 < len(args):
            value, i = texts[i + 1], i + 1
        if key in ("-x", "--exec", "-a", "--startas") and (program is None or key in ("-a", "--startas")):
            program = literal_word(value, DYN in value)
        elif key in ("-d", "--chdir"):
            _chdir(state, value)
        elif key in ("-O", "--output"):
            analyser.check_path(literal_word(value, DYN in value), state, "start-stop-daemon --output")
        elif key in ("-r", "--chroot"):
            raise Block("unanalysable", "start-stop-daemon --chroot (a command run in another root)")
        i += 1
    return [program] if program is not None else []


def _chdir(state, path):
    if DYN in path:
        state.cwd = None
    elif state.cwd is not None:
        state.cwd = os.path.normpath(os.path.join(state.cwd, os.path.expanduser(path)))
