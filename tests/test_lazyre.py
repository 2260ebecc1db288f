"""The pre-check of an ordinary command loads no ``re`` (with it ``enum``, ``functools``, ``collections``:
~4 ms of CPU, half the interpreter's start, on every tool call): ``hooks/lazyre.py`` gives patterns
compiled when first used and ``re``'s functions imported when first called. What the analyser
answers is unchanged: the same patterns, the same flags, the same answers; the few places that
stopped asking ``re`` on the common path answer as the regex they replace."""
import json
import os
import random
import re
import subprocess

import pytest

from agentguard.hooks import lazyre
from agentguard.hooks.analyser import constructs
from agentguard.hooks.analyser.decision import verdict

CHECK = os.path.join(".git", "agentguard", "check")


def test_the_flags_are_res():
    assert (lazyre.I, lazyre.M, lazyre.S, lazyre.X) == (re.I, re.M, re.S, re.X)
    assert (lazyre.IGNORECASE, lazyre.MULTILINE, lazyre.DOTALL, lazyre.VERBOSE) == \
        (re.IGNORECASE, re.MULTILINE, re.DOTALL, re.VERBOSE)


def _corpus(seed=30, n=400):
    rng = random.Random(seed)
    alphabet = "gitGIT-./\\$'\"`()=+ \t\n0123456789abcxyz_#%&|;<>*?[]{}"
    texts = ["", "git", "git push", "python3.11", "pip3", "node.", "a\n", "x1\n", "1\n2", "$'g\\x69t'", "'g''it'"]
    return texts + ["".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 24))) for _ in range(n)]


PATTERNS = [(r"\bgit\b", 0), (r"[0-9.]+$", 0), (r"['\"\\]", 0), (r"[A-Za-z_][A-Za-z0-9_]*\+?=", 0),
            (r"\$'((?:[^'\\]|\\.)*)'", re.S), (r"GIT|Hooks", re.I), (r"^\d+$", re.M)]


def test_the_module_functions_answer_as_res():
    for text in _corpus():
        for pattern, flags in PATTERNS:
            assert lazyre.sub(pattern, "", text, flags=flags) == re.sub(pattern, "", text, flags=flags)
            assert lazyre.sub(pattern, "<\\g<0>>", text, 1, flags) == re.sub(pattern, "<\\g<0>>", text, 1, flags)
            for name in ("match", "fullmatch", "search"):
                got, want = getattr(lazyre, name)(pattern, text, flags), getattr(re, name)(pattern, text, flags)
                assert (got and (got.span(), got.groups())) == (want and (want.span(), want.groups()))
            assert lazyre.findall(pattern, text, flags) == re.findall(pattern, text, flags)
            assert [m.span() for m in lazyre.finditer(pattern, text, flags)] == \
                [m.span() for m in re.finditer(pattern, text, flags)]
        assert lazyre.escape(text) == re.escape(text)


def test_a_lazy_pattern_is_res_and_a_pattern_made_by_a_function_is_made_when_first_used():
    made = []

    def text():
        made.append(1)
        return r"\bgit\b|hooks"
    lazy = lazyre.compile(text, lazyre.I)
    assert made == []
    for sample in _corpus():
        want = re.search(r"\bgit\b|hooks", sample, re.I)
        got = lazy.search(sample)
        assert (got and got.span()) == (want and want.span())
    assert made == [1] and lazy.pattern == r"\bgit\b|hooks" and lazy.flags == re.compile("x", re.I).flags


def test_involves_is_the_pattern_it_was_and_names_nothing_in_empty_text():
    """``analyse`` skips INVOLVES for a command nothing is piped into (``unseen == ""``): sound only while
    the empty text matches none of its alternatives."""
    from agentguard.hooks.harness import registry
    parts = [r"\bgit\b", r"\bgit-", r"\.git\b", "hookspath", "agentguard"] + registry.involves() + \
        ["packed-refs", "refs/heads", "husky", "pre-commit", "update-ref", "disableAllHooks"]
    assert constructs.INVOLVES.pattern == "|".join(parts) and constructs.INVOLVES.flags & re.I
    assert constructs.INVOLVES.search("") is None and re.compile("|".join(parts), re.I).search("") is None


def test_unversioned_is_the_regex_it_replaces():
    names = _corpus() + ["python3", "python3.12", "perl5.36", "3.11", "..", "sh\n", "node18\n", "a1\nb2", "py\n\n3"]
    for name in names:
        assert constructs.unversioned(name) == re.sub(r"[0-9.]+$", "", name), repr(name)


@pytest.mark.parametrize("command", ["echo 'git push origin main' | sh", "printf 'git push -f' | bash",
                                     "cat <<'E' | sh\ngit push origin HEAD:main\nE", "python3.11 -c 'import os'",
                                     "python3.11 -c 'import os; os.system(\"git push origin main\")'",
                                     "git status; curl -s http://example.invalid/x | sh",
                                     "curl -s http://example.invalid/x | sh",
                                     "git status; curl -s http://example.invalid/x | python3.12", "make | tail -5"])
def test_the_paths_that_changed_still_see_git(command, guarded):
    """A pipe into a shell (INVOLVES on the producer's text, skipped only for empty text), an interpreter
    named with its version (``unversioned``), a pipe of unknown text into a shell or interpreter in a
    command line that names git (``UnknownInput``, its patterns asked only then): still refused when
    they reach git (HEAD on main), still allowed when they do not."""
    repo, _ = guarded
    blocked = verdict(command, cwd=repo.path)[0] == "block"
    assert blocked == ("git" in command), command


def test_jsonlite_dumps_is_json_dumps():
    from agentguard.hooks import jsonlite
    for value in ({"decision": "allow", "rule": "", "reason": ""}, {"b": [1, 2.5, None, True], "a": "\u00e9\n"},
                  [float("inf"), "x"], "text", 3, {"z": {"y": (1, 2)}}):
        assert jsonlite.dumps(value) == json.dumps(value)


LISTER = """import io, os, sys
run = sys.argv[1]
sys.path.insert(0, os.path.dirname(run))
sys.argv = [run] + sys.argv[2:]
exit_ = os._exit
def _exit(status):
    sys.stdout.flush()
    sys.stderr.write("MODULES " + " ".join(sorted(sys.modules)) + "\\n")
    exit_(status)
os._exit = _exit
exec(compile(open(run).read(), run, "exec"), {"__file__": run, "__name__": "__main__"})
"""


def runtime_check(repo, command, env=None):
    """(exit status, the decision, the modules loaded) of the runtime copy's ``check --json -- command``,
    run as its launcher runs it (``env``: more of the environment)."""
    with open(os.path.join(repo.path, CHECK)) as fh:
        python = fh.read().split("exec '")[1].split("'")[0]
    run_py = os.path.join(repo.path, ".git", "agentguard", "runtime", "run.py")
    proc = subprocess.run([python, "-I", "-S", "-B", "-c", LISTER, run_py, "check", "--json", "--", command],
                          cwd=repo.path, env=dict(repo.env, AGENTGUARD_GIT="git", **(env or {})), capture_output=True,
                          text=True, timeout=60)
    line = [x for x in proc.stderr.splitlines() if x.startswith("MODULES ")]
    assert line, proc.stderr
    return proc.returncode, json.loads(proc.stdout)["decision"], set(line[-1].split()[1:])


@pytest.mark.parametrize("command", ["ls -la", "git status", "npm test", "cd sub && make -j4 2>&1 | tail -5",
                                     "git add -A && git commit -m 'fix' && git push -u origin HEAD"])
def test_the_pre_check_of_an_ordinary_command_loads_no_re(command, guarded):
    """The runtime copy's pre-check, as an adapter runs it, of commands agents run all the time: answered
    (allowed, the snapshot recorded) without ``re``, ``enum``, ``json`` or ``math``. A pattern the command does need
    is still compiled: ``eval "$X"`` in a command line that names git loads ``re`` and is refused."""
    repo, _ = guarded
    repo.run("checkout", "-q", "feat")

    def modules(text):
        return runtime_check(repo, text)[1:]
    decision, loaded = modules(command)
    # the guarded repository has a local-path remote, whose refs the snapshot reads alongside its own git
    # processes: started and read later, without a thread (threading brings functools and collections)
    heavy = {"re", "enum", "math", "json", "threading", "functools", "collections"}
    assert decision == "allow" and not heavy & loaded, heavy & loaded
    decision, loaded = modules('X=x; git status; eval "$X"')
    assert decision == "block" and "re" in loaded


AT_EXIT_LISTER = LISTER.replace("os._exit = _exit\n", "os._exit = _exit\nimport atexit\natexit.register(lambda: "
                                "sys.stderr.write('MODULES ' + ' '.join(sorted(sys.modules)) + '\\n'))\n")


def test_a_refusal_of_the_reference_transaction_hook_loads_no_re_or_json(guarded):
    """The git hooks' runtime (``hooks.main``: what reference-transaction, pre-push and the doctor's probes
    start) loads no ``re``, ``enum`` or ``json``: the audit line is written by ``jsonlite``, an object id
    is told without a pattern. A move of main is still refused, main stays where it was, and the
    refusal is in the audit log, read back as JSON."""
    repo, _ = guarded
    main_before = repo.rev("main")
    with open(os.path.join(repo.path, CHECK)) as fh:
        python = fh.read().split("exec '")[1].split("'")[0]
    run_py = os.path.join(repo.path, ".git", "agentguard", "runtime", "run.py")
    line = "%s %s refs/heads/main\n" % (main_before, "1" * 40)
    proc = subprocess.run([python, "-I", "-S", "-B", "-c", AT_EXIT_LISTER,
                           run_py, "reference-transaction", str(os.getpid()), "prepared"],
                          input=line, cwd=repo.path, env=dict(repo.env, AGENTGUARD_GIT="git"), capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode != 0 and "[rule:" in proc.stderr, proc.stderr
    assert repo.rev("main") == main_before
    with open(os.path.join(repo.path, ".git", "agentguard", "audit.jsonl")) as fh:
        entries = [json.loads(x) for x in fh.read().splitlines()]
    assert entries and entries[-1]["hook"] == "reference-transaction", entries
    assert "MODULES " in proc.stderr, proc.stderr
    loaded = set(proc.stderr.split("MODULES ")[-1].split())
    assert "hooks.backstop.reftx" in loaded and not {"re", "enum", "json"} & loaded, {"re", "enum", "json"} & loaded


def test_the_object_id_tests_are_the_patterns_they_replace():
    from agentguard.hooks.backstop.reflines import is_oid
    from agentguard.hooks.gitmodel.refnames import is_object_id
    pattern = re.compile(r"\A(?:[0-9a-f]{40}|[0-9a-f]{64})\Z")
    abbrev = re.compile(r"\A[0-9a-f]{4,64}\Z")
    samples = ["a" * 40, "0" * 64, "A" * 40, "g" * 40, "a" * 39, "a" * 41, "a" * 40 + "\n", " " + "a" * 39,
               "a" * 63, "a" * 65, "", "0" * 20 + "x" + "0" * 19] + _corpus(n=200)
    for text in samples:
        assert is_oid(text) == bool(pattern.match(text)), repr(text)
    for text in samples + ["abcd", "abc", "a" * 64 + "0", "0" * 5 + "\n", "ABCD", "1234567"]:
        assert is_object_id(text) == bool(abbrev.match(text)), repr(text)


def test_split_comment_is_the_pattern_it_replaces():
    from agentguard.hooks.rules import split_comment
    pattern = re.compile(r"\s{2,}# ")
    samples = ["git branch x  # keep", "a # b", "a  #b", "a \t# b  # c", "  # x", "a   ", "#  # ", "a\u3000\u2003# b",
               "a  ## b", "a \n # b", "git push -u origin <new-branch>   # then open"] + _corpus(n=400)
    samples += ["".join(random.Random(i).choice(" \t#x\u00a0") for _ in range(12)) for i in range(400)]
    for text in samples:
        assert split_comment(text) == pattern.split(text, 1), repr(text)
