"""Hygiene: the hook scripts install writes are POSIX sh that shellcheck passes, the code passes ruff,
the runtime passes mypy, and the templates are valid source before substitution.

A linter that is not installed skips its test on a developer's machine (`sh scripts/test.sh` installs
them all) and fails it in CI (``CI`` set), where a skipped linter would pass silently."""
import ast
import glob
import os
import re
import shutil
import subprocess
import sys

import pytest

from agentguard.installer.setup.hookscripts import HOOK_NAMES, is_ours
from helpers import need, need_module

pytestmark = pytest.mark.one_git  # linters read the files; no git behaviour in it

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TEMPLATES = os.path.join(ROOT, "templates")


def rendered_scripts(repo):
    """{path: text} of every shell script install wrote: the hooks, the adapters' decision command
    and gptme's completion check."""
    paths = [os.path.join(".git", "hooks", name) for name in HOOK_NAMES]
    paths += [os.path.join(".git", "agentguard", "check"), os.path.join(".gptme", "verify-completion.sh"),
              os.path.join(".git", "agentguard", "push-guard")]
    out = {}
    for rel in paths:
        with open(os.path.join(repo.path, rel), "rb") as fh:
            out[rel] = fh.read()
    return out


def test_rendered_hook_scripts_pass_shellcheck_as_posix_sh(request):
    need("shellcheck", shutil.which("shellcheck"))
    make_repo = request.getfixturevalue("make_repo")
    # A plain install, and one that chains a user's sh hook and a user's Python hook and protects
    # patterns with every character the policy lets through into the case patterns and the grep ERE.
    plain, _ = make_repo("plain")
    chained, _ = make_repo("chained", install=False)
    hooks = os.path.join(chained.path, ".git", "hooks")
    for name, text in (("pre-commit", "#!/bin/sh\necho user hook\n"),
                       ("pre-push", "#!/usr/bin/env python3\nprint('user hook')\n")):
        with open(os.path.join(hooks, name), "w") as fh:
            fh.write(text)
        os.chmod(os.path.join(hooks, name), 0o755)
    chained.agentguard("install", "--protect", "main", "--protect", "release/*",
                       "--protect", "v1.0+(x)|{y}", "--protect", "rel[ab]?-&;<>#!")
    assert os.path.exists(os.path.join(hooks, "pre-commit.agentguard-chained"))
    for repo in (plain, chained):
        scripts = rendered_scripts(repo)
        for rel, data in scripts.items():
            assert data.startswith(b"#!/bin/sh\n"), "%s is not a POSIX sh script" % rel
        for name in HOOK_NAMES:
            assert is_ours(scripts[os.path.join(".git", "hooks", name)]), name
        proc = subprocess.run(["shellcheck", "--shell=sh", "--format=gcc", *scripts], cwd=repo.path,
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0 and not proc.stdout.strip(), proc.stdout + proc.stderr


def test_ruff_passes():
    need_module("ruff")
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format=concise", "."],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_passes_on_the_runtime(tmp_path):
    need_module("mypy")
    # what to check and how: [tool.mypy] in pyproject.toml
    proc = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache")],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_templates_are_valid_source_before_substitution():
    """A placeholder sits where the template still parses: Python templates compile as they are,
    and in the TypeScript one every placeholder is a whole string literal."""
    py = glob.glob(os.path.join(TEMPLATES, "**", "*.py"), recursive=True)
    assert any(p.endswith(os.path.join("adapters", "client.py")) for p in py)
    for path in py:
        with open(path, encoding="utf-8") as fh:
            ast.parse(fh.read(), path)
    seen = []
    for path in glob.glob(os.path.join(TEMPLATES, "**", "*.ts"), recursive=True):
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        placeholders = re.findall(r"@[A-Z_]+@", text)
        seen += placeholders
        assert len(re.findall(r'"@[A-Z_]+@"', text)) == len(placeholders), path
    assert seen  # pi's extension has them (Amp's plugin needs none)
