"""The analyser's git rules, one module per command family, all on the shared git model.

Which family judges which command is ``families.HANDLERS``. ``check_git`` parses the words after
``git`` (global options, ``-c``, aliases), then hands the parsed ``GitCall`` to the family's rule.
"""
import os

from ...gitmodel import cli
from ...bypass import SKIPPING_CMDS
from ...guardconfig import GUARD_ALIAS
from ...rules import Block
from ..shelltree import DYN, Word
from .gitconfig import config_sources
from . import programs, transport
from .commands import COMMANDS, READ_ONLY_GIT
from .context import GitContext  # noqa: F401  (the analyser builds it)
from .families import HANDLERS

MAKE_REPO = ("clone", "init")  # judged where there is no repository yet


def handler_for(cmd):
    """The rule that judges ``cmd``, or None."""
    found = HANDLERS.get(cmd)
    if found is None:
        return None
    module = __import__("%s.%s" % (__name__, found[0]), fromlist=[found[1]])  # (importlib imports warnings)
    return getattr(module, found[1])


# Commands git ships (builtins and its dashed programs) cannot be shadowed by aliases: git runs the
# command and ignores the alias. The command table has a row for each (tests/test_command_classes.py).
BUILTINS = set(COMMANDS)

CURRENT_BRANCH_SUBS = (("branch", "--show-current"), ("rev-parse", "--abbrev-ref", "HEAD"),
                       ("symbolic-ref", "--short", "HEAD"), ("symbolic-ref", "--short", "-q", "HEAD"))


def check_git(words, ctx, depth=0):
    """``words``: shell Words after ``git`` (or ``git-<cmd>``'s argv)."""
    if depth > 8:
        raise Block("unanalysable", "aliases nested too deeply")
    call = cli.parse_after_git([w.text for w in words], ctx.ag_home)
    for key, value in call.config:
        if key == "core.hookspath":
            raise Block("hooks-path", "git -c core.hooksPath")
        if key.startswith(GUARD_ALIAS):
            raise Block("push-guard", "git -c %s, which replaces the push guard in git's transport" % key)
        if key.startswith("alias."):
            ctx.state.aliases[key[len("alias."):]] = value or ""
    for g in call.globals:
        if DYN in g:
            raise Block("unanalysable", "a variable in git's global options")
    if call.cmd in ("push", "pull", "fetch") and any(k.startswith(("remote.", "push.", "branch.", "url."))
                                                     for k, _ in call.config):
        raise Block("unanalysable", "git -c changes where %s goes" % call.cmd)
    if call.cmd == "push" and ctx.state.env:
        raise Block("push-guard", "a git push with %s set, which can take it around the push guard in git's transport"
                    % sorted(ctx.state.env)[0])
    cwd = cli.cwd_of(call, ctx.state.cwd)
    git_dir = cli.git_dir_of(call)
    if git_dir is None:
        given, git_dir = ctx.state.git_location()
        if given and git_dir is None and call.cmd not in READ_ONLY_GIT:
            raise Block("unanalysable", "GIT_DIR names the repository with a variable")
    if cwd is not ctx.state.cwd or git_dir is not None:
        ctx = ctx.analyser.context_at(ctx.state, cwd, git_dir)
        if git_dir is not None and ctx.repo is None and call.cmd not in READ_ONLY_GIT and call.cmd not in MAKE_REPO \
                and os.path.exists(os.path.join(cwd, git_dir)):
            raise Block("unanalysable", "git works on a git directory the analyser cannot read (%s)" % git_dir)
    if call.cmd is None:
        return
    config_sources(call, ctx)
    if DYN in call.cmd:
        raise Block("unanalysable", "a variable in command position")
    if call.cmd not in BUILTINS:
        alias = ctx.state.aliases.get(call.cmd.lower())
        if alias is None and ctx.repo is not None:
            alias = ctx.repo.alias(call.cmd)
        if alias is not None:
            return _expand_alias(alias, call, words, ctx, depth)
    if call.cmd in SKIPPING_CMDS and call.has("--no-verify"):  # commit's -n is --no-verify in git's table
        raise Block("no-verify", "git %s --no-verify" % call.cmd)
    programs.check(call, ctx, check_git)
    transport.check(call, ctx)
    handler = handler_for(call.cmd)
    if handler and (ctx.repo is not None or call.cmd == "config" or call.cmd in MAKE_REPO):
        handler(call, ctx)
    if (call.cmd == "remote" and call.sub in ("add", "set-url", "rename", "remove", "rm", "set-branches")) or \
            (call.cmd == "config" and any(w.lower().startswith(("remote.", "url.")) for w in call.words())):
        ctx.state.remotes_touched = True  # a later `agentguard install` would record what this changed
    if call.cmd == "remote" and call.sub == "add" and ctx.repo is not None:
        args = [w for w in call.words() if not w.startswith("-")]
        if len(args) == 2 and not any(DYN in a for a in args) and not call.has("--mirror", "-t", "--track"):
            ctx.state.added_remotes[(ctx.repo.top, args[0])] = args[1]  # a new project's `remote add` + push


def _expand_alias(alias, call, words, ctx, depth):
    import shlex  # only aliases need it
    rest = call.args
    if alias.startswith("!"):
        shell = alias[1:] + "".join(" " + shlex.quote(a) for a in rest)
        ctx.analyser.check_text(shell, ctx.state, "alias")
        return
    try:
        parts = shlex.split(alias)
    except ValueError:
        raise Block("unanalysable", "alias %s" % call.cmd)
    new = []
    for part in parts:
        w = Word()
        w.text = part
        new.append(w)
    check_git(new + words[len(words) - len(rest):], ctx, depth + 1)

