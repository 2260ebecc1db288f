"""A harness is described in one place: its name appears in the Python source of ``hooks/`` and ``installer/`` only in
its own modules (``hooks/harness/<name>.py``, ``installer/harness/<name>.py``) and the two registries that list them
(and ``hooks/harness/watched.py``, the registry's table of their files, which tests/test_harness_watched.py proves
equal to what each harness's module says). Docstrings may speak of a harness; code, strings and comments may not (a
path, a tool name, a setting of a harness named elsewhere is a second place for it)."""
import ast
import io
import os
import re
import tokenize

from agentguard.hooks.harness.registry import NAMES

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAMED = re.compile(r"(?<![a-z0-9])(%s)(?![a-z0-9])" % "|".join(NAMES), re.I)
REGISTRIES = ("hooks/harness/registry.py", "installer/harness/registry.py", "hooks/harness/watched.py")


def _docstrings(source):
    """(line, col) of every docstring's token."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                found.add((first.lineno, first.col_offset))
    return found


def harness_names(source):
    """[(line, name)] of the harness names in ``source``'s code, strings and comments."""
    docs = _docstrings(source)
    out = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in (tokenize.NAME, tokenize.STRING, tokenize.COMMENT) or token.start in docs:
            continue
        out += [(token.start[0], m.group(1).lower()) for m in NAMED.finditer(token.string)]
    return out


def _allowed(rel):
    """The harness a module may name (None: none; "*": every one)."""
    if rel in REGISTRIES:
        return "*"
    folder, name = os.path.split(rel)
    if folder in ("hooks/harness", "installer/harness") and name[:-3] in NAMES:
        return name[:-3]
    return None


def test_a_harness_is_named_only_in_its_own_modules():
    stray = []
    for top in ("hooks", "installer"):
        for folder, dirs, files in os.walk(os.path.join(ROOT, top)):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(f for f in files if f.endswith(".py")):
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, ROOT).replace(os.sep, "/")
                allowed = _allowed(rel)
                with open(path, encoding="utf-8") as fh:
                    found = harness_names(fh.read())
                named = ["%s:%d names %s" % (rel, line, harness) for line, harness in found
                         if allowed != "*" and harness != allowed]
                stray += named
    assert not stray, "a harness named outside its own modules:\n" + "\n".join(stray)


def test_the_scan_sees_code_strings_and_comments_but_not_docstrings():
    source = ('"""Claude Code is described in a docstring."""\n'
              'codex_trust = {".gemini/settings.json": 1}  # OpenCode\n'
              'def f():\n    """pi, as a docstring."""\n    return GPTME_TOML\n')
    assert harness_names(source) == [(2, "codex"), (2, "gemini"), (2, "opencode"), (5, "gptme")]
