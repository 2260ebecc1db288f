"""The runtime copy install recorded, byte for byte, and the Python and tools that run it (the
client's doctor and the server's read it alike)."""
import importlib.util
import os
import subprocess
import sys

from ....hooks.textsafe import safe
from ...harness import hookcommand
from ...errors import AgentguardError
from ...fsops import read_regular, sha256_bytes
from ...setup.hookscripts import tool_problems
from ...setup.runtime_files import RUNTIME_DIR, launcher_constant
from .base import FIX_ALL, REINSTALL


def check_runtime(ctx):
    if ctx.record is None:
        return
    runtime_check(ctx.info, ctx.record, ctx.add, FIX_ALL, REINSTALL)


def runtime_check(info, record, add, fix_, repair=None):
    """The runtime copy install recorded, byte for byte, and the Python that runs it (this doctor's and
    the server's). ``add``: the caller's ``Results.add``; ``fix_``/``repair``: what mends a failure there."""
    home = os.path.join(info.ag_home, RUNTIME_DIR)
    problems = []
    for rel, digest in sorted((record.get("runtime") or {}).items()):
        try:
            data = read_regular(os.path.join(home, rel))
        except AgentguardError:
            data = None
        if data is None:
            problems.append("%s is missing" % rel)
        elif sha256_bytes(data) != digest:
            problems.append("%s was modified" % rel)
    hook = os.path.join(info.ag_home, hookcommand.HOOK_FILE)  # what every settings entry runs
    owned = (record.get("owned") or {}).get(hook)
    if isinstance(owned, list) and owned:
        try:
            data = read_regular(hook)
        except AgentguardError:
            data = None
        if data is None or sha256_bytes(data) != owned[0]:
            problems.append("%s is %s" % (info.display(hook), "missing" if data is None else "modified"))
    python = record.get("python") or ""
    if not (python and os.path.isfile(python) and os.access(python, os.X_OK)):
        problems.append("the Python the hooks run (%s) is gone" % safe(python, 200))
    problems += [safe(p, 300) for p in tool_problems(record.get("tools"))]
    if problems:
        add("runtime.files", "fail", "runtime in %s: %s" % (info.display(home), "; ".join(problems[:3])), fix_, repair)
    elif not compiled_for(python, os.path.join(home, launcher_constant("COMPILED"))):
        add("runtime.files", "warn", "runtime copy intact, but its compiled file is for another Python than %s: "
            "each hook compiles every module it imports (~10x slower)" % safe(python, 200), fix_, repair)
    else:
        add("runtime.files", "pass", "runtime copy intact; hooks run %s -I -S -B" % safe(python, 200))


_MAGIC: dict = {}  # {python: its bytecode magic}, asked once per process


def compiled_for(python, path):
    """True unless the compiled file at ``path`` holds bytecode ``python`` does not run (no file: True, the
    record says whether one is missing)."""
    try:
        data = read_regular(path, 64)
    except AgentguardError:
        data = None  # not a regular file: the record's comparison says so
    if data is None:
        return True
    if python not in _MAGIC:
        if os.path.realpath(python) == os.path.realpath(sys.executable):
            _MAGIC[python] = importlib.util.MAGIC_NUMBER
        else:
            try:
                proc = subprocess.run([python, "-I", "-S", "-c", "import importlib.util, sys; "
                                       "sys.stdout.write(importlib.util.MAGIC_NUMBER.hex())"],
                                      capture_output=True, text=True, timeout=30)
                _MAGIC[python] = bytes.fromhex(proc.stdout.strip()) if proc.returncode == 0 else None
            except (OSError, ValueError, subprocess.SubprocessError):
                _MAGIC[python] = None
    return data.startswith(launcher_constant("COMPILED_HEAD") + (_MAGIC[python] or b"?"))


