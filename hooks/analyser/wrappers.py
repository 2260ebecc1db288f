"""The analyser's wrappers: commands that run the command after their options (``env``, ``timeout``,
``sudo``, ``xargs``...), looked through to the command they run."""
import os

from . import constructs
from .constructs import INVOLVES
from .shelltree import DYN, is_assignment, literal_word
from ..rules import Block

WRAPPERS = {"command", "builtin", "exec", "nohup", "nice", "time", "timeout", "stdbuf", "setsid", "sudo", "doas",
            "ionice", "chronic", "unbuffer", "env", "catchsegv", "strace", "ltrace", "caffeinate"}

TYPE_CHECKING = False  # not `typing`'s: `check` imports nothing it does not need
if TYPE_CHECKING:
    from typing import Any, Callable


class Wrappers:
    """``unwrap``: the words of the command a wrapper runs."""

    check_text: "Callable[..., Any]"  # the Analyser's
    env_rule: "Callable[..., Any]"
    start_inner: "Callable[..., Any]"

    def unwrap(self, words, state):
        for _ in range(16):
            if not words or DYN in words[0].text:
                return words
            name = os.path.basename(words[0].text)
            if name not in WRAPPERS and name != "xargs":
                inner = self.start_inner(name, words[1:], state)  # detaching.Detaching's
                if inner is None:
                    return words
                words = inner
                continue
            args = words[1:]
            if name == "xargs":
                rest = skip_options(args, {"-I", "-i", "-n", "-L", "-P", "-d", "-E", "-s", "-a", "--arg-file",
                                            "--delimiter", "--max-args", "--max-procs", "--replace"})
                if rest and INVOLVES.search(" ".join(w.text for w in rest)):
                    raise Block("unanalysable", "xargs feeds arguments we cannot see")
                if rest and DYN in rest[0].text:
                    constructs.computed(self, rest[:1], "xargs runs a command only known when it runs")
                return []
            if name == "env":
                rest = []
                i = 0
                while i < len(args):
                    t = args[i].text
                    if t in ("-u", "--unset", "-C", "--chdir"):
                        if t in ("-C", "--chdir") and i + 1 < len(args):
                            state.cwd = os.path.join(state.cwd, args[i + 1].text) if state.cwd else None
                        i += 2
                        continue
                    if t in ("-S", "--split-string") and i + 1 < len(args):
                        self.check_text(" ".join(a.text for a in args[i + 1:]), state, "env -S")
                        return []
                    if t.startswith("-") and t != "-":
                        i += 1
                        continue
                    if is_assignment(t):
                        key, _, value = t.partition("=")
                        self.env_rule(key, literal_word(value, args[i].dynamic), state, scoped=True)
                        i += 1
                        continue
                    rest = args[i:]
                    break
                words = rest
                continue
            if name in ("command", "builtin") and args and args[0].text in ("-v", "-V"):
                return []
            value_opts = {"exec": {"-a"}, "nice": {"-n", "--adjustment"},
                          "timeout": {"-s", "-k", "--signal", "--kill-after"}, "stdbuf": {"-i", "-o", "-e"},
                          "sudo": {"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"}, "doas": {"-u", "-C"},
                          "ionice": {"-c", "-n", "-p", "-P", "-u"}, "time": {"-f", "-o", "--format", "--output"},
                          "strace": {"-o", "-e", "-p", "-s"}, "ltrace": {"-o", "-e", "-p", "-s"}}.get(name, set())
            rest = skip_options(args, value_opts)
            if name == "timeout" and rest:
                rest = rest[1:]  # the duration
            words = rest
        return words



def skip_options(args, value_opts):
    i = 0
    while i < len(args):
        t = args[i].text
        if t == "--":
            return args[i + 1:]
        if t in value_opts:
            i += 2
            continue
        if t.startswith("-") and len(t) > 1:
            i += 1
            continue
        return args[i:]
    return []

