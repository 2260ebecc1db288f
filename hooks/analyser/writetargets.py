"""The analyser's write targets: the paths a command writes, deletes or moves (a redirection,
``rm``, ``cp``, ``sed -i``, ``find -delete``, a file tool's write), judged against the guard's files."""
import os

from .. import lazyre
from .constructs import INVOLVES
from .shelltree import DYN, Word, literal_word
from ..guardpaths import inside, real
from ..harness import registry
from ..rules import Block

MUTATORS = {"rm", "rmdir", "unlink", "shred", "mv", "cp", "ln", "install", "rsync", "chmod", "chown", "chgrp",
            "truncate", "tee", "dd", "sed", "perl", "touch", "find", "patch", "vim", "vi", "nano", "ed", "ex"}
WRITE_REDIRS = (">", ">>", ">|", "&>", "&>>", "<>")
GUARD_TEXT = lazyre.compile(lambda: "|".join([r"\.git[/\\](hooks|agentguard|refs|packed-refs|config)", "hookspath",
                                          r"\.agentguard\.toml"] + registry.code_text()), lazyre.I)

TYPE_CHECKING = False  # not `typing`'s: `check` imports nothing it does not need
if TYPE_CHECKING:
    from typing import Any, Callable


class WriteTargets:
    """Whether a path a command writes is one of the guard's files."""

    repo_at: "Callable[..., Any]"  # the Analyser's
    user_configs: "Callable[..., Any]"

    def mutator(self, name, args, state):
        texts = [a.text for a in args]
        if name == "find":
            if not any(t in ("-delete", "-exec", "-execdir", "-ok") for t in texts):
                return
            if self.find_deletes_only_unguarded(args, state):
                return
            targets = [a for a in args if not a.text.startswith(("-", "(", ")", "!"))][:1]
        elif name == "dd":
            targets = [literal_word(a.text[3:], a.dynamic) for a in args if a.text.startswith("of=")]
        elif name == "sed":
            if not any(t.startswith("-i") or t.startswith("--in-place") or (t.startswith("-") and not t.startswith("--")
                                                                              and "i" in t[1:]) for t in texts):
                return
            pos = [a for a in args if not a.text.startswith("-")]
            has_script_opt = any(t in ("-e", "-f", "--expression", "--file") for t in texts)
            targets = pos if has_script_opt else pos[1:]
        elif name == "cp" or name == "install" or name == "rsync":
            pos = [a for a in args if not a.text.startswith("-")]
            t_opt = [args[i + 1] for i, a in enumerate(args[:-1]) if a.text in ("-t", "--target-directory")]
            targets = t_opt or pos[-1:]
        elif name == "ln":
            pos = [a for a in args if not a.text.startswith("-")]
            targets = pos[-1:] if len(pos) > 1 else pos
        elif name in ("chmod", "chown", "chgrp"):
            pos = [a for a in args if not a.text.startswith("-") or lazyre.match(r"-[rwxXst]+$", a.text)]
            targets = pos[1:]
        elif name == "touch":
            return
        elif name in ("vim", "vi", "nano", "ed", "ex", "patch"):
            targets = [a for a in args if not a.text.startswith("-")]
        else:
            targets = [a for a in args if not a.text.startswith("-") or a.text == "-"]
            if name == "perl":
                targets = [a for a in targets[1:]]
        for target in targets:
            self.check_path(target, state, name)

    def find_deletes_only_unguarded(self, args, state):
        """``find DIR -name PAT -delete`` that matches none of the guard's files (a compiled cache of the
        runtime is no loss: the after-check puts it back), judged on the files there now."""
        from . import findexpr  # here: only find loads it
        texts = [a.text for a in args]
        found = findexpr.name_patterns(texts)
        if found is None or state.cwd is None or any(DYN in t for t in texts):
            return False
        starts, patterns = found
        for start in starts:
            path = real(os.path.join(state.cwd, os.path.expanduser(start)))
            repo = self.repo_at(path) or self.repo_at(state.cwd)
            if repo is None:
                return False  # judged by the path alone, as every other deletion
            guarded = repo.guarded
            roots = list(guarded.paths) + [os.path.join(d, n) for d, pat in guarded.patterns if os.path.isdir(d)
                                           for n in sorted(os.listdir(d)) if findexpr.fnmatchcase(n, pat)]
            roots += sorted(self.user_configs())  # the git config files that can switch hooks off
            hit = findexpr.guarded_match(roots, path, patterns)
            if hit:
                rel = os.path.relpath(hit, repo.top)
                raise Block("guard-files", rel if not rel.startswith("..") else os.path.basename(hit))
            state.written.add(path)
        return True

    def check_path(self, word, state, what):
        text = word.text if isinstance(word, Word) else word
        if DYN in text:
            known = self.evaluate(word, state) if isinstance(word, Word) else None
            if known is None:
                if INVOLVES.search(text.replace(DYN, "")) or GUARD_TEXT.search(text.replace(DYN, "")):
                    raise Block("unanalysable", "%s of a path built from variables" % what)
                if self.could_be_guarded(text, state):
                    raise Block("unanalysable", "%s of a path only known when it runs, which could be the "
                                "guard's files (spell the path out)" % what)
                return
            text = known
        if getattr(word, "glob", False) or any(c in text for c in "*?["):
            cut = min(text.find(c) for c in "*?[" if c in text)
            text = os.path.dirname(text[:cut]) or "."
        if state.cwd is None:
            if GUARD_TEXT.search(text):
                raise Block("unanalysable", "%s in an unknown directory" % what)
            return
        path = os.path.join(state.cwd, os.path.expanduser(text))
        path = real(path) if os.sep + ".." in path else os.path.normpath(path)  # `link/..`: where the OS goes
        target = real(path)
        state.written.add(target)
        if target in self.user_configs():
            raise Block("guard-files", "the git config file %s (it can switch hooks off)" % path)
        for repo in {self.repo_at(state.cwd), self.repo_at(os.path.dirname(path))}:
            if repo is None:
                continue
            hit = repo.guarded.hit(path)
            if hit:
                from .. import grant  # only where a guarded path is hit
            if hit and inside(target, real(grant.folder(repo.ag_home))):
                raise Block("break-glass", "writing a break-glass grant (%s)" % os.path.relpath(target, repo.top))
            if hit:
                rel = os.path.relpath(hit, repo.top)
                rule = "ref-files" if os.path.basename(hit) in ("refs", "packed-refs") else "guard-files"
                raise Block(rule, rel if not rel.startswith("..") else os.path.basename(hit))

    def evaluate(self, word, state):
        """``word``'s text with each ``$(git rev-parse ...)`` answered by git (it only reads) and each
        ``$(mktemp ...)`` a new temporary path; None when any part stays unknown."""
        from .shelltree import iter_simple
        if word.text.count(DYN) != len(word.subs) or state.cwd is None:
            return None
        text = word.text
        for sub in word.subs:
            cmds = list(iter_simple(sub))
            argv = [w.text for w in cmds[0].words] if len(cmds) == 1 else []
            if not argv or any(DYN in a for a in argv):
                return None
            if os.path.basename(argv[0]) == "mktemp":
                value = os.path.join(os.environ.get("TMPDIR") or "/tmp", "tmp.agentguard")
            elif os.path.basename(argv[0]) == "git" and argv[1:2] == ["rev-parse"]:
                from .. import gitio
                try:
                    rc, out = gitio.run(argv[1:], cwd=state.cwd)
                except gitio.GitError:
                    return None
                lines = out.decode("utf-8", "surrogateescape").splitlines()
                if rc != 0 or len(lines) != 1:
                    return None
                value = os.path.join(state.cwd, lines[0])
            else:
                return None
            text = text.replace(DYN, value, 1)
        return text

    def could_be_guarded(self, text, state):
        """Whether a path with unknown parts (``$X``, ``$(...)``) could name one of the guard's files:
        nothing known follows the last unknown part, or what follows ends a guarded path, a directory
        above one, or an entry in one (``"$D/pre-push"``, ``"$D/.git"``); unless what precedes the first
        unknown part starts no such path. (A variable holding ``..`` could climb out of that start: a
        limit SECURITY.md states.)"""
        repo = self.repo_at(state.cwd)
        guarded = list(repo.guarded.paths) if repo is not None else []
        guarded += self.user_configs()
        head, tail = text.split(DYN, 1)[0], text.rsplit(DYN, 1)[1].rstrip("/")
        if head and state.cwd is not None:
            head = os.path.join(state.cwd, os.path.expanduser(head))
            head = real(head) + ("/" if head.endswith("/") else "")
        for g in guarded:
            candidates = [g] + _entries(g)
            up = g
            while os.path.dirname(up) != up:
                up = os.path.dirname(up)
                candidates.append(up)
            if any(c.startswith(head) and (c.endswith(tail) or not tail.strip("/")) for c in candidates):
                return True
        return False


def _entries(path):
    try:
        return [os.path.join(path, name) for name in os.listdir(path)] if os.path.isdir(path) else []
    except OSError:
        return []

