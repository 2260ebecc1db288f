"""The command line as a newcomer meets it: a short install summary (every file with --verbose), a
doctor that warns about a harness only where it is in use, --help that names every argument and
mode, usage errors that exit 2 on both front ends of `check`, messages that install as the README
does."""
import json
import os
import subprocess

import pytest

from helpers import AGENTGUARD, agentguard


def written(stdout):
    """The paths a --verbose install or a --dry-run names, one per line."""
    out = []
    for line in stdout.splitlines():
        words = line.split()
        if len(words) >= 2 and words[0] in ("write", "wrote"):
            out.append(words[1])
    return out


def test_install_prints_a_short_summary_and_verbose_lists_every_file(make_repo):
    repo, _ = make_repo(install=False)
    planned = written(repo.agentguard("install", "--dry-run").stdout)
    assert len(planned) > 40 and ".git/hooks/pre-commit" in planned
    other, _ = make_repo("other", install=False)
    verbose = other.agentguard("install", "--verbose").stdout
    assert written(verbose) == planned
    for rel in planned:
        assert os.path.isfile(os.path.join(other.path, rel)), rel
    proc = repo.agentguard("install")
    lines = proc.stdout.splitlines()
    assert len(lines) <= 10, proc.stdout
    assert lines[0] == "agentguard: installed in %s" % os.path.realpath(repo.path)
    text = proc.stdout
    assert "protected branches: main, master" in text
    assert "push guard: on for origin" in text
    assert "harness adapters: pi, hermes, gptme" in text
    assert "wrote %d files" % len(planned) in text
    assert "agentguard doctor" in lines[-1]
    assert [w for w in written(text) if not w.isdigit()] == []  # no file list without --verbose


def test_install_summary_names_the_hook_it_kept(make_repo):
    repo, _ = make_repo(install=False)
    hook = os.path.join(repo.path, ".git", "hooks", "pre-commit")
    with open(hook, "w") as fh:
        fh.write("#!/bin/sh\nexit 0\n")
    os.chmod(hook, 0o755)
    proc = repo.agentguard("install", "--no-adapters", "--no-push-guard")
    assert "kept .git/hooks/pre-commit as .git/hooks/pre-commit.agentguard-chained" in proc.stdout
    assert "push guard: off" in proc.stdout and "harness adapters: none" in proc.stdout
    assert len(proc.stdout.splitlines()) <= 10


def hermes_check(repo, env=None):
    proc = repo.agentguard("doctor", "--json", "--no-probes", check=False, env=env)
    checks = {c["id"]: c for c in json.loads(proc.stdout)["checks"]}
    return checks["adapters.hermes.enabled"], [c for c in checks.values()
                                                if c["status"] != "pass" and "hermes" in c["summary"].lower()]


def test_the_doctor_warns_about_hermes_only_where_hermes_is_in_use(make_repo, tmp_path):
    repo, _ = make_repo()  # a plain install writes the Hermes plugin for everyone
    assert os.path.isdir(os.path.join(repo.path, ".hermes"))
    check, warned = hermes_check(repo)
    assert check["status"] == "pass" and warned == [], warned
    assert "not in use here" in check["summary"] and "HERMES_ENABLE_PROJECT_PLUGINS" in check["summary"]
    # Hermes on PATH: in use
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "hermes").write_text("#!/bin/sh\nexit 0\n")
    os.chmod(bindir / "hermes", 0o755)
    env = dict(repo.env, PATH=str(bindir) + os.pathsep + repo.env["PATH"])
    check, warned = hermes_check(repo, env)
    assert check["status"] == "warn" and "HERMES_ENABLE_PROJECT_PLUGINS" in check["fix"]
    # its configuration in HOME: in use
    os.makedirs(os.path.join(repo.env["HOME"], ".hermes"))
    check, _ = hermes_check(repo)
    assert check["status"] == "warn"
    # and set up as it needs: no warning
    with open(os.path.join(repo.env["HOME"], ".hermes", ".env"), "w") as fh:
        fh.write("HERMES_ENABLE_PROJECT_PLUGINS=1\n")
    with open(os.path.join(repo.env["HOME"], ".hermes", "config.yaml"), "w") as fh:
        fh.write("plugins:\n  enabled:\n    - agentguard\n")
    check, _ = hermes_check(repo)
    assert check["status"] == "pass" and "not in use" not in check["summary"]


HELP = {
    "install": ["PATH", "--protect", "--dry-run", "--harness", "--no-adapters", "--push-guard", "--server",
                "--allow-pusher", "--all", "--template", "--verbose"],
    "uninstall": ["PATH", "--server", "--template"],
    "doctor": ["PATH", "--json", "--fix", "--server", "--all", "--no-probes"],
    "check": ["COMMAND", "--cwd", "--json", "--write", "--after", "--hook", "HARNESS"],
}


@pytest.mark.parametrize("command", sorted(HELP))
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_of_every_command_names_its_arguments_and_modes(env, tmp_path, command, flag):
    proc = agentguard(command, flag, cwd=str(tmp_path), env=dict(env, COLUMNS="200"))
    assert proc.returncode == 0, proc.stderr
    for needle in HELP[command]:
        assert needle in proc.stdout, (command, needle)


def test_the_runtime_check_prints_its_modes_on_help(guarded):
    repo, _ = guarded
    check = os.path.join(repo.path, ".git", "agentguard", "check")
    proc = subprocess.run([check, "--help"], cwd=repo.path, env=repo.env, capture_output=True, text=True)
    assert proc.returncode == 0
    for needle in ("COMMAND", "--write PATH", "--after", "--hook HARNESS", "--cwd DIR", "--json", "exit"):
        assert needle in proc.stdout, needle


@pytest.mark.parametrize("args", [["install", "--harness", "nope"], ["install", "--harness", ""],
                                  ["install", "--all", "--harness", "pi,nope"],
                                  ["install", "--protect", "bad name"], ["install", "--template", "--protect", "a..b"],
                                  ["install", "--allow-pusher", "x"], ["uninstall", "--template", "x"],
                                  ["doctor", "--fix", "--server", "x"], ["check"], ["check", "--bogus", "x"],
                                  ["check", "--write"], ["check", "--after", "git status"],
                                  ["check", "--hook", "claude", "--json"], ["check", "--hook", "nope"]])
def test_usage_errors_exit_2_with_nothing_written(make_repo, args):
    repo, _ = make_repo(install=False)
    proc = repo.agentguard(*args, check=False)
    assert proc.returncode == 2, (args, proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr
    assert not os.path.exists(os.path.join(repo.path, ".git", "agentguard")), args


@pytest.mark.parametrize("args", [["check"], ["check", "--bogus", "x"], ["check", "--write"], ["check", "-x", "git"],
                                  ["check", "--after", "git status"], ["check", "--hook", "nope"],
                                  ["check", "--hook", "claude", "--json"]])
def test_the_runtime_check_exits_2_on_usage_errors_never_1(guarded, args):
    repo, _ = guarded
    launcher = os.path.join(repo.path, ".git", "agentguard", "check")
    proc = subprocess.run([launcher, *args[1:]], cwd=repo.path, env=repo.env, capture_output=True, text=True,
                          input="")
    assert proc.returncode == 2 and "agentguard check: " in proc.stderr, (args, proc.stderr)


def test_options_after_the_command_are_the_commands_own(guarded):
    """`check [OPTIONS] COMMAND...`: a --cwd among the command's words does not move the decision
    into another directory (it did: `echo --cwd / ; git commit` was decided in /, and allowed)."""
    repo, _ = guarded
    words = ["echo", "--cwd", "/", ";", "git", "commit", "--allow-empty", "-m", "x"]
    launcher = os.path.join(repo.path, ".git", "agentguard", "check")
    for argv in ([launcher, "--json", *words], [AGENTGUARD, "check", "--json", *words]):
        proc = subprocess.run(argv, cwd=repo.path, env=repo.env, capture_output=True, text=True)
        assert proc.returncode == 1 and json.loads(proc.stdout)["rule"] == "commit-on-protected", proc.stdout
    proc = repo.agentguard("check", "--json", "git", "log", "--json", check=False)
    assert proc.returncode == 0 and json.loads(proc.stdout)["decision"] == "allow"
    proc = repo.agentguard("check", "--json", "--", "git push origin feat:main", check=False)
    assert proc.returncode == 1 and json.loads(proc.stdout)["rule"] == "push-protected"


def test_messages_say_how_to_install_as_the_readme_does():
    from agentguard.hooks.harness.hook import not_installed
    from agentguard.installer.harness import adapters
    told = not_installed("claude")
    assert "pip install ." in told and "pipx install ." in told
    texts = [told] + [data.decode() for _, data, _ in adapters.files_for(adapters.HARNESSES, "agentguard")]
    assert not any("pip install agentguard" in text for text in texts)
