"""The runtime copy in ``<git common dir>/agentguard/runtime``: what the hooks execute."""
import importlib.util
import os
import py_compile
import re
from importlib import resources

from ..fsops import remove_stale_temps

RUNTIME_DIR = "runtime"
LAUNCHER = "run.py"
RUNTIME_SUFFIXES = (".py", ".json")  # code, and the git option table (hooks/gitmodel/options.json)


def runtime_files():
    """{relative path under runtime/: bytes} for the stdlib-only hook runtime."""
    pkg = resources.files("agentguard.hooks")
    files = {}

    def walk(folder, prefix):
        for entry in sorted(folder.iterdir(), key=lambda e: e.name):
            if entry.is_dir() and entry.joinpath("__init__.py").is_file():
                walk(entry, prefix + entry.name + "/")
            elif entry.is_file() and entry.name.endswith(RUNTIME_SUFFIXES):
                files[prefix + entry.name] = entry.read_bytes()
    walk(pkg, "hooks/")
    files[LAUNCHER] = pkg.joinpath("launcher.py").read_bytes()
    return files


_COMPILE_TEMP = re.compile(r"\.pyc\.[0-9]+\Z")  # importlib writes <name>.pyc.<number>, then renames it


def compile_runtime(root):
    """Byte-compile the runtime with the hooks' interpreter, so that hooks (run with ``-B``) never
    write to the repository and start fast. Removes the temp files of a compile a kill interrupted."""
    for folder, dirs, names in os.walk(os.path.join(root, "hooks")):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        remove_stale_temps(os.path.join(folder, "__pycache__"), _COMPILE_TEMP)
        for name in sorted(n for n in names if n.endswith(".py")):
            src = os.path.join(folder, name)
            cfile = importlib.util.cache_from_source(src)
            if _compiled(src, cfile):
                continue  # compiling again can give other bytes (marshal): a change the after-check would see
            # hash-checked: a changed source is never shadowed by a stale .pyc
            py_compile.compile(src, cfile=cfile, doraise=True,
                               invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)


def _compiled(src, cfile):
    """True when ``cfile`` is a hash-checked .pyc of this interpreter for ``src`` as it is now."""
    try:
        with open(src, "rb") as fh:
            source = fh.read()
        with open(cfile, "rb") as fh:
            head = fh.read(16)
    except OSError:
        return False
    return len(head) == 16 and head[:4] == importlib.util.MAGIC_NUMBER and head[4:8] == (3).to_bytes(4, "little") \
        and head[8:16] == importlib.util.source_hash(source)
