"""Fuzz the command analyser (hypothesis): it never crashes or hangs on any input, wrapping a
blocked command in shells, eval, subshells or substitutions never unblocks it, and wrapping a
harmless one (a few levels deep) never blocks it. Every input gets a time bound.

The `decide` fixture (conftest.py) decides against the command table's repository, one per module."""
import shlex
import time

import pytest

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

TIME_BOUND = 3.0  # seconds per input, on a slow CI machine (typical: a few ms)
FUZZ = settings(max_examples=200, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

TOKENS = ["git", "commit", "push", "origin", "main", "feat", "HEAD:main", "feat:main", "--no-verify", "-n", "-c",
          "core.hooksPath=/dev/null", "sh", "bash", "-lc", "eval", "exec", "env", "xargs", "python3", "node", "-e",
          ";", "&&", "||", "|", "&", "(", ")", "{", "}", "$(", "`", '"', "'", "\\", "$x", "${x:-main}", "x=main",
          "<<EOF", "EOF", "\n", "#", "*", "~", "if", "then", "else", "fi", "for", "in", "do", "done", "case", "esac",
          "$((1+2))", "[[", "]]", "<(", ">", ">>", "2>&1", "-C", "..", "branch", "-M", "-f", "update-ref",
          "refs/heads/main", "checkout", "-b", "alias.x=!sh", "--git-dir=.git", "reset", "--hard", "rebase",
          "merge", "fetch", "+feat:main", ":main", "--delete", "--mirror", "--all", "rm", ".git/hooks/pre-push"]
soup = st.lists(st.one_of(st.sampled_from(TOKENS), st.text(max_size=6)), max_size=40).flatmap(
    lambda words: st.sampled_from([" ", "", "\t"]).map(lambda sep: sep.join(words)))


def timed(decide, command):
    began = time.monotonic()
    decision, rule, reason = decide(command)
    elapsed = time.monotonic() - began
    assert elapsed < TIME_BOUND, "%.1f s for %r" % (elapsed, command[:200])
    assert decision in ("allow", "block")
    assert rule != "guard-error", "the analyser raised on %r: %s" % (command[:300], reason)
    return decision, rule


@FUZZ
@given(soup)
def test_any_input_gets_a_verdict_in_bounded_time(decide, command):
    timed(decide, command)


@FUZZ
@given(st.binary(max_size=300).map(lambda b: b.decode("utf-8", "replace")))
def test_arbitrary_bytes_get_a_verdict(decide, command):
    timed(decide, command)


WRAPPERS = [
    lambda c: "sh -c " + shlex.quote(c),
    lambda c: "bash -lc " + shlex.quote(c),
    lambda c: "eval " + shlex.quote(c),
    lambda c: "(" + c + ")",
    lambda c: "{ " + c + "; }",
    lambda c: "true && " + c,
    lambda c: c + " || true",
    lambda c: "echo start; " + c,
    lambda c: "if true; then " + c + "; fi",
    lambda c: "for i in 1; do " + c + "; done",
    lambda c: "x=$( " + c + ")",  # the blank: `$((` would be arithmetic, which runs nothing
    lambda c: "echo \"$( " + c + ")\"",
    lambda c: "printf '%s\\n' " + shlex.quote(c) + " | sh",
    lambda c: "timeout 10 sh -c " + shlex.quote(c),
]
BLOCKED = ["git commit -m x", "git push origin feat:main", "git push --no-verify origin feat",
           "git -c core.hooksPath=/dev/null commit -m x", "git branch -f main feat",
           "git update-ref refs/heads/main feat", "rm .git/hooks/reference-transaction",
           "git push origin +feat:refs/heads/main", "git commit --no-verify -m x"]
ALLOWED = ["git status", "git log --oneline -3", "ls -la", "git push origin feat", "git diff HEAD~1",
           "git checkout -b topic", "echo main"]
wrapping = st.lists(st.sampled_from(range(len(WRAPPERS))), min_size=1, max_size=5)


def wrap(command, stack):
    for index in stack:
        command = WRAPPERS[index](command)
    return command


@FUZZ
@given(st.sampled_from(BLOCKED), wrapping)
def test_wrapping_never_unblocks(decide, core, stack):
    assert decide(core)[0] == "block", core
    command = wrap(core, stack)
    decision, rule = timed(decide, command)
    assert decision == "block", command


@FUZZ
@given(st.sampled_from(ALLOWED), st.lists(st.sampled_from(range(len(WRAPPERS))), min_size=1, max_size=3))
def test_wrapping_keeps_harmless_commands_allowed(decide, core, stack):
    assert decide(core)[0] == "allow", core
    command = wrap(core, stack)
    assert timed(decide, command)[0] == "allow", command


def test_deeply_nested_shells_are_refused_quickly(decide):
    # quoting grows geometrically, so `sh -c` nests only until the input limit; eval nests linearly
    for core in ("git status", "git commit -m x"):
        command, levels = core, 0
        while len(command) < 60000:
            command, levels = "sh -c " + shlex.quote(command), levels + 1
            decision, rule = timed(decide, command)
            assert decision == ("block" if "commit" in core or len(command) > 64 * 1024 else "allow"), levels
        for depth in (11, 13, 50, 500):
            decision, rule = timed(decide, "eval " * depth + core)
            assert decision == ("allow" if depth <= 11 and "status" in core else "block"), depth
            if depth > 12 and "status" in core:
                assert rule == "unanalysable"


@pytest.mark.parametrize("opener, closer", [("(", ")"), ("$(", ")"), ("{ ", "; }"), ("`", "`"), ("((", "))"),
                                            ("if true; then ", "; fi"), ("! ", "")])
def test_deep_grouping_never_hides_a_blocked_command(decide, opener, closer):
    for depth in (30, 3000):
        timed(decide, opener * depth + "git status" + closer * depth)  # a verdict, in time
        assert timed(decide, opener * depth + "git commit -m x" + closer * depth)[0] == "block"


def test_huge_input_is_refused_quickly(decide):
    assert timed(decide, "git status " + "a" * 200000) == ("block", "unanalysable")
    assert timed(decide, "git status; " * 20000) == ("block", "unanalysable")
    assert timed(decide, "echo " + "a" * 200000)[0] == "allow"  # nothing about git in it: not parsed
