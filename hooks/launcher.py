"""Copied to ``<git common dir>/agentguard/runtime/run.py``; the hook scripts run it as
``python -I -S -B run.py <hook> <git-pid> [args]``. Isolated mode ignores PYTHONPATH, PYTHONHOME,
PYTHONSTARTUP and user site-packages, ``-S`` skips site-packages: only the stdlib and the
runtime copy next to this file are importable. Python compiles this file on every run: it only reads
the compiled file install wrote (``COMPILED``: every module of ``hooks/``) and runs ``hooks/entry.py``
from it; with no such file, or one for another interpreter's bytecode (a Python upgraded under the
runtime), it runs the sources beside it."""
import marshal
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
COMPILED = "hooks.marshal"  # installer/setup/runtime_files.py writes it
COMPILED_HEAD = b"agentguard compiled runtime 1\n"  # then the bytecode magic, then {module: (package, path, code)}


def compiled():
    """(the compiled file's table, ``hooks.entry``'s code), or (None, None)."""
    magic = getattr(sys.modules.get("_frozen_importlib_external"), "MAGIC_NUMBER", None)
    if not isinstance(magic, bytes):
        return None, None
    try:
        with open(os.path.join(HERE, COMPILED), "rb") as fh:
            data = fh.read()
        head = COMPILED_HEAD + magic
        table = marshal.loads(memoryview(data)[len(head):]) if data.startswith(head) else {}
        return table, marshal.loads(table["hooks.entry"][2])
    except (OSError, ValueError, EOFError, TypeError, LookupError):
        return None, None


TABLE, code = compiled()
if code is None:
    TABLE, source = None, os.path.join(HERE, "hooks", "entry.py")
    with open(source, "rb") as fh:
        code = compile(fh.read(), source, "exec")
exec(code)
