"""hooks/harness/watched.py, the table the pre-check's snapshot reads instead of importing every harness,
says what the harness descriptors say: their work-tree files, the names they write themselves, and
their user-level files in every environment their ``user_files`` read (each variable set and unset)."""
import itertools
import os
import subprocess
import sys

from agentguard.hooks.harness import registry, watched

VARIABLES = ("HOME", "XDG_CONFIG_HOME", "CODEX_HOME", "COPILOT_HOME", "CRUSH_GLOBAL_CONFIG", "CLINE_DIR",
             "CLINE_HOOKS_DIR", "FACTORY_HOME_OVERRIDE", "GEMINI_CLI_HOME", "GEMINI_CLI_SYSTEM_SETTINGS_PATH",
             "GEMINI_CLI_SYSTEM_DEFAULTS_PATH")


def described_user_files(env):
    return [p for h in registry.HARNESSES.values() for p in h.user_files(env)]


def test_worktree_files_and_not_watched_are_the_descriptors():
    assert watched.WORKTREE_FILES == tuple(rel for h in registry.HARNESSES.values() for rel in h.worktree_files)
    assert watched.NOT_WATCHED == tuple(n for h in registry.HARNESSES.values() for n in h.not_watched)
    assert registry.worktree_files() == watched.WORKTREE_FILES and registry.not_watched() == watched.NOT_WATCHED


def test_user_files_are_the_descriptors_in_every_environment():
    checked = 0  # every pair of variables, each unset, empty or set
    for a, b in itertools.combinations_with_replacement(VARIABLES, 2):
        for va, vb in itertools.product((None, "", "/set/a"), (None, "", "/set/b/sub")):
            env = {}
            for name, value in ((a, va), (b, vb)):
                if value is not None:
                    env[name] = value
            assert watched.user_files(env) == described_user_files(env), env
            checked += 1
    every = {name: "/v/" + name.lower() for name in VARIABLES}
    assert watched.user_files(every) == described_user_files(every)
    assert registry.user_files(every) == described_user_files(every)
    assert checked > 100


def test_a_descriptor_reading_a_variable_the_table_does_not_know_is_caught():
    """Every variable a harness's user_files reads is in VARIABLES: set alone, any other variable
    changes no harness's user files (else this test, and the table, would miss it)."""
    base = described_user_files({"HOME": "/h"})
    for name in set(os.environ) | {"APPDATA", "USERPROFILE", "XDG_DATA_HOME", "KIRO_HOME", "HERMES_HOME"}:
        if name not in VARIABLES:
            assert described_user_files({"HOME": "/h", name: "/probe/" + name}) == base, name


def test_the_snapshot_loads_no_harness_module():
    """Taking the snapshot's roots (what every pre-check does) imports no harness's module."""
    code = ("import sys; from agentguard.hooks.harness import registry, watched; "
            "registry.user_files(); registry.worktree_files(); registry.not_watched(); "
            "from agentguard.hooks import guardpaths; guardpaths.user_files(); guardpaths.worktree_files(); "
            "print(sorted(m for m in sys.modules if m.startswith('agentguard.hooks.harness.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert eval(out) == ["agentguard.hooks.harness.registry", "agentguard.hooks.harness.watched"]
