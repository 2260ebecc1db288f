"""The runtime copy in ``<git common dir>/agentguard/runtime``: what the hooks execute."""
import importlib.util
import os
import py_compile
from importlib import resources

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


def compile_runtime(root):
    """Byte-compile the runtime with the hooks' interpreter, so that hooks (run with ``-B``) never
    write to the repository and start fast."""
    hooks = os.path.join(root, "hooks")
    for name in sorted(os.listdir(hooks)):
        if name.endswith(".py"):
            src = os.path.join(hooks, name)
            py_compile.compile(src, cfile=importlib.util.cache_from_source(src), doraise=True)
