"""The runtime copy's modules are compiled into one file (``runtime/hooks.marshal``): the launcher
(``run.py``, hooks/launcher.py: Python compiles it on every run, so it is small) runs ``hooks/entry.py``
from it, which imports every ``hooks.*`` module from it (``Compiled``): one read instead of a source, its
hash and a ``.pyc`` per module, and the after-check compares one file instead of a hundred. The sources
stay beside it: with no compiled file, or one for another interpreter, the launcher runs them."""
import hashlib
import importlib.util
import json
import marshal
import os
import subprocess

from agentguard.installer.setup import runtime_files
from agentguard.installer.setup.runtime_files import launcher_constant, package_sources

HEAD = b"agentguard compiled runtime 1\n"
PUSH = "git push origin HEAD:main"


def runtime(repo):
    return os.path.join(repo.path, ".git", "agentguard", "runtime")


def checked(repo, command):
    """(exit status, decision) of the runtime copy's check of ``command``, as an adapter runs it."""
    proc = subprocess.run([os.path.join(repo.path, ".git", "agentguard", "check"), "--json", "--", command],
                          cwd=repo.path, env=repo.env, capture_output=True, text=True, timeout=60)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, json.loads(proc.stdout)["decision"]


def loaders(repo):
    """{module: its loader's class name} of the runtime's modules, as the launcher imports them."""
    with open(os.path.join(repo.path, ".git", "agentguard", "check")) as fh:
        python = fh.read().split("exec '")[1].split("'")[0]
    run_py = os.path.join(runtime(repo), "run.py")
    script = ("import os, sys; run = sys.argv[1]; sys.argv = [run, 'check', '--help']; os._exit = lambda s: None\n"
              "try:\n    exec(compile(open(run).read(), run, 'exec'), {'__file__': run, '__name__': '__main__'})\n"
              "finally:\n    sys.stderr.write('LOADERS ' + ' '.join('%s=%s' % (n, type(m.__spec__.loader).__name__)"
              " for n, m in sorted(sys.modules.items()) if n.startswith('hooks')) + '\\n')\n")
    proc = subprocess.run([python, "-I", "-S", "-B", "-c", script, run_py], cwd=repo.path, env=repo.env,
                          capture_output=True, text=True, timeout=60)
    line = [x for x in proc.stderr.splitlines() if x.startswith("LOADERS ")]
    assert line, proc.stderr
    return dict(item.split("=") for item in line[-1].split()[1:])


def test_the_launchers_names_are_the_installers():
    assert launcher_constant("COMPILED") == "hooks.marshal" and launcher_constant("COMPILED_HEAD") == HEAD


def test_install_writes_one_compiled_file_and_the_launcher_imports_from_it(guarded):
    repo, bare = guarded
    here = runtime(repo)
    pycs = [os.path.join(d, n) for d, _, names in os.walk(here) for n in names if n.endswith(".pyc")]
    assert not pycs and not [d for d, _, _ in os.walk(here) if d.endswith("__pycache__")]
    data = open(os.path.join(here, "hooks.marshal"), "rb").read()
    assert data.startswith(HEAD + importlib.util.MAGIC_NUMBER)
    table = marshal.loads(data[len(HEAD) + 4:])
    assert sorted(rel for _, rel, _ in table.values()) == sorted(package_sources())
    assert table["hooks"][:2] == (True, "hooks/__init__.py")
    assert table["hooks.analyser.check"][:2] == (False, "hooks/analyser/check.py")
    seen = loaders(repo)
    assert seen and set(seen.values()) == {"Compiled"}, seen
    # the sources are not what runs: one made to fail changes nothing
    with open(os.path.join(here, "hooks", "analyser", "check.py"), "ab") as fh:
        fh.write(b"\nraise SystemExit(99)\n")
    assert checked(repo, PUSH) == (1, "block")
    assert checked(repo, "git status") == (0, "allow")


def test_without_the_compiled_file_or_with_another_interpreters_the_sources_run(guarded):
    repo, bare = guarded
    path = os.path.join(runtime(repo), "hooks.marshal")
    data = open(path, "rb").read()
    wrong = bytes([data[len(HEAD)] ^ 0xFF]) + data[len(HEAD) + 1:]
    for forged in (None, HEAD + wrong, b"", HEAD + importlib.util.MAGIC_NUMBER + b"\x00cut"):
        if forged is None:
            os.unlink(path)
        else:
            with open(path, "wb") as fh:
                fh.write(forged)
        seen = loaders(repo)
        assert "Compiled" not in seen.values() and seen["hooks.analyser.check"] == "SourceFileLoader", seen
        assert checked(repo, PUSH) == (1, "block")
        assert checked(repo, "git status") == (0, "allow")
    assert not [d for d, _, _ in os.walk(runtime(repo)) if d.endswith("__pycache__")]  # -B: nothing written
    repo.agentguard("install")
    assert open(path, "rb").read() == data


def test_install_over_an_earlier_versions_compiled_modules_takes_them_away(guarded):
    """Versions before the compiled file wrote a ``__pycache__`` of ``.pyc`` files beside each package (and
    a launcher of their own: install writes the runtime again)."""
    repo, bare = guarded
    os.unlink(os.path.join(runtime(repo), "hooks.marshal"))
    with open(os.path.join(runtime(repo), "run.py"), "ab") as fh:
        fh.write(b"# an earlier version\n")
    cache = os.path.join(runtime(repo), "hooks", "outcome", "__pycache__")
    os.makedirs(cache)
    for name in ("after.cpython-311.pyc", "store.cpython-311.pyc", "store.cpython-311.pyc.1234"):
        with open(os.path.join(cache, name), "wb") as fh:
            fh.write(b"old")
    repo.agentguard("install")
    assert not os.path.exists(cache) and os.path.exists(os.path.join(runtime(repo), "hooks.marshal"))
    assert checked(repo, PUSH) == (1, "block")


def test_the_compiled_file_fits_what_the_after_check_keeps():
    """The after-check keeps the bytes of each watched file up to ``store.MAX_FILE`` to put it back."""
    from agentguard.hooks.outcome import store
    assert len(runtime_files.bundle_bytes(package_sources())) < store.MAX_FILE // 2


def test_a_call_that_changes_or_deletes_the_compiled_file_has_it_put_back(guarded):
    """The compiled file is one of the guard's files: the after-check puts it back and says so (here the
    backstop's module, which the after-check does not run, made to decide nothing)."""
    repo, bare = guarded
    path = os.path.join(runtime(repo), "hooks.marshal")
    data = open(path, "rb").read()
    check = os.path.join(repo.path, ".git", "agentguard", "check")

    def call(change):
        subprocess.run([check, "--", "ls"], cwd=repo.path, env=repo.env, capture_output=True, timeout=60, check=True)
        change()
        proc = subprocess.run([check, "--after", "--json"], cwd=repo.path, env=repo.env, capture_output=True,
                              text=True, stdin=subprocess.DEVNULL, timeout=60)
        return json.loads(proc.stdout)

    def tamper():
        table = marshal.loads(data[len(HEAD) + 4:])
        table["hooks.backstop.branchhooks"] = (False, "hooks/backstop/branchhooks.py",
                                               marshal.dumps(compile("X = 1\n", "x", "exec")))
        with open(path, "wb") as fh:
            fh.write(HEAD + importlib.util.MAGIC_NUMBER + marshal.dumps(table))
    for change in (tamper, lambda: os.unlink(path)):
        report = call(change)
        assert report["decision"] != "unchanged" and "hooks.marshal" in json.dumps(report), report
        assert open(path, "rb").read() == data
    assert checked(repo, PUSH) == (1, "block")
    assert call(lambda: None)["decision"] == "unchanged"


def test_the_launcher_python_compiles_on_every_run_is_small():
    """run.py is compiled from its source on every hook run (a script is never cached): it reads the
    compiled file and runs the rest from it. (Its whole source was ~0.4 ms of CPU to compile.)"""
    source = runtime_files.runtime_files()["run.py"]
    code = compile(source, "run.py", "exec")
    assert len(source) < 2500 and len([c for c in code.co_consts if hasattr(c, "co_code")]) <= 1


def test_install_compiles_each_runtime_once_and_keeps_it_in_the_packages_own_cache(tmp_path, monkeypatch):
    """Compiling is a quarter of an install: the compiled file is kept in the package's __pycache__ (as
    writable as the installer's own code) for the next install, checked whole on reading; a cut one is
    compiled again, and a folder it cannot write to keeps nothing."""
    monkeypatch.setattr(runtime_files, "CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(runtime_files, "_BUNDLES", {})
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "runtime-0123.marshal").write_bytes(b"of sources since changed")
    sources = dict(package_sources())
    sources["hooks/extra.py"] = b"X = %d\n" % os.getpid()  # sources no earlier run compiled
    fresh = runtime_files.bundle_bytes(sources)
    kept = os.listdir(tmp_path / "cache")
    assert len(kept) == 1 and kept[0].startswith("runtime-") and kept[0].endswith(".marshal")
    runs = []
    real_run = subprocess.run
    monkeypatch.setattr(runtime_files.subprocess, "run", lambda *a, **k: (runs.append(a), real_run(*a, **k))[1])
    monkeypatch.setattr(runtime_files, "_BUNDLES", {})  # the next install's process
    assert runtime_files.bundle_bytes(sources) == fresh and runs == []
    path = tmp_path / "cache" / kept[0]
    path.write_bytes(path.read_bytes()[:-100])  # cut
    monkeypatch.setattr(runtime_files, "_BUNDLES", {})
    assert runtime_files.bundle_bytes(sources) == fresh and len(runs) == 1
    assert path.read_bytes()[:-32] == fresh
    monkeypatch.setattr(runtime_files, "CACHE", str(tmp_path / "file" / "cache"))
    (tmp_path / "file").write_bytes(b"")  # a folder that cannot be made
    monkeypatch.setattr(runtime_files, "_BUNDLES", {})
    assert runtime_files.bundle_bytes(sources) == fresh and len(runs) == 2


def test_the_doctor_warns_of_a_compiled_file_for_another_python(guarded):
    """A Python upgraded under the runtime (another bytecode magic): the hooks still guard, from the
    sources, but compile every module on each run; the doctor says so and install mends it."""
    from helpers import doctor_report
    repo, bare = guarded
    path = os.path.join(runtime(repo), "hooks.marshal")
    data = open(path, "rb").read()
    checks, _ = doctor_report(repo)
    assert checks["runtime.files"]["status"] == "pass"
    with open(path, "wb") as fh:  # what an install by another Python wrote, recorded as such
        fh.write(HEAD + b"\x00\x00\r\n" + data[len(HEAD) + 4:])
    record_path = os.path.join(repo.path, ".git", "agentguard", "manifest.json")
    record = json.load(open(record_path))
    record["runtime"]["hooks.marshal"] = hashlib.sha256(open(path, "rb").read()).hexdigest()
    with open(record_path, "w") as fh:
        json.dump(record, fh)
    checks, _ = doctor_report(repo)
    assert checks["runtime.files"]["status"] == "warn" and "another Python" in checks["runtime.files"]["summary"]
    assert checked(repo, PUSH) == (1, "block")
    repo.agentguard("install")
    assert open(path, "rb").read() == data and doctor_report(repo)[0]["runtime.files"]["status"] == "pass"
