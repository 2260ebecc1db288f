"""Fixtures: real git repositories in tmp_path, a real bare remote, the real CLI."""
import os
import subprocess

import pytest

from helpers import Git, _base_env, module_world


@pytest.fixture
def env(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    return _base_env(home)


@pytest.fixture
def install_args():
    """The options make_repo's install passes; a module overrides it (the keep-working and real-clients
    tables run with every layer on: every harness's adapter, as a day with agentguard has them)."""
    return []


@pytest.fixture
def make_repo(tmp_path, env, install_args):
    """make_repo(name, remote=True, install=True) -> (Git work repo, Git bare remote or None)."""
    def make(name="work", remote=True, install=True, branch="main"):
        work = tmp_path / name
        subprocess.run(["git", "init", "-q", "-b", branch, str(work)], env=env, check=True)
        repo = Git(str(work), env)
        repo.commit("initial")
        bare = None
        if remote:
            bare_path = tmp_path / (name + "-remote.git")
            subprocess.run(["git", "init", "-q", "--bare", "-b", branch, str(bare_path)], env=env, check=True)
            bare = Git(str(bare_path), env)
            repo.run("remote", "add", "origin", str(bare_path))
            repo.run("push", "-q", "-u", "origin", branch)
            repo.run("remote", "set-head", "origin", branch)
        if install:
            repo.agentguard("install", *install_args)
        return repo, bare
    return make


@pytest.fixture
def guarded(make_repo):
    """A repository with agentguard installed, main pushed to a bare remote, and a feature branch
    `feat` with one local commit that the remote does not have. HEAD is on main."""
    repo, bare = make_repo()
    repo.run("checkout", "-q", "-b", "feat")
    repo.commit("feature work")
    repo.run("checkout", "-q", "main")
    return repo, bare


# -- the command table's repository (test_check_table, test_analyser_fuzz): one per module ----------

@pytest.fixture(scope="module")
def table_repo(tmp_path_factory):
    _, _, repo, _ = module_world(tmp_path_factory, "table")
    repo.run("push", "-q", "-u", "origin", "main")
    repo.run("checkout", "-q", "-b", "feat")
    repo.commit("feature work")
    repo.run("checkout", "-q", "main")
    repo.run("config", "alias.ship", "push origin HEAD:main")
    repo.run("config", "alias.ci", "commit --no-verify")
    repo.run("config", "alias.st", "status")
    os.makedirs(os.path.join(repo.path, "sub"))
    os.makedirs(os.path.join(repo.path, "docs"))
    open(os.path.join(repo.path, "docs", ".git-tips.md"), "w").close()
    os.symlink(os.path.join(repo.path, ".git", "hooks"), os.path.join(repo.path, "linkdir"))
    repo.agentguard("install")
    return repo


@pytest.fixture(scope="module")
def decide(table_repo):
    """The decision, in-process (the same code the runtime copy runs), isolated like the CLI."""
    from agentguard.hooks.analyser.check import verdict
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(table_repo.env)
    for key in [k for k in os.environ if k.startswith("GIT_") and k != "GIT_CONFIG_NOSYSTEM"]:
        del os.environ[key]
    yield lambda command: verdict(command=command, cwd=table_repo.path)
    os.environ.clear()
    os.environ.update(saved)


# -- what runs against one git only (scripts/test.sh: the first pass) ------------------------------
# Besides the modules marked one_git themselves (docs, lint, packaging, the benchmark, crash safety of
# agentguard's own file writes, the posh/no-/proc platform runs), these groups. Each proves a layer
# above git whose git-dependent half runs on every git in the module named with it; what varies with
# git's version (the analyser's reading of a command, the after-check's undo, the hooks' refusals)
# is not what these add.
ONE_GIT_GROUPS = {
    # The harnesses' side of the hook protocol, with their real binaries (Claude Code, Codex, Gemini CLI,
    # Copilot CLI, OpenCode, Kilo, Qwen, Cline, pi, Hermes, gptme): that the binary runs the hook command
    # install wrote, obeys its exit status or JSON, and shows the reason to the model. The same hook
    # commands, run by sh against the runtime copy with each harness's payloads, refuse, allow, undo and
    # tell on every git in test_harness_settings (every harness in settingsfile.NAMES).
    "harness binaries": ("test_harness_e2e.py", "test_harness_claude_current.py", "test_harness_five_current.py",
                         "test_adapters.py"),
    # Each harness's published payload shapes and its own files (hook entries merged into its settings,
    # doctor's reading of its switches, uninstall byte for byte): JSON and files, not git. The decisions on
    # those payloads' commands are the analyser's (test_check_table, test_command_classes), the undo the
    # after-check's (test_outcome), the hook command's answers per harness test_harness_settings': every git.
    "harness payloads and files": ("test_harness_published.py", "test_harness_published_ide.py",
                                   "test_harness_cline.py", "test_harness_claude_shaped.py",
                                   "test_harness_plugins.py"),
    # The pre-commit framework installing agentguard's .pre-commit-hooks.yaml entries into its own
    # environments (try-repo, pre-commit 3.2.0 and current): the manifest and entry points. The verdicts
    # of the hooks it runs are the backstop's (test_refuse, test_keep_working: every git); the framework's
    # commits and pushes through git's hooks (the rest of test_precommit_framework) run on every git.
    "pre-commit manifest": ("test_precommit_framework.py::test_pre_commit_try_repo_refuses_a_commit_on_main",),
    # pi's extension waiting out its 10 s budget on a decision command that hangs (a script in place of the
    # launcher: no git runs in the call), with pi's real binary: the harness side of a timeout. The runtime's
    # and the installer's git calls are bounded on every git in the rest of test_timeouts.
    "a harness's timeout": ("test_timeouts.py::test_pi_extension_times_out_and_blocks",),
    # The loser of agentguard's own install lock (a flock the test holds on .git/agentguard/lock) waiting
    # out its 5 s and giving up with the message, nothing written: the lock is agentguard's, not git's.
    # Installs and uninstalls racing through the lock, and the waiter that proceeds, run on every git in
    # the rest of test_install_lock.
    "the install lock's loser": ("test_install_lock.py::test_loser_gives_up_with_a_clear_message",),
    # Property tests of agentguard's own parsers (reference-transaction and pre-push lines, refspecs, git's
    # argv, branch patterns) and of the hook's sh fast path against its Python twin: text, run by sh and
    # grep, and no git. What git writes into those lines, and the hooks' refusals on it, run on every git in
    # test_refuse, test_refs_written and test_gitmodel.
    "parsers of git's text": ("test_properties.py",),
    # agentguard's own bytes and output in install --all and doctor --all: the compiled runtime (its
    # bytes depend on the sources and the interpreter), the durable batch, progress on a terminal. The
    # fleet's git-dependent half (the shared probes, their fingerprint, plans made again under the install
    # lock, installs side by side) runs on every git in the rest of test_fleet_cost and in test_fleet.
    "fleet's own files and output": ("test_fleet_cost.py::test_progress_is_drawn_on_a_terminal_and_pipes_stay_plain",
                                     "test_fleet_cost.py::test_a_durable_batch_lands_whole_or_leaves_no_temp_file",
                                     "test_fleet_cost.py::test_two_separate_installs_write_the_same_compiled_runtime"),
    # The command line's usage errors and help (both front ends of check): argument parsing, before any git
    # runs. What the commands do runs on every git in the rest of test_cli_basics.
    "usage and help": ("test_cli_basics.py::test_help_of_every_command_names_its_arguments_and_modes",
                       "test_cli_basics.py::test_the_runtime_check_prints_its_modes_on_help",
                       "test_cli_basics.py::test_usage_errors_exit_2_with_nothing_written",
                       "test_cli_basics.py::test_the_runtime_check_exits_2_on_usage_errors_never_1",
                       "test_cli_basics.py::test_messages_say_how_to_install_as_the_readme_does"),
    # The source's own structure (sizes, names, imports, where a harness or the layout is named): scans of
    # the Python source. The layout's agreement with git (test_one_layout_...) runs on every git.
    "source structure": ("test_structure.py", "test_structure_doctor.py", "test_structure_harness.py",
                         "test_structure_names.py",
                         "test_structure_layout.py::test_agentguard_home_is_named_only_in_the_layout",
                         "test_structure_layout.py::test_no_other_class_keeps_the_layout",
                         "test_structure_layout.py::test_the_layout_is_asked_of_git_in_one_place",
                         "test_structure_layout.py::test_the_rules_see_what_they_forbid"),
}


def _one_git_group(item):
    name = item.path.name
    for members in ONE_GIT_GROUPS.values():
        for member in members:
            module, _, test = member.partition("::")
            if name == module and (not test or item.originalname == test):
                return True
    return False


def pytest_collection_modifyitems(config, items):
    """Marks the ONE_GIT_GROUPS one_git. On scripts/test.sh's later passes (another git,
    AGENTGUARD_TEST_LATER_GIT=1), leaves out the tests marked one_git: they ran against the first git
    and what they prove does not depend on its version."""
    for item in items:
        if _one_git_group(item):
            item.add_marker(pytest.mark.one_git)
    if os.environ.get("AGENTGUARD_TEST_LATER_GIT") != "1":
        return
    once = [item for item in items if item.get_closest_marker("one_git")]
    if once:
        config.hook.pytest_deselected(items=once)
        items[:] = [item for item in items if not item.get_closest_marker("one_git")]


def pytest_report_header(config):
    proc = subprocess.run(["git", "--version"], capture_output=True, text=True)
    return "git: %s (%s)" % (proc.stdout.strip(), subprocess.run(["sh", "-c", "command -v git"], capture_output=True,
                                                                 text=True).stdout.strip())
