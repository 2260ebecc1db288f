"""The runtime copy in ``<git common dir>/agentguard/runtime``: what the hooks execute."""
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
