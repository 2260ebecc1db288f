"""One repository layout (``hooks/layout.py``): every engine and the installer know where a repository's
parts are from the one ``Layout``. Read statically (no other class keeps the same fields, agentguard's home
is named in one place, the layout's ``rev-parse`` is written once), and asked of real repositories (the
runtime and the installer find the same layout; a bare one, a linked worktree, a git dir without a work tree)."""

from __future__ import annotations

import ast
import os
import subprocess
from pathlib import Path

from agentguard.hooks import layout
from agentguard.hooks.layout import Layout
from agentguard.installer.errors import AgentguardError
from agentguard.installer.gitaccess.repo import discover
from agentguard.installer.setup.server import discover_bare

from test_structure import MODULES

LAYOUT_MODULE = "agentguard.hooks.layout"
FIELDS = {"top", "work_tree", "git_dir", "common_dir", "hooks_dir"}
# ``join(base, "agentguard")`` that is not a repository's home: the user's config folder (~/.config/agentguard)
# and cache (~/.cache/agentguard, where install keeps git's option table)
NOT_THE_HOME = {("agentguard.installer.setup.template", "config_home"),
                ("agentguard.installer.gitaccess.gitoptions", "cache_dir")}
NOT_A_PATH = {"agentguard/rescued/"}  # the rescue branches' names (refs.RESCUE_PREFIX)


def _tree(name: str) -> ast.Module:
    return ast.parse(MODULES[name].read_text())


def _functions(tree: ast.AST):
    """(enclosing function name or "", node) for every node."""
    def walk(node, owner):
        for child in ast.iter_child_nodes(node):
            inner = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else owner
            yield inner, child
            yield from walk(child, inner)
    return walk(tree, "")


def _is_join(call: ast.Call) -> bool:
    func = call.func
    return (isinstance(func, ast.Attribute) and func.attr == "join" and isinstance(func.value, ast.Attribute)
            and func.value.attr == "path") or (isinstance(func, ast.Name) and func.id == "join")


def _home_spellings(name: str) -> list[str]:
    """Where module ``name`` spells agentguard's home itself: ``join(x, "agentguard", ...)`` or a path
    ``"agentguard/..."`` relative to a git dir (or to the template git copies into one)."""
    found = []
    for owner, node in _functions(_tree(name)):
        if (name, owner) in NOT_THE_HOME:
            continue
        if isinstance(node, ast.Call) and _is_join(node) and any(
                isinstance(a, ast.Constant) and a.value == layout.HOME for a in node.args):
            found.append(f"{name}:{node.lineno}: join(..., {layout.HOME!r})")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and node.value.startswith(layout.HOME + "/") and node.value not in NOT_A_PATH:
            found.append(f"{name}:{node.lineno}: {node.value!r}")
    return found


def test_agentguard_home_is_named_only_in_the_layout() -> None:
    spellings = [s for name in MODULES if name != LAYOUT_MODULE for s in _home_spellings(name)]
    assert not spellings, "agentguard's home spelled outside hooks/layout.py (use Layout.ag_home or " \
                          "layout.home_of):\n" + "\n".join(spellings)


def _fields(cls: ast.ClassDef) -> set[str]:
    """What a class keeps: ``self.x = ...`` in its methods, annotated class fields (a dataclass's), and
    its ``__init__`` parameters."""
    kept = set()
    for node in ast.walk(cls):
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for t in ast.walk(target):
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                        kept.add(t.attr)
        if isinstance(node, ast.FunctionDef) and node.name == "__init__":
            kept.update(a.arg for a in node.args.args)
    kept.update(n.target.id for n in cls.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name))
    return kept


def test_no_other_class_keeps_the_layout() -> None:
    """RepoInfo, RepoView, Where, NewRepository, Guarded each kept the same four paths; now only Layout does
    (the others hold a Layout)."""
    twins = []
    for name in MODULES:
        for node in ast.walk(_tree(name)):
            if isinstance(node, ast.ClassDef) and not (name == LAYOUT_MODULE and node.name == "Layout"):
                shared = _fields(node) & FIELDS
                if len(shared) >= 3:
                    twins.append(f"{name}.{node.name}: {sorted(shared)}")
    assert not twins, "classes keeping a repository's layout besides hooks.layout.Layout:\n" + "\n".join(twins)


def test_the_layout_is_asked_of_git_in_one_place() -> None:
    """The ``rev-parse`` that says where a repository's parts are is written once (``layout.REV_PARSE``)."""
    flags = {"--git-common-dir", "--absolute-git-dir", "--show-toplevel", "--is-bare-repository"}
    found = []
    for name in MODULES:
        if name == LAYOUT_MODULE:
            continue
        for node in ast.walk(_tree(name)):
            if isinstance(node, ast.List) and node.elts and isinstance(node.elts[0], ast.Constant) \
                    and node.elts[0].value == "rev-parse" \
                    and flags & {e.value for e in node.elts if isinstance(e, ast.Constant)}:
                found.append(f"{name}:{node.lineno}")
    assert not found, "a repository's layout asked of git outside hooks/layout.py:\n" + "\n".join(found)


def test_the_rules_see_what_they_forbid() -> None:
    """The static checks are not vacuous: they catch the spellings they were written against."""
    tree = ast.parse('import os\nclass RepoInfo:\n    top: str\n    git_dir: str\n    common_dir: str\n'
                     '    hooks_dir: str\n'
                     'class Where:\n    def __init__(self, top, git_dir, common_dir, hooks_dir):\n        pass\n'
                     'home = os.path.join(common_dir, "agentguard")\n')
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    assert [len(_fields(c) & FIELDS) for c in classes] == [4, 4]
    assert [n for _, n in _functions(tree) if isinstance(n, ast.Call) and _is_join(n)]


# -- the layout of real repositories ------------------------------------------------------------------

def _git(env, *args, cwd=None):
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, timeout=60)


def test_one_layout_for_the_runtime_and_the_installer(tmp_path: Path, env: dict) -> None:
    work, linked, bare = tmp_path / "work", tmp_path / "linked", tmp_path / "bare.git"
    _git(env, "init", "-q", "-b", "main", str(work))
    _git(env, "commit", "-q", "--allow-empty", "-m", "first", cwd=work)
    _git(env, "worktree", "add", "-q", "-b", "other", str(linked), cwd=work)
    _git(env, "init", "-q", "--bare", str(bare))
    (work / "sub").mkdir()
    git_dir = os.path.realpath(work / ".git")

    main = Layout(os.path.realpath(work), git_dir, git_dir, os.path.join(git_dir, "hooks"))
    assert layout.at(str(work), env=env) == main == layout.at(str(work / "sub"), env=env)
    assert discover(str(work / "sub")) == main == discover(str(work / ".git"))  # from inside .git: the work tree
    assert main.ag_home == os.path.join(git_dir, "agentguard") and not main.linked and main.worktree is None

    other = layout.at(str(linked), env=env)
    assert other == discover(str(linked))
    assert other is not None and other.linked and other.worktree == "linked" and other.common_dir == git_dir
    assert other.git_dir == os.path.join(git_dir, "worktrees", "linked") and other.ag_home == main.ag_home

    server = layout.at(str(bare), env=env)
    real_bare = os.path.realpath(bare)
    assert server == Layout(real_bare, real_bare, real_bare, os.path.join(real_bare, "hooks"), True)
    assert server == discover_bare(str(bare / "refs"))
    assert layout.at(str(work / ".git"), env=env) is None  # a git dir with no work tree around it
    assert layout.at(str(tmp_path), env=env) is None
    assert Layout.from_json(main.to_json()) == main
    assert Layout.new(str(tmp_path / "new"), False).git_dir == str(tmp_path / "new" / ".git")

    for path, why in ((bare, "is a bare repository"), (tmp_path, "is not inside a git repository")):
        try:
            discover(str(path))
        except AgentguardError as exc:
            assert why in str(exc)
        else:
            raise AssertionError("discover(%s) found a repository" % path)
    for path, why in ((work, "is not a bare repository"), (work / ".git", "is not a bare repository"),
                      (tmp_path, "is not a git repository")):
        try:
            discover_bare(str(path))
        except AgentguardError as exc:
            assert why in str(exc)
        else:
            raise AssertionError("discover_bare(%s) found a bare repository" % path)
