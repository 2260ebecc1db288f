"""The runtime copy in ``<git common dir>/agentguard/runtime``: what the hooks execute."""
import ast
import hashlib
import importlib.util
import marshal
import os
import re
import subprocess
import sys
from importlib import resources

from ...hooks.outcome.store import write_atomic
from ...hooks.saferead import read_regular
from ...hooks.textsafe import safe
from ..errors import AgentguardError
from ..fsops import remove_stale_temps

RUNTIME_DIR = "runtime"
LAUNCHER = "run.py"
RUNTIME_SUFFIXES = (".py", ".json")  # code, and the git option table (hooks/gitmodel/options.json)


_SOURCES: dict = {}  # the package's runtime sources and launcher, read once per process
_FILES: dict = {}  # and with them the compiled file: the runtime install writes
_BUNDLES: dict = {}  # {the sources' key (``_key``): the compiled file's bytes}: compiled once per process


def _package_files():
    if not _SOURCES:
        pkg = resources.files("agentguard.hooks")

        def walk(folder, prefix):
            for entry in sorted(folder.iterdir(), key=lambda e: e.name):
                if entry.is_dir() and entry.joinpath("__init__.py").is_file():
                    walk(entry, prefix + entry.name + "/")
                elif entry.is_file() and entry.name.endswith(RUNTIME_SUFFIXES):
                    _SOURCES[prefix + entry.name] = entry.read_bytes()
        walk(pkg, "hooks/")
        _SOURCES[LAUNCHER] = pkg.joinpath("launcher.py").read_bytes()
    return _SOURCES


def runtime_files():
    """{relative path under runtime/: bytes} of the stdlib-only hook runtime: the sources, the launcher
    (``run.py``) and, after them (a batch puts it in place last), the sources compiled in one file (the
    launcher's ``COMPILED``)."""
    if not _FILES:
        _FILES.update(_package_files())
        _FILES[launcher_constant("COMPILED")] = bundle_bytes(package_sources())
    return dict(_FILES)


def launcher_constant(name):
    """The value the launcher (``hooks/launcher.py``, which only runs) gives ``name``: the compiled file's name
    and head are its (its assignments parsed once per process: the doctor asks for each repository)."""
    if not _CONSTANTS:
        for node in ast.parse(_package_files()[LAUNCHER]).body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                try:
                    _CONSTANTS[node.targets[0].id] = ast.literal_eval(node.value)
                except ValueError:
                    continue  # not a literal
    return _CONSTANTS[name]


_CONSTANTS: dict = {}


def _key(sources):
    return hashlib.sha256(marshal.dumps(sorted(sources.items()))).hexdigest()


def bundle_bytes(sources):
    """The compiled runtime (the launcher's ``COMPILED``) of ``sources`` ({path under runtime/, ``hooks/...py``:
    bytes}): the launcher's ``COMPILED_HEAD``, the interpreter's bytecode magic, then {module name: (is
    package, path, marshalled code)}. Made whole in one fresh ``python -I -S`` (the hooks' interpreter), so that the
    bytes depend on the sources and the interpreter alone (marshal writes a string's interned flag and its
    references by what the process ran before): every repository, and a re-run after a kill, gets the same
    bytes."""
    key = _key(sources)
    if key not in _BUNDLES:
        _BUNDLES[key] = _cached(key) or _keep(key, _compile(sources))
    return _BUNDLES[key]


def _compile(sources):
    items = sorted((rel.encode(), data) for rel, data in sources.items())
    proc = subprocess.run([os.path.realpath(sys.executable), "-I", "-S", "-B", "-c", _COMPILER],
                          input=marshal.dumps(items), capture_output=True, timeout=300)
    if proc.returncode != 0:
        why = safe(proc.stderr.decode("utf-8", "replace"), 300)
        raise AgentguardError("could not byte-compile the runtime: %s" % why)
    return launcher_constant("COMPILED_HEAD") + importlib.util.MAGIC_NUMBER + proc.stdout


# Compiling is ~0.15 s of CPU, a quarter of an install: each compiled runtime is kept for the next install in
# this package's own __pycache__ (beside the installer's .pyc, which Python runs: whoever can write there can
# already change what install writes, so it is trusted as the package's code is). A package folder install
# cannot write to (a system-wide install) keeps nothing: each install compiles. Named for the sources and
# the interpreter; the bytes end with their own sha256 (a cut file is not taken).
CACHE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "__pycache__")


def _cache_path(key):
    which = "%s\0%s\0%s" % (os.path.realpath(sys.executable), sys.version, importlib.util.MAGIC_NUMBER.hex())
    return os.path.join(CACHE, "runtime-%s.marshal" % hashlib.sha256((key + which).encode()).hexdigest()[:32])


def _cached(key):
    data = read_regular(_cache_path(key), 64 << 20)
    if data is None or len(data) < 32 or hashlib.sha256(data[:-32]).digest() != data[-32:]:
        return None
    return data[:-32]


def _keep(key, data):
    """Keep ``data`` as the one compiled runtime of the cache (an earlier one: of sources since changed)."""
    path = _cache_path(key)
    try:
        write_atomic(path, data + hashlib.sha256(data).digest(), 0o644)
        for name in os.listdir(CACHE):
            if name.startswith("runtime-") and name.endswith(".marshal") and name != os.path.basename(path):
                os.unlink(os.path.join(CACHE, name))
    except OSError:
        pass
    return data


_COMPILER = """import marshal, sys
table = {}
for rel, src in marshal.loads(sys.stdin.buffer.read()):
    rel = rel.decode()
    package = rel.endswith("/__init__.py")
    name = (rel.rsplit("/", 1)[0] if package else rel[:-3]).replace("/", ".")
    code = compile(src, "agentguard-runtime/" + rel, "exec", dont_inherit=True)
    table[name] = (package, rel, marshal.dumps(code))
sys.stdout.buffer.write(marshal.dumps(table))
"""


def package_sources():
    """The package's runtime modules, as ``bundle_bytes`` takes them."""
    return {rel: data for rel, data in _package_files().items() if rel.startswith("hooks/") and rel.endswith(".py")}


def prime():
    """Compile the package's runtime now (before ``install --all`` forks its workers: each inherits it)."""
    runtime_files()


_COMPILE_TEMP = re.compile(r"\.pyc\.[0-9]+\Z")  # what py_compile left (<name>.pyc.<number>) before agentguard 0.1.1


def clean_runtime(root):
    """Take away what an earlier version or a killed install left in the runtime at ``root``: the
    per-module ``.pyc`` files (``__pycache__``) of versions before the compiled file, and temp files."""
    for folder, dirs, _ in os.walk(os.path.join(root, "hooks")):
        if "__pycache__" in dirs:
            cache = os.path.join(folder, "__pycache__")
            remove_stale_temps(cache, _COMPILE_TEMP)
            remove_stale_temps(cache)
            _remove_compiled(cache)
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")


def _remove_compiled(cache):
    """An earlier version's ``__pycache__`` of runtime modules: its ``.pyc`` files, then the folder (anything
    else in it is left, and the folder with it)."""
    for name in sorted(os.listdir(cache)):
        if name.endswith(".pyc"):
            os.unlink(os.path.join(cache, name))
    try:
        os.rmdir(cache)
    except OSError:
        pass


def write_runtime(files, root):
    """Write ``files`` ([(path, bytes, mode)], among them the runtime under ``root``: ``runtime_files``'
    order, the compiled file after the sources) in one durable batch: its renames go in order and one flush
    makes them all durable; then ``clean_runtime``."""
    from .durable import Batch
    batch = Batch()
    try:
        for path, data, mode in files:
            batch.write(path, data, mode)
        batch.commit()
    finally:
        batch.discard()
    clean_runtime(root)
