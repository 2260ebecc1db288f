"""The runtime copy in ``<git common dir>/agentguard/runtime``: what the hooks execute."""
import importlib.util
import os
import py_compile
import re
from importlib import resources

from .fsops import remove_stale_temps

RUNTIME_DIR = "runtime"
LAUNCHER = "run.py"


def runtime_files():
    """{relative path under runtime/: bytes} for the stdlib-only hook runtime."""
    pkg = resources.files("agentguard.hooks")
    files = {}
    for entry in sorted(pkg.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".py") and entry.is_file():
            files["hooks/" + entry.name] = entry.read_bytes()
    files[LAUNCHER] = pkg.joinpath("launcher.py").read_bytes()
    return files


_COMPILE_TEMP = re.compile(r"\.pyc\.[0-9]+\Z")  # importlib writes <name>.pyc.<number>, then renames it


def compile_runtime(root):
    """Byte-compile the runtime with the hooks' interpreter, so that hooks (run with ``-B``) never
    write to the repository and start fast. Removes the temp files of a compile a kill interrupted."""
    hooks = os.path.join(root, "hooks")
    remove_stale_temps(os.path.join(hooks, "__pycache__"), _COMPILE_TEMP)
    for name in sorted(os.listdir(hooks)):
        if name.endswith(".py"):
            src = os.path.join(hooks, name)
            # hash-checked: the same bytes at every install (no timestamps), and a changed source is
            # never shadowed by a stale .pyc
            py_compile.compile(src, cfile=importlib.util.cache_from_source(src), doraise=True,
                               invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
