"""The source's structure, read statically: plain module names (no one-letter or `_mod` import aliases) and
small modules (none over ~500 lines) in `hooks/` and `installer/`."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("hooks", "installer")
MAX_LINES = 500
# Files another helper reshapes this round (#27): the lead removes them from these lists after the merge.
OWNED_ELSEWHERE: set = set()  # files another change is reshaping: none now
BAD_ALIAS = re.compile(r"[A-Za-z]|.*_mod")


def _sources() -> list[Path]:
    return [path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))]


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _bad_aliases(source: str, name: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.asname and BAD_ALIAS.fullmatch(alias.asname):
                    found.append("%s:%d: %s as %s" % (name, node.lineno, alias.name, alias.asname))
    return found


def test_modules_are_imported_by_their_plain_names() -> None:
    """`import x as R`, `from . import harnesses as H`, `as harness_mod`: a reader meets the module by its name."""
    bad = [use for path in _sources() if _rel(path) not in OWNED_ELSEWHERE
           for use in _bad_aliases(path.read_text(), _rel(path))]
    assert not bad, "import aliases (use the plain module name):\n" + "\n".join(bad)


def test_no_module_is_over_the_size_limit() -> None:
    sizes = {_rel(path): len(path.read_text().splitlines()) for path in _sources()}
    big = ["%s: %d lines" % (name, n) for name, n in sorted(sizes.items())
           if n > MAX_LINES and name not in OWNED_ELSEWHERE]
    assert not big, "modules over %d lines (split them by concern):\n" % MAX_LINES + "\n".join(big)


def test_the_checks_see_what_they_refuse() -> None:
    """Not vacuous: the alias check finds the forms it forbids and lets a descriptive alias through; the walk
    sees both packages."""
    sample = "from . import rules as R\nimport json as json_mod\nfrom .x import y as long_name\n"
    assert _bad_aliases(sample, "s") == ["s:1: rules as R", "s:2: json as json_mod"]
    assert {_rel(path).split("/")[0] for path in _sources()} == set(PACKAGES)
