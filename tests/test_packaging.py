"""Installed, everything lives under the one import name `agentguard`."""
import os
import subprocess
import sys
import zipfile

import pytest

pytestmark = pytest.mark.one_git  # the wheel, not git

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_wheel_has_one_top_level_package(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w",
                    str(tmp_path), ROOT], check=True, capture_output=True, cwd=str(tmp_path))
    wheel = [p for p in os.listdir(tmp_path) if p.endswith(".whl")][0]
    names = zipfile.ZipFile(os.path.join(tmp_path, wheel)).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"agentguard"}
    for sub in ("hooks/backstop/reftx.py", "hooks/analyser/gitrules/remote.py", "hooks/gitmodel/options.json",
                "installer/cli.py", "templates/git-hooks/reference-transaction",
                "templates/git-hooks/lib.sh"):
        assert "agentguard/" + sub in names
    for top in ("hooks", "installer"):  # every package of the source tree, so a new one cannot be left out
        for folder, dirs, files in os.walk(os.path.join(ROOT, top)):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            if "__init__.py" in files:
                rel = os.path.relpath(os.path.join(folder, "__init__.py"), ROOT).replace(os.sep, "/")
                assert "agentguard/" + rel in names, "%s is not in the wheel (pyproject.toml packages)" % rel
    assert not [n for n in names if "tests/" in n or "__pycache__" in n]


def test_runtime_is_stdlib_only():
    """The hook runtime imports nothing outside the standard library and itself."""
    hooks = os.path.join(ROOT, "hooks")
    import ast
    stdlib = set(sys.stdlib_module_names)
    for name in os.listdir(hooks):
        if not name.endswith(".py"):
            continue
        tree = ast.parse(open(os.path.join(hooks, name)).read())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                mods = [a.name.split(".")[0] for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                mods = [] if node.level else [node.module.split(".")[0]]
                if name == "entry.py" and node.module in (
                        "hooks.main", "hooks.analyser.check", "hooks.harness.hook", "hooks.pushguard.helper",
                        "hooks.pushguard.relay",
                        "hooks.server.prereceive"):
                    mods = []  # the runtime copy's own package
            else:
                continue
            for mod in mods:
                assert mod in stdlib, "%s imports %s" % (name, mod)
