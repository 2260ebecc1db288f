"""What the CLI imports before it does anything: a command that needs no harness (``--version``,
``--help``, ``check``) imports no harness module (the registry loads them on first use), nor GitPython;
off a terminal nothing but ``--help`` imports rich. The light table the help reads instead of the
descriptors says what they say, so the help is the same."""
import subprocess
import sys

import pytest

from agentguard.hooks.harness.registry import NAMES, PROTOCOLS
from agentguard.installer.harness import registry

from helpers import AGENTGUARD

pytestmark = pytest.mark.one_git  # the CLI's Python imports; no git runs in the commands measured


def imported(args, cwd, env):
    """The modules the real ``agentguard ARGS`` imported (``python -X importtime``), and the process."""
    proc = subprocess.run([sys.executable, "-X", "importtime", AGENTGUARD, *args], cwd=cwd, env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    modules = {line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    assert "agentguard.installer.cli" in modules, proc.stderr[-2000:]
    return modules, proc


def harness_modules(modules):
    return sorted(m for m in modules for name in NAMES
                  if m in ("agentguard.hooks.harness.%s" % name, "agentguard.installer.harness.%s" % name))


def test_the_light_table_says_what_the_descriptors_say():
    assert registry.PLUGIN_HARNESSES == tuple(name for name in NAMES if name not in PROTOCOLS)
    assert registry.FIRST_SETTINGS_REL == registry.first_settings_rel()
    assert list(registry.HARNESSES) == list(NAMES)
    assert registry.__getattr__("HARNESSES") is registry.HARNESSES  # built once, also when asked by name
    assert set(registry.SETTINGS_HARNESSES) | set(registry.WHOLE_FILE_HARNESSES) == set(PROTOCOLS)


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["check", "git", "status"],
                                  ["check", "--json", "git", "push", "origin", "main"]])
def test_a_command_that_needs_no_harness_imports_none(args, env, tmp_path):
    modules, proc = imported(args, str(tmp_path), env)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-2000:]
    assert harness_modules(modules) == []
    assert not any(m == "git" or m.startswith("git.") for m in modules)  # GitPython
    if args != ["--help"]:
        assert not any(m == "rich" or m.startswith("rich.") for m in modules)
    if args == ["--version"]:
        assert proc.stdout.startswith("agentguard ")


def test_install_imports_the_harnesses_it_writes_and_no_rich_off_a_terminal(env, tmp_path):
    """The control: the scan sees harness modules where a command loads them."""
    repo = str(tmp_path / "repo")
    subprocess.run(["git", "init", "-q", "-b", "main", repo], env=env, check=True)
    modules, proc = imported(["install", "--dry-run"], repo, env)
    assert proc.returncode == 0 and "dry run" in proc.stdout, proc.stdout + proc.stderr[-2000:]
    assert "agentguard.installer.harness.%s" % registry.PLUGIN_HARNESSES[0] in harness_modules(modules)
    assert not any(m == "rich" or m.startswith("rich.") for m in modules)
