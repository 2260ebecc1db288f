"""The source's structure, read statically: no import cycles in `hooks/` and `installer/`, and no module
using another module's private names. Both walk the ast, so a function-level (lazy) import counts too."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("hooks", "installer")


def _modules() -> dict[str, Path]:
    """Every module of the walked packages by dotted name (`agentguard.hooks.analyser.check`); a package is its
    `__init__`."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = ("agentguard",) + path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


MODULES = _modules()


def _package_of(name: str) -> str:
    return name if MODULES[name].name == "__init__.py" else name.rpartition(".")[0]


def _absolute(name: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = _package_of(name)
    for _ in range(node.level - 1):
        base = base.rpartition(".")[0]
    return f"{base}.{node.module}" if node.module else base


def _known(target: str) -> str | None:
    """The walked module `target` names, or None when it is outside (the standard library, typer...)."""
    return target if target in MODULES else None


def _imports(name: str) -> list[tuple[str, ast.AST]]:
    """(imported module, node) for every import in the module, at any depth. `from pkg import mod` imports the
    module `pkg.mod` when there is one (and `pkg` itself, whose `__init__` runs)."""
    found = []
    tree = ast.parse(MODULES[name].read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = _known(alias.name)
                if target:
                    found.append((target, node))
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(name, node)
            for alias in node.names:
                sub = _known(f"{base}.{alias.name}")
                if sub:
                    found.append((sub, node))
                elif _known(base):
                    found.append((base, node))
    return found


def _graph() -> dict[str, set[str]]:
    return {name: {target for target, _ in _imports(name) if target != name} for name in MODULES}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted. An import of a
    module's own parent package counts like any other."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(graph[node]):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return components


def test_no_import_cycles() -> None:
    cycles = _cycles(_graph())
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def _private(attr: str) -> bool:
    return attr.startswith("_") and not attr.startswith("__")


def _private_uses(name: str) -> list[str]:
    """`from other import _x` and `other._x` where `other` is another walked module bound by an import."""
    found = []
    tree = ast.parse(MODULES[name].read_text())
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _known(alias.name) and alias.asname:
                    bound[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(name, node)
            for alias in node.names:
                sub = _known(f"{base}.{alias.name}")
                if sub:
                    bound[alias.asname or alias.name] = sub
                elif _known(base) and base != name and _private(alias.name):
                    found.append(f"{name}:{node.lineno}: from {base} import {alias.name}")
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in bound
                and bound[node.value.id] != name and _private(node.attr)):
            found.append(f"{name}:{node.lineno}: {bound[node.value.id]}.{node.attr}")
    return found


def test_no_cross_module_private_names() -> None:
    uses = [use for name in MODULES for use in _private_uses(name)]
    assert not uses, "private names used from another module:\n" + "\n".join(uses)


def test_the_walk_sees_lazy_and_relative_imports() -> None:
    """The walk is not vacuous: it resolves a relative import and one inside a function."""
    graph = _graph()
    # both lazy (inside a function) and relative (`from .decision import`, `from ..rules import`)
    assert "agentguard.hooks.analyser.decision" in graph["agentguard.hooks.harness.hook"]
    assert "agentguard.hooks.rules" in graph["agentguard.hooks.analyser.decision"]
    assert "agentguard.hooks.analyser.gitrules.commands" in graph["agentguard.hooks.analyser.gitrules.gitconfig"]
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
