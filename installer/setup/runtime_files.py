"""The runtime copy in ``<git common dir>/agentguard/runtime``: what the hooks execute."""
import importlib.util
import marshal
import os
import re
import stat
import subprocess
import sys
from importlib import resources

from ...hooks.outcome.store import write_atomic
from ...hooks.textsafe import safe
from ..errors import AgentguardError
from ..fsops import remove_stale_temps

RUNTIME_DIR = "runtime"
LAUNCHER = "run.py"
RUNTIME_SUFFIXES = (".py", ".json")  # code, and the git option table (hooks/gitmodel/options.json)


_FILES: dict = {}  # the package's runtime files, read once per process
_PYC: dict = {}  # {(rel, source hash): .pyc bytes}: each module compiled once per process


def runtime_files():
    """{relative path under runtime/: bytes} for the stdlib-only hook runtime."""
    if not _FILES:
        pkg = resources.files("agentguard.hooks")

        def walk(folder, prefix):
            for entry in sorted(folder.iterdir(), key=lambda e: e.name):
                if entry.is_dir() and entry.joinpath("__init__.py").is_file():
                    walk(entry, prefix + entry.name + "/")
                elif entry.is_file() and entry.name.endswith(RUNTIME_SUFFIXES):
                    _FILES[prefix + entry.name] = entry.read_bytes()
        walk(pkg, "hooks/")
        _FILES[LAUNCHER] = pkg.joinpath("launcher.py").read_bytes()
    return dict(_FILES)


def pyc_bytes(rel, source):
    """The hash-checked .pyc of the runtime module ``rel`` (e.g. ``hooks/main.py``) with ``source``:
    named for its place in the runtime, not for one repository, and compiled with every other module of
    the runtime in one fresh interpreter (``_compile_all``), so that the bytes depend on the sources and
    the interpreter alone (marshal writes a string's interned flag, which depends on what the process
    ran before): every repository, and a re-run after a kill, gets the same bytes."""
    digest = importlib.util.source_hash(source)
    key = (rel, digest)
    if key not in _PYC and not _PYC:
        _compile_all()
    if key not in _PYC:  # not the package's source: compiled here
        _PYC[key] = _pyc(digest, marshal.dumps(compile(source, "agentguard-runtime/" + rel, "exec", dont_inherit=True)))
    return _PYC[key]


def _pyc(digest, code):
    # what py_compile writes for CHECKED_HASH: magic, flags (hash-based, checked), source hash, code
    return importlib.util.MAGIC_NUMBER + (3).to_bytes(4, "little") + digest + code


_COMPILER = """import marshal, sys
out = [marshal.dumps(compile(src, "agentguard-runtime/" + rel.decode(), "exec", dont_inherit=True))
       for rel, src in marshal.loads(sys.stdin.buffer.read())]
sys.stdout.buffer.write(marshal.dumps(out))
"""


def _compile_all():
    """Compile the package's runtime modules in a fresh ``python -I -S`` (the hooks' interpreter)."""
    items = sorted((rel.encode(), data) for rel, data in runtime_files().items()
                   if rel.startswith("hooks/") and rel.endswith(".py"))
    proc = subprocess.run([os.path.realpath(sys.executable), "-I", "-S", "-B", "-c", _COMPILER],
                          input=marshal.dumps(items), capture_output=True, timeout=300)
    if proc.returncode != 0:
        why = safe(proc.stderr.decode("utf-8", "replace"), 300)
        raise AgentguardError("could not byte-compile the runtime: %s" % why)
    for (rel, data), code in zip(items, marshal.loads(proc.stdout)):
        digest = importlib.util.source_hash(data)
        _PYC[(rel.decode(), digest)] = _pyc(digest, code)


def prime():
    """Compile every runtime module now (before ``install --all`` forks its workers: each inherits them)."""
    if not _PYC:
        _compile_all()


_COMPILE_TEMP = re.compile(r"\.pyc\.[0-9]+\Z")  # what py_compile left (<name>.pyc.<number>) before agentguard 0.1.1


def compile_runtime(root, batch=None, pending=None):
    """Byte-compile the runtime with the hooks' interpreter, so that hooks (run with ``-B``) never
    write to the repository and start fast. Removes the temp files of a compile a kill interrupted.
    ``batch``: a ``durable.Batch`` the caller commits (else each .pyc is written durably at once);
    ``pending``: {path: (bytes, mode)} of the sources that batch writes before them (not in place yet)."""
    pending = pending or {}
    sources = {}  # {source path: (bytes, mode) or None: read from the disk}
    hooks = os.path.join(root, "hooks")
    for folder, dirs, names in os.walk(hooks):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        sources.update((os.path.join(folder, n), None) for n in names if n.endswith(".py"))
    sources.update((path, written) for path, written in pending.items()
                   if path.endswith(".py") and path.startswith(hooks + os.sep)
                   and "__pycache__" not in path[len(hooks):].split(os.sep))
    for cache in sorted({os.path.join(os.path.dirname(src), "__pycache__") for src in sources}):
        remove_stale_temps(cache, _COMPILE_TEMP)
        remove_stale_temps(cache)
    for src in sorted(sources, key=lambda p: (os.path.dirname(p), os.path.basename(p))):
        cfile = importlib.util.cache_from_source(src)
        if sources[src] is None:
            with open(src, "rb") as fh:
                source = fh.read()  # read once: what is compiled is what was compared
            mode = os.stat(src).st_mode
        else:
            source, mode = sources[src]
        if _compiled(source, cfile):
            continue  # compiling again can give other bytes (marshal): a change the after-check would see
        # hash-checked: a changed source is never shadowed by a stale .pyc (mode as importlib gives it)
        data = pyc_bytes(os.path.relpath(src, root).replace(os.sep, "/"), source)
        mode = (stat.S_IMODE(mode) | 0o200) & 0o666
        if batch is not None:
            batch.write(cfile, data, mode)
        else:
            write_atomic(cfile, data, mode, durable=True)


def _compiled(source, cfile):
    """True when ``cfile`` is a hash-checked .pyc of this interpreter for ``source`` (its bytes now)."""
    try:
        with open(cfile, "rb") as fh:
            head = fh.read(16)
    except OSError:
        return False
    return len(head) == 16 and head[:4] == importlib.util.MAGIC_NUMBER and head[4:8] == (3).to_bytes(4, "little") \
        and head[8:16] == importlib.util.source_hash(source)


def write_and_compile(files, root):
    """Write ``files`` ([(path, bytes, mode)]) and the compiled runtime under ``root`` (what they put
    there) in one durable batch: its renames go in order, so the sources are in place before their
    .pyc files, and one flush makes both durable."""
    from .durable import Batch
    batch = Batch()
    try:
        for path, data, mode in files:
            batch.write(path, data, mode)
        compile_runtime(root, batch, {path: (data, mode) for path, data, mode in files})
        batch.commit()
    finally:
        batch.discard()
