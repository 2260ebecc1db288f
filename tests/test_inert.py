"""The pre-check's shortcut for a command line that cannot involve git or the guard
(``hooks/analyser/inert.py``): one program the analyser knows by no name, with literal arguments. Its
"nothing to see" always implies the analyser's own "allow" (checked against the full analyser over the
command table, the fuzz tokens and generated lines, in a guarded repository on its protected branch);
the analyser's sources name none of its programs outside the places that only matter with a pipe or
a redirection (which the shortcut never takes); anything else still goes to the analyser."""
import ast
import os
import random

import pytest

from agentguard.hooks.analyser import inert as inert_module
from agentguard.hooks.analyser.inert import PROGRAMS, inert

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ANALYSER = os.path.join(ROOT, "hooks", "analyser")
# where the analyser's sources may name one of PROGRAMS: only with a pipe or a redirection, or in its
# PowerShell reading and git's own subcommands (a git command line is never inert)
NAMED_ONLY_WITH_PIPES = {
    "constructs.py": {"cat", "head", "tail", "grep", "echo"},  # TEXT_MAKERS: a producer piped into code
    "writtencode.py": {"cat", "ls", "head", "tail", "wc", "grep", "stat", "file", "diff", "cmp", "echo"},  # READERS,
    # and what echo/cat write to a redirection
    "programtext.py": {"echo", "cat"},  # what echo/printf/cat write to a pipe
    "printed.py": {"echo"},  # the same, decoded
}


def full_analysis(command, cwd):
    """The analyser's own answer, the shortcut not asked."""
    from agentguard.hooks.analyser.analyse import Analyser
    from agentguard.hooks.rules import Block
    try:
        Analyser().check_command(command, cwd)
    except Block as block:
        return block.rule
    return None


def _generated(seed=30, n=600):
    rng = random.Random(seed)
    chars = "abcxyz ACZ019_.,:+@%=/-"
    args = ["-la", "--all", ".git", ".git/config", ".git/hooks/pre-push", ".git/agentguard/check", "main",
            "push", "origin", "HEAD:main", "--force", "-f", "refs/heads/main", "-c", "core.hooksPath=/dev/null",
            ".claude/settings.json", "agentguard", "uninstall", "allow", "-rf", "run", "test", "install", "-e", "x=1"]
    out = []
    for _ in range(n):
        words = [rng.choice(sorted(PROGRAMS))] + [rng.choice(args) if rng.random() < 0.7 else
                                                   "".join(rng.choice(chars) for _ in range(rng.randrange(1, 8)))
                                                   for _ in range(rng.randrange(0, 6))]
        out.append(" ".join(words))
    return out


def _corpus():
    from test_analyser_fuzz import TOKENS
    from test_check_table import TABLE
    rng = random.Random(31)
    soup = [" ".join(rng.choice(TOKENS) for _ in range(rng.randrange(1, 6))) for _ in range(400)]
    soup += [" ".join([p] + [rng.choice(TOKENS) for _ in range(rng.randrange(0, 5))]) for p in sorted(PROGRAMS)
             for _ in range(8)]
    return [c for c, _, _ in TABLE] + soup + _generated()


def test_the_shortcut_says_nothing_to_see_only_where_the_analyser_allows(guarded):
    repo, _ = guarded  # on main, the protected branch: the analyser refuses what it can
    taken = 0
    for command in _corpus():
        if inert(command):
            taken += 1
            assert full_analysis(command, repo.path) is None, command
            assert full_analysis(command, os.path.join(repo.path, ".git")) is None, command
    assert taken >= 500  # (a shortcut the corpus never takes would prove nothing)


@pytest.mark.parametrize("command", [
    "ls; git push", "ls && git push origin main", "ls | sh", "ls > .git/config", "ls >> x", "ls < x", "ls $X",
    "ls `git push`", "ls $(git push)", "git status", "./ls", "bin/ls", "FOO=1 ls", "ls\ngit push", "ls\tx",
    "ls 'a b'", 'ls "x"', "ls ~", "ls *", "ls ?", "ls [a]", "ls {a,b}", "ls #x", "ls &", "ls\\ x", "(ls)", "{ ls; }",
    "! ls", "time ls", "env ls", "sh -c ls", "eval ls", "source x", ". x", "cd .git", "rm -rf .git", "xargs ls",
    "LS", "lsx -la", "npx x", "node -e 1", "python3 -c 1", "sudo ls", "exec ls", "command ls", "alias ls=x",
    "ls" + " x" * 3000, "", "   ", "ls\x00", "ls\u00e9", "ls\r"])
def test_what_is_not_plainly_inert_goes_to_the_analyser(command):
    assert not inert(command)


@pytest.mark.parametrize("command", ["ls -la", "ls", "  ls  -la  ", "npm test", "pytest -q tests/test_x.py",
                                     "cat README.md", "grep -rn foo src", "make -j4", "cargo build --release"])
def test_ordinary_commands_take_the_shortcut(command):
    assert inert(command)


def test_the_analyser_knows_none_of_the_programs_by_name():
    """Every string in the analyser's sources that is one of PROGRAMS, by module: a rule that names one
    elsewhere (``make`` read like ``sh``, ``npm`` unwrapped like ``env``) fails here, and the program
    leaves PROGRAMS (or the rule is proven not to apply to a single literal command)."""
    found = {}
    for folder, dirs, files in os.walk(ANALYSER):
        dirs[:] = [d for d in dirs if d not in ("__pycache__", "gitrules")]  # git's own (`git grep`)
        for name in sorted(f for f in files if f.endswith(".py") and f not in ("inert.py", "powershell.py")):
            with open(os.path.join(folder, name), encoding="utf-8") as fh:
                tree = ast.parse(fh.read())
            named = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and n.value in PROGRAMS}
            if named:
                found[name] = named
    assert found == NAMED_ONLY_WITH_PIPES
    from agentguard.hooks.analyser import constructs, detaching, interpreters, wrappers, writetargets
    from agentguard.hooks.analyser.gitrules import BUILTINS
    from agentguard.hooks.analyser.shelltree import RESERVED
    known = set(interpreters.SHELLS) | set(interpreters.INTERPRETERS) | wrappers.WRAPPERS | \
        writetargets.MUTATORS | detaching.STDIN_CODE | set(detaching.STARTERS) | RESERVED | constructs.OPENERS
    assert not PROGRAMS & known and not any(p.startswith("git") for p in PROGRAMS)
    assert not PROGRAMS & {"git-" + b for b in BUILTINS}


def test_the_runtime_takes_the_shortcut_and_still_refuses_the_rest(guarded):
    """The runtime copy's pre-check of ``ls -la`` answers without loading the analyser; a command that
    is not plainly inert loads it, and is refused when it should be (HEAD on main)."""
    from test_lazyre import runtime_check
    repo, _ = guarded

    def check(command):
        status, _, loaded = runtime_check(repo, command)
        return status, "agentguard.hooks.analyser.analyse" in loaded or "hooks.analyser.analyse" in loaded
    assert check("ls -la") == (0, False)
    assert check("ls -la; git commit --allow-empty -m x") == (1, True)
    assert check("ls -la | sh") == (0, True)
    assert inert_module.MAX_TEXT < 64 * 1024
