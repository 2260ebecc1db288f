"""The doctor's structure, read statically: each check names its own repair, and the runner picks
repairs by what the checks name, never by matching their ids."""

from __future__ import annotations

import ast
from pathlib import Path

from agentguard.installer.doctor.checks.groups import GROUPS
from agentguard.installer.doctor.checks.server import SERVER_GROUPS

ROOT = Path(__file__).resolve().parent.parent
RUNNER = ROOT / "installer" / "doctor" / "runner.py"
CHECK_MODULES = sorted((ROOT / "installer" / "doctor" / "checks").glob("*.py"))


def _id_matching(path: Path) -> list[str]:
    """`x.id.startswith(...)`, `x.id.endswith(...)`, `x.id == ...`/`in ...` in ``path``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("startswith", "endswith")
                and isinstance(node.func.value, ast.Attribute) and node.func.value.attr == "id"):
            found.append(f"{path.name}:{node.lineno}: .id.{node.func.attr}(...)")
        elif isinstance(node, ast.Compare) and any(isinstance(side, ast.Attribute) and side.attr == "id"
                                                   for side in [node.left, *node.comparators]):
            found.append(f"{path.name}:{node.lineno}: compares a check id")
    return found


def test_the_runner_picks_repairs_without_matching_check_ids() -> None:
    assert not _id_matching(RUNNER), _id_matching(RUNNER)


def _fix_text(call: ast.Call, source: str) -> str:
    fix = call.args[3] if len(call.args) > 3 else next((k.value for k in call.keywords if k.arg == "fix"), None)
    return ast.get_source_segment(source, fix) or "" if fix is not None else ""


def _unrepaired(path: Path) -> list[str]:
    """`add(...)` calls whose printed fix is `agentguard doctor --fix` but that name no repair."""
    source = path.read_text()
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add"
                and len(node.args) >= 3):
            continue
        if isinstance(node.args[1], ast.Constant) and node.args[1].value == "pass":
            continue
        text = _fix_text(node, source)
        if ("FIX_ALL" in text or "doctor --fix" in text) and not any(k.arg == "repair" for k in node.keywords):
            found.append(f"{path.name}:{node.lineno}: {ast.get_source_segment(source, node.args[0])}")
    return found


def test_every_check_that_offers_doctor_fix_names_its_repair() -> None:
    missing = [m for path in CHECK_MODULES for m in _unrepaired(path)]
    assert not missing, "checks that print `doctor --fix` but name no repair:\n" + "\n".join(missing)


def test_each_group_lives_in_one_module() -> None:
    """The client's groups and the server's alike."""
    for groups in (GROUPS, SERVER_GROUPS):
        spread = {group: sorted({check.__module__ for check in checks}) for group, checks in groups}
        assert all(len(modules) == 1 for modules in spread.values()), spread
        assert len({group for group, _ in groups}) == len(groups)


def test_the_walk_is_not_vacuous(tmp_path: Path) -> None:
    """Both walks find what they look for."""
    old = tmp_path / "old.py"
    old.write_text("def fix(d):\n    return [c for c in d.checks if c.id.startswith(('hooks.',)) or c.id == 'x']\n")
    assert len(_id_matching(old)) == 2
    check = tmp_path / "check.py"
    check.write_text("def check(ctx):\n    ctx.add('a.b', 'fail', 'broken', FIX_ALL)\n"
                     "    ctx.add('a.c', 'fail', 'broken', 'agentguard doctor --fix', repair=REINSTALL)\n")
    assert _unrepaired(check) == ["check.py:2: 'a.b'"]
