"""The command analyser: would this shell command touch protected branches, skip or switch off
git's hooks, or change the guard's own files? One analyser for every harness adapter.

It walks the parsed command in execution order, keeping what earlier parts change (``cd``,
branch switches, aliases defined with ``git config``), looks through wrappers (``env``,
``timeout``, ``xargs``...), into strings that get executed (``sh -c``, ``eval``, ``| sh``,
``python -c``...), and applies the git rules. What it cannot read and that involves git or the
guard is blocked.
"""
import os

from . import constructs, detaching, writtencode
from .constructs import INVOLVES
from .detaching import Detaching
from .envrules import EnvironmentRules
from .interpreters import INTERPRETERS, SHELLS, Interpreters
from .programtext import literal_output
from .repolookup import RepositoryLookup
from .shellparse import ParseError, parse
from .shelltree import (DYN, RESERVED, FuncDef, Pipeline, Seq, Simple, Subshell, Word, is_assignment, literal_word,
                        text_of)
from .wrappers import Wrappers
from .writetargets import MUTATORS, WRITE_REDIRS, WriteTargets
from ..rules import Block

SKIP_WHOLE = {"for", "select", "case", "esac"}
MAX_TEXT_DEPTH = 12


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


class Analyser(RepositoryLookup, Wrappers, Detaching, Interpreters, WriteTargets, EnvironmentRules):
    """``launcher_home``: the agentguard installation whose decision command runs this analysis
    (``<git common dir>/agentguard``), when it is a runtime copy; its policy judges a repository
    with no installation of its own when the command does not start in a guarded one.

    One class made of one part per concern: ``repolookup`` (which repository), ``wrappers``,
    ``interpreters`` (shells and interpreters), ``writetargets`` (paths written), ``envrules``
    (variables set); this module walks the command line and dispatches each simple command."""

    def __init__(self, launcher_home=None):
        RepositoryLookup.__init__(self, launcher_home)
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
        writtencode.record(self, cmd, state, piped)
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
        state.stdin_text = cmd.heredocs[-1] if cmd.heredocs else literal_output(piped, state)
        unseen = text_of(piped) if piped is not None else ""
        if state.stdin_text is None:
            found = writtencode.redirected_input(self, cmd, state)
            if found is not None:
                text, whole = found
                state.stdin_text, unseen = (text, unseen) if whole else (None, text)
        state.piped = constructs.UnknownInput(self, cmd, piped, state, unseen)  # (its patterns: when asked)
        if not constructs.dispatch(self, name, words, state, piped):
            self.dispatch(name, words, state, piped)

    def dispatch(self, name, words, state, piped):
        base = constructs.unversioned(name)
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
        elif name in detaching.STDIN_CODE:
            detaching.stdin_code(self, words[1:], state, piped)
        else:
            writtencode.direct(self, words, state)

    # -- commands ------------------------------------------------------------------------------
    def git(self, words, state):
        if state.cwd is None:
            call = [w.text for w in words]
            from ..gitmodel.cli import parse_after_git
            from .gitrules.commands import READ_ONLY_GIT
            if parse_after_git(call).cmd not in READ_ONLY_GIT:
                raise Block("unanalysable", "git runs in a directory named by a variable")
            return
        from . import gitrules  # here: a command that runs no git never loads the git rules
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


def _is_toplevel_sub(word):
    from .shelltree import iter_simple
    if word.text.strip(DYN) or len(word.subs) != 1:
        return False
    cmds = list(iter_simple(word.subs[0]))
    return len(cmds) == 1 and [w.text for w in cmds[0].words] == ["git", "rev-parse", "--show-toplevel"]


def _substitute_current_branch(words, state, analyser):
    """``$(git branch --show-current)`` and friends are the current branch: fill them in."""
    from .shelltree import iter_simple
    for w in words:
        if DYN not in w.text or len(w.subs) != w.text.count(DYN):
            continue
        values = []
        for sub in w.subs:
            cmds = list(iter_simple(sub))
            argv = tuple(x.text for x in cmds[0].words[1:]) if len(cmds) == 1 and cmds[0].words and \
                cmds[0].words[0].text == "git" else None
            from .gitrules import CURRENT_BRANCH_SUBS
            if argv not in CURRENT_BRANCH_SUBS:
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
