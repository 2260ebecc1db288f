"""The command analyser: would this shell command touch protected branches, skip or switch off
git's hooks, or change the guard's own files? One analyser for every harness adapter.

It walks the parsed command in execution order, keeping what earlier parts change (``cd``,
branch switches, aliases defined with ``git config``), looks through wrappers (``env``,
``timeout``, ``xargs``...), into strings that get executed (``sh -c``, ``eval``, ``| sh``,
``python -c``...), and applies the git rules. What it cannot read and that involves git or the
guard is blocked.
"""
import os
import re

from . import constructs, findexpr, gitrules
from .constructs import INVOLVES
from .gitrules.commands import READ_ONLY_GIT
from .repoview import RepoView, user_config_files
from .shellparse import (DYN, RESERVED, FuncDef, ParseError, Pipeline, Seq, Simple, Subshell, Word, is_assignment,
                         literal_word, parse, text_of)
from ..bypass import env_skips_hooks
from ..guardpaths import bytecode_cache, inside, real
from ..rules import Block

SKIP_WHOLE = {"for", "select", "case", "esac"}
SHELLS = {"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox", "fish", "yash"}
INTERPRETERS = {"python": ("-c",), "perl": ("-e", "-E"), "ruby": ("-e",), "node": ("-e", "--eval", "-p", "--print"),
                "nodejs": ("-e", "--eval", "-p", "--print"), "php": ("-r",), "deno": ("eval",), "bun": ("-e", "--eval"),
                "osascript": ("-e",), "lua": ("-e",), "tclsh": ()}
WRAPPERS = {"command", "builtin", "exec", "nohup", "nice", "time", "timeout", "stdbuf", "setsid", "sudo", "doas",
            "ionice", "chronic", "unbuffer", "env", "catchsegv", "strace", "ltrace", "caffeinate"}
MUTATORS = {"rm", "rmdir", "unlink", "shred", "mv", "cp", "ln", "install", "rsync", "chmod", "chown", "chgrp",
            "truncate", "tee", "dd", "sed", "perl", "touch", "find", "patch", "vim", "vi", "nano", "ed", "ex"}
WRITE_REDIRS = (">", ">>", ">|", "&>", "&>>", "<>")
MAX_TEXT_DEPTH = 12
MAX_PROGRAM = 64 * 1024
# The environment that decides which config files git reads (and so its hooks directory and aliases).
CONFIG_ENV = {"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS",
              "GIT_CONFIG_COUNT", "HOME", "XDG_CONFIG_HOME"}
INTERPRETER_VALUE_OPTS = {"python": {"-W", "-X", "-Q"}, "perl": {"-I", "-M", "-m", "-x"}, "node": {"-r", "--require"},
                          "ruby": {"-I", "-r"}, "php": {"-c", "-d", "-z"}}


class State:
    """What the command line has changed so far, in the order it runs."""

    def __init__(self, cwd, analyser):
        self.cwd = cwd  # None: unknown (cd to a variable)
        self.branches = {}  # repo top -> branch name, None (detached) or UNKNOWN
        self.aliases = {}
        self.env = {}  # variables this command line sets that change which config git reads
        self.written = set()  # paths this command line writes, deletes or moves (in order so far)
        self.remotes_touched = False  # it runs `git remote ...` or writes remote.*/url.* config
        self.added_remotes = {}  # (repo top, name) -> URL of `git remote add` earlier in this command line
        self.stdin_text = None
        self.piped = False  # stdin comes from a command whose output we cannot know, and it involves git
        self.analyser = analyser
        self.depth = 0
        self.git_env = {}  # GIT_DIR / GIT_WORK_TREE set for the rest of the command line (None: unknown)
        self.scoped = {}  # ... set for the current simple command only (``GIT_DIR=x git ...``, ``env``)
        self.dirs = []  # pushd's directory stack

    def copy(self):
        other = State(self.cwd, self.analyser)
        other.branches = dict(self.branches)
        other.aliases = dict(self.aliases)
        other.env = dict(self.env)
        other.written = self.written
        other.remotes_touched = self.remotes_touched
        other.added_remotes = dict(self.added_remotes)
        other.depth = self.depth
        other.git_env = dict(self.git_env, **self.scoped)  # a child process inherits what was exported
        other.dirs = list(self.dirs)
        return other

    def restore(self, other):
        self.cwd, self.branches, self.aliases = other.cwd, dict(other.branches), dict(other.aliases)
        self.git_env, self.dirs = dict(other.git_env), list(other.dirs)

    def git_location(self):
        """(set, value) of GIT_DIR as the next git command sees it (value None: a variable)."""
        env = dict(self.git_env, **self.scoped)
        return ("GIT_DIR" in env, env.get("GIT_DIR"))

    def branch_of(self, repo):
        if repo.top not in self.branches:
            self.branches[repo.top] = repo.head_branch()
        return self.branches[repo.top]

    def set_branch(self, repo, name):
        self.branches[repo.top] = name


_UNSET = object()


class Analyser:
    """``launcher_home``: the agentguard installation whose decision command runs this analysis
    (``<git common dir>/agentguard``), when it is a runtime copy; its policy judges a repository
    with no installation of its own when the command does not start in a guarded one."""

    def __init__(self, launcher_home=None):
        self._views = {}
        self._made = {}  # path -> view of a repository the command line creates (worktree, clone, init)
        self._user_configs = None
        self._base_config = None
        self._guard = _UNSET
        self.launcher_home = launcher_home
        self.start = None  # the directory the command starts in
        self.defined = constructs.Defined()

    # -- entry points ------------------------------------------------------------------------
    def check_command(self, command, cwd):
        """Raise Block, or return None when the command may run."""
        self.start = os.path.realpath(cwd)
        self.defined.text = command
        state = State(self.start, self)
        self.check_text(command, state, "command")
        constructs.at_exit(self, state)

    def check_write(self, path, cwd):
        self.start = os.path.realpath(cwd)
        state = State(self.start, self)
        w = Word()
        w.text = path
        self.check_path(w, state, "file write")

    # -- repositories ------------------------------------------------------------------------
    def user_configs(self):
        """``user_config_files()`` of this process's environment, resolved once per analysis."""
        if self._user_configs is None:
            self._user_configs = user_config_files()
        return self._user_configs

    def base_config(self):
        """{key: [values]} of the config git reads outside any repository (system and user)."""
        if self._base_config is None:
            from .. import gitio
            from .repoview import parse_config_list
            env = dict(os.environ, GIT_DIR=os.path.join(os.sep, "nonexistent", "agentguard-no-repository"))
            _, out = gitio.run(["config", "-z", "--list"], cwd=os.sep, env=env)
            self._base_config = parse_config_list(out)
        return self._base_config

    def guard_policy(self):
        """The policy of the guarded repository this check belongs to: the one the command starts
        in, or, when that has no installation (a harness whose shell moved elsewhere), the one whose
        decision command runs; None when neither has a policy snapshot."""
        if self._guard is _UNSET:
            from ..policy import PolicyError, load_snapshot
            self._guard = None
            start = self.repo_at(self.start) if self.start else None
            homes = [start.ag_home] if start is not None else []
            for home in homes + ([self.launcher_home] if self.launcher_home else []):
                try:
                    self._guard = load_snapshot(home)
                    break
                except PolicyError:
                    continue
        return self._guard

    def add_repository(self, path, view):
        """A repository the command line creates at ``path`` (``git worktree add``, ``git clone``,
        ``git init``): commands that later run there are judged on ``view``."""
        self._made[real(path)] = view

    def repo_at(self, cwd, git_dir=None):
        """The repository git works on in ``cwd`` (with ``git_dir``: ``--git-dir``/``GIT_DIR``)."""
        if cwd is None:
            return None
        cwd = os.path.realpath(cwd)
        if git_dir is not None:
            return self._repo_of_git_dir(real(os.path.join(cwd, git_dir)))
        for path, view in self._made.items():
            if cwd == path or cwd.startswith(path + os.sep):
                return view
        if cwd not in self._views:
            parts = cwd.split(os.sep)
            if ".git" in parts:  # inside a git dir: the repository is the one around it
                cwd = os.sep.join(parts[:len(parts) - parts[::-1].index(".git") - 1]) or os.sep
            probe = cwd
            while probe and not os.path.isdir(probe):
                probe = os.path.dirname(probe)
            self._views[cwd] = self._adopt(RepoView.at(probe) if probe else None)
        return self._views[cwd]

    def _repo_of_git_dir(self, path):
        for view in self._made.values():
            if isinstance(view, gitrules.context.NewRepository) and path == view.git_dir:
                return view
        key = ("git-dir", path)
        if key not in self._views:
            probe = os.path.dirname(path) if os.path.basename(path) == ".git" else path
            view = self._adopt(RepoView.at(probe)) if os.path.isdir(probe) else None
            self._views[key] = view if view is not None and view.git_dir == path else None
        return self._views[key]

    def _adopt(self, view):
        if view is not None:
            view.guard_policy = self.guard_policy
        return view

    def context_at(self, state, cwd, git_dir=None):
        sub = state.copy()
        sub.branches = state.branches  # branch switches made with -C still count
        sub.aliases = state.aliases
        sub.cwd = cwd
        sub.scoped = state.scoped
        return gitrules.GitContext(self, sub, self.repo_at(cwd, git_dir))

    # -- text and trees ----------------------------------------------------------------------
    def check_text(self, text, state, origin):
        if state.depth > MAX_TEXT_DEPTH:
            raise Block("unanalysable", "strings executed too many levels deep")
        try:
            tree = parse(text)
        except ParseError as exc:
            if constructs.could_involve(text):
                raise Block("unanalysable", "%s: %s" % (origin, exc))
            return
        inner = state.copy()
        inner.depth = state.depth + 1
        inner.branches = state.branches
        inner.aliases = state.aliases
        self.walk(tree, inner)
        state.cwd = inner.cwd

    def walk(self, node, state, piped=None):
        if isinstance(node, Seq):
            previous = state.copy()
            for op, item in node.items:
                if op == "||":
                    state.restore(previous)  # runs only if the left side failed
                previous = state.copy()
                self.walk(item, state)
        elif isinstance(node, Pipeline):
            producer = None
            for cmd in node.cmds:
                self.walk(cmd, state.copy(), piped=producer)
                producer = cmd
        elif isinstance(node, Subshell):
            self.walk(node.body, state.copy())
        elif isinstance(node, Simple):
            self.simple(node, state, piped)
        elif isinstance(node, FuncDef):
            constructs.define(self, node, state)

    # -- one simple command -------------------------------------------------------------------
    def simple(self, cmd, state, piped):
        state.scoped = {}
        for w in cmd.words + [v for _, v in cmd.assigns] + [t for _, t in cmd.redirects]:
            for sub in w.subs:
                self.walk(sub, state.copy())
        for name, value in cmd.assigns:
            self.env_rule(name, value, state, scoped=bool(cmd.words))
        for op, target in cmd.redirects:
            if op in WRITE_REDIRS and target.text not in ("-",) and not target.text.isdigit():
                self.check_path(target, state, "redirection")
        words = list(cmd.words)
        if words and words[0].text in SKIP_WHOLE and not words[0].quoted:
            return
        while words and words[0].text in RESERVED and not words[0].quoted:
            if words.pop(0).text == "time":
                words = constructs.after_time(words)
            while words and not words[0].quoted and is_assignment(words[0].text):  # `{ x=$(...); }`
                name, _, value = words.pop(0).text.partition("=")
                self.env_rule(name, value, state)
        words = self.unwrap(words, state)
        if not words:
            return
        head = words[0]
        if DYN in head.text:
            return constructs.dynamic_head(self, cmd, words, state)
        name = os.path.basename(head.text)
        state.stdin_text = cmd.heredocs[-1] if cmd.heredocs else _literal_output(piped, state)
        unseen = text_of(piped) if piped is not None else ""
        if state.stdin_text is None:
            found = _redirected_input(cmd, state)
            if found is not None:
                text, whole = found
                state.stdin_text, unseen = (text, unseen) if whole else (None, text)
        state.piped = INVOLVES.search(unseen) is not None or constructs.unknown_input(self, cmd, piped, state)
        if not constructs.dispatch(self, name, words, state, piped):
            self.dispatch(name, words, state, piped)

    def dispatch(self, name, words, state, piped):
        base = re.sub(r"[0-9.]+$", "", name)
        if name == "git" or (name.startswith("git-") and len(name) > 4):
            rest = words[1:] if name == "git" else [literal_word(name[4:])] + words[1:]
            self.git(rest, state)
        elif name in ("cd", "pushd", "chdir"):
            if name == "pushd":
                state.dirs.append(state.cwd)
            self.cd(words[1:], state)
        elif name == "popd":
            state.cwd = state.dirs.pop() if state.dirs else None
        elif name in SHELLS:
            self.shell(words[1:], state, piped)
        elif name == "eval":
            text = " ".join(w.text for w in words[1:])
            if DYN in text:
                if INVOLVES.search(text):
                    raise Block("unanalysable", "eval of a variable")
                return constructs.computed(self, words[1:], "eval of text only known when it runs")
            self.check_text(text, state, "eval")
        elif name in ("source", "."):
            self.run_file(words[1:2], state, "source")
        elif base in INTERPRETERS:
            self.interpreter(base, words[1:], state)
        elif name in ("export", "declare", "typeset", "readonly", "local"):
            for w in words[1:]:
                if "=" in w.text and not w.text.startswith("-"):
                    key, _, value = w.text.partition("=")
                    self.env_rule(key, literal_word(value, DYN in value), state)
        elif name == "agentguard":
            self.agentguard([w.text for w in words[1:]], state)
        elif name == "pre-commit" and len(words) > 1 and words[1].text == "install" and \
                any(w.text in ("-f", "--overwrite") for w in words[2:]):
            raise Block("guard-files", "pre-commit install --overwrite deletes the hook it moved aside")
        elif name == "script":  # util-linux script(1): runs its command on a new terminal
            for i, w in enumerate(words[1:-1], 1):
                if w.text in ("-c", "--command") or (w.text.startswith("-") and not w.text.startswith("--")
                                                     and w.text.endswith("c")):
                    self.check_text(words[i + 1].text, state, "script -c")
        elif name == "watch":
            text = " ".join(w.text for w in words[1:] if not w.text.startswith("-"))
            self.check_text(text, state, "watch")
        elif name in MUTATORS:
            self.mutator(name, words[1:], state)

    # -- wrappers ------------------------------------------------------------------------------
    def unwrap(self, words, state):
        for _ in range(16):
            if not words or DYN in words[0].text:
                return words
            name = os.path.basename(words[0].text)
            if name not in WRAPPERS and name != "xargs":
                return words
            args = words[1:]
            if name == "xargs":
                rest = _skip_options(args, {"-I", "-i", "-n", "-L", "-P", "-d", "-E", "-s", "-a", "--arg-file",
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
            rest = _skip_options(args, value_opts)
            if name == "timeout" and rest:
                rest = rest[1:]  # the duration
            words = rest
        return words

    # -- commands ------------------------------------------------------------------------------
    def git(self, words, state):
        if state.cwd is None:
            call = [w.text for w in words]
            from ..gitmodel.cli import parse_after_git
            if parse_after_git(call).cmd not in READ_ONLY_GIT:
                raise Block("unanalysable", "git runs in a directory named by a variable")
            return
        _substitute_current_branch(words, state, self)
        ctx = gitrules.GitContext(self, state, self.repo_at(state.cwd))
        gitrules.check_git(words, ctx)

    def cd(self, args, state):
        args = [a for a in args if a.text not in ("-L", "-P", "-e", "--")]
        if not args:
            state.cwd = os.path.expanduser("~")
            return
        target = args[0]
        if _is_toplevel_sub(target):
            repo = self.repo_at(state.cwd)
            state.cwd = repo.top if repo else None
            return
        if DYN in target.text or target.text == "-":
            state.cwd = None
            return
        path = os.path.expanduser(target.text) if target.text.startswith("~") else target.text
        state.cwd = os.path.normpath(os.path.join(state.cwd, path)) if state.cwd else None

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
        code = _whole_program(_read_program(state.cwd, args[0].text), origin)
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
        script = next((a for a in _skip_options(args, INTERPRETER_VALUE_OPTS.get(base, set())) if a.text != "--"),
                      None)
        if script is not None and script.text != "-":
            if DYN in script.text:
                if INVOLVES.search(script.text):
                    raise Block("unanalysable", "a program named by a variable")
                return constructs.computed(self, [script], "a program only known when it runs")
            constructs.program_file(self, state, script.text, "a %s program" % base)
            found = _read_program(state.cwd, script.text)
        elif state.stdin_text is not None:
            found = (state.stdin_text, len(state.stdin_text) <= MAX_PROGRAM)
        elif state.piped:
            raise Block("unanalysable", "%s reading its program from a pipe" % base)
        else:
            return
        code = _whole_program(found, "a %s program" % base)
        if code is not None:
            self.inline_code(code, state)

    def inline_code(self, code, state):
        if DYN in code and INVOLVES.search(code):
            raise Block("unanalysable", "inline code built from variables")
        if GUARD_TEXT.search(code):
            raise Block("guard-files", "inline code names the guard's files")
        if not re.search(r"\bgit\b", code):
            return
        found = False
        for literal in _string_literals(code):
            if re.match(r"\s*git\s", literal):
                found = True
                self.check_text(literal, state, "inline code")
        for seq in re.findall(r"[\[(]\s*(['\"]git['\"]\s*(?:,\s*['\"][^'\"]*['\"]\s*)*)[\])]", code):
            found = True
            parts = re.findall(r"['\"]([^'\"]*)['\"]", seq)
            self.check_text(" ".join(_shell_quote(p) for p in parts), state, "inline code")
        if not found and RUNS_PROCESS.search(code):
            raise Block("unanalysable", "inline code that runs git")

    def agentguard(self, args, state):
        command = next((a for a in args if not a.startswith("-")), None)
        if command is not None and (command == "allow" or DYN in command) \
                and args[args.index(command) + 1:] != ["--list"]:
            raise Block("break-glass", "agentguard allow")
        if args and args[0] == "uninstall":
            raise Block("guard-removal", "agentguard uninstall")
        if args and args[0] == "install" and "--dry-run" not in args:
            if any(a.startswith("--protect") for a in args):
                raise Block("guard-removal", "agentguard install --protect (changes the protected branches)")
            repo = self.repo_at(state.cwd)
            if state.remotes_touched or (repo is not None and any(not repo.follows(r) for r in repo.remote_names())):
                raise Block("remote-config", "agentguard install, which would record remotes that changed "
                            "since the last install")
            if repo is not None and repo.installed and repo.policy.remotes is None and repo.remote_names():
                raise Block("remote-config", "agentguard install, which would record for the first time which "
                            "remotes protected branches follow (a person's decision)")

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
            pos = [a for a in args if not a.text.startswith("-") or re.match(r"-[rwxXst]+$", a.text)]
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
                                           for n in sorted(os.listdir(d)) if findexpr.fnmatch.fnmatchcase(n, pat)]
            roots += sorted(self.user_configs())  # the git config files that can switch hooks off
            cache = repo.ag_home
            hit = findexpr.guarded_match(roots, path, patterns, lambda p: bytecode_cache(p, cache))
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
        path = os.path.normpath(os.path.join(state.cwd, os.path.expanduser(text)))
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
        from .shellparse import iter_simple
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

    def env_rule(self, name, value, state, scoped=False):
        """``scoped``: the assignment is for one command (``X=1 cmd``, ``env X=1 cmd``)."""
        text = value.text if isinstance(value, Word) else value
        found = env_skips_hooks(name, None if DYN in text else text)
        if found:
            raise Block(*found)
        if name in ("GIT_DIR", "GIT_WORK_TREE"):  # the repository git works on
            (state.scoped if scoped else state.git_env)[name] = None if DYN in text else os.path.expanduser(text)
        if name.upper() in CONFIG_ENV or name.upper().startswith(("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_")):
            state.env[name] = None if DYN in text else os.path.expanduser(text)
        constructs.code_variable(self, name, value, state)


GUARD_TEXT = re.compile(r"\.git[/\\](hooks|agentguard|refs|packed-refs|config)|hookspath|\.agentguard\.toml|"
                        r"gptme(\.local)?\.toml|\.pi[/\\](extensions|settings)|\.hermes[/\\]plugins|"
                        r"\.gptme[/\\](plugins|verify)", re.I)
RUNS_PROCESS = re.compile(r"subprocess|os\.system|popen|spawn|exec|system\s*\(|`|child_process|Process|run\(")


def _entries(path):
    try:
        return [os.path.join(path, name) for name in os.listdir(path)] if os.path.isdir(path) else []
    except OSError:
        return []


def _skip_options(args, value_opts):
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


def _literal_output(node, state):
    """What ``node`` writes to a pipe, when it is a literal echo/printf/cat (else None)."""
    if not isinstance(node, Simple):
        return None
    words = node.words
    while words and words[0].text in RESERVED and not words[0].quoted:  # `{ echo ...; } | sh`
        words = words[1:]
    if not words:
        return None
    name = os.path.basename(words[0].text)
    args = words[1:]
    if any(DYN in a.text for a in args):
        return None
    if name == "echo":
        return " ".join(a.text for a in args if a.text not in ("-n", "-e", "-E")) + "\n"
    if name == "printf" and args:
        return " ".join(a.text for a in args).replace("\\n", "\n")
    if name == "cat":
        if node.heredocs:
            return node.heredocs[-1]
        if args and state.cwd:
            data = constructs.read_regular(os.path.join(state.cwd, args[0].text), 64 * 1024)
            return None if data is None else data.decode("utf-8", "replace")
    return None


def _read_program(cwd, path):
    """(text, whole) of the file ``path``: its first MAX_PROGRAM bytes, and whether that is all of it;
    None when it cannot be read."""
    if cwd is None:
        return None
    data = constructs.read_regular(os.path.join(cwd, os.path.expanduser(path)), MAX_PROGRAM + 1)
    if data is None:
        return None
    return data[:MAX_PROGRAM].decode("utf-8", "replace"), len(data) <= MAX_PROGRAM


def _whole_program(found, origin):
    """The text of ``found`` (``_read_program``'s answer) to analyse; None when there is nothing to
    read or it is too large and names nothing of git's; a Block when it is too large and does."""
    if found is None:
        return None
    text, whole = found
    if whole:
        return text
    if INVOLVES.search(text):
        raise Block("unanalysable", "%s too large to analyse" % origin)
    return None


def _redirected_input(cmd, state):
    """``_read_program``'s answer for what ``< FILE`` feeds the command, or None."""
    for op, target in cmd.redirects:
        if op == "<" and DYN not in target.text:
            return _read_program(state.cwd, target.text)
    return None


def _string_literals(code):
    out = []
    for m in re.finditer(r'"((?:[^"\\]|\\.)*)"|\'((?:[^\'\\]|\\.)*)\'', code):
        out.append(m.group(1) if m.group(1) is not None else m.group(2))
    return out


def _shell_quote(text):
    return "'" + text.replace("'", "'\\''") + "'"


def _is_toplevel_sub(word):
    from .shellparse import iter_simple
    if word.text.strip(DYN) or len(word.subs) != 1:
        return False
    cmds = list(iter_simple(word.subs[0]))
    return len(cmds) == 1 and [w.text for w in cmds[0].words] == ["git", "rev-parse", "--show-toplevel"]


def _substitute_current_branch(words, state, analyser):
    """``$(git branch --show-current)`` and friends are the current branch: fill them in."""
    from .shellparse import iter_simple
    for w in words:
        if DYN not in w.text or len(w.subs) != w.text.count(DYN):
            continue
        values = []
        for sub in w.subs:
            cmds = list(iter_simple(sub))
            argv = tuple(x.text for x in cmds[0].words[1:]) if len(cmds) == 1 and cmds[0].words and \
                cmds[0].words[0].text == "git" else None
            if argv not in gitrules.CURRENT_BRANCH_SUBS:
                break
            repo = analyser.repo_at(state.cwd)
            branch = state.branch_of(repo) if repo else None
            if not isinstance(branch, str):
                break
            values.append(branch)
        else:
            text = w.text
            for v in values:
                text = text.replace(DYN, v, 1)
            w.text = text
