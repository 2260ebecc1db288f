"""Every git command, by what it can do (hooks/analyser/gitrules/commands.py).

The table has a row for every command the git under test lists; each class is shown true on a real
guarded repository (the `guarded` fixture): what `agentguard check` decides, and what the backstop
does when the command runs anyway; SECURITY.md shows the table as it is. Tests named `test_hole_*`
show a hole SECURITY.md lists as open: if one starts failing, the hole was closed."""
import json
import os
import re
import subprocess

import pytest

from agentguard.hooks.analyser.gitrules import HANDLERS, programs
from agentguard.hooks.analyser.gitrules import commands
from helpers import assert_refused_and_kept, refused, state, upstream_advance

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# command-list.txt's categories of commands (`git help -a` prints these; the guides are left out)
CATEGORIES = ("mainporcelain", "ancillarymanipulators", "ancillaryinterrogators", "foreignscminterface",
              "plumbingmanipulators", "plumbinginterrogators", "synchingrepositories", "synchelpers", "purehelpers")
REMOTE = "../work-remote.git"  # the guarded fixture's bare remote, seen from the work tree
URL = "http://example.invalid/r.git"


def listed_commands():
    """Every command the git on PATH names: its programs, its builtins, what `git help -a` lists.
    (`--list-cmds=others` is left out: it lists whatever `git-*` programs PATH holds.)"""
    names = set()
    for which in ("main,nohelpers", "builtins", ",".join("list-" + c for c in CATEGORIES)):
        names.update(subprocess.run(["git", "--list-cmds=" + which], capture_output=True, text=True,
                                    check=True).stdout.split())
    return names


def analysed(repo, command):
    """(decision, rule) of `agentguard check` for ``command`` run in ``repo``."""
    data = json.loads(repo.agentguard("check", "--json", command, check=False).stdout)
    return data["decision"], data["rule"] or None


def assert_as_stated(repo, cmd, cls, coverage, command, rule=None):
    """The table gives ``cmd``'s class ``cls`` the backstop's ``coverage``, and `agentguard check`
    decides ``command`` as the table says (a block: with ``rule``)."""
    found = [entry[1:3] for entry in commands.COMMANDS[cmd] if entry[0] == cls]
    assert found and found[0][1] == coverage, (cmd, cls, found)
    blocks = found[0][0] == commands.RULE or (found[0][0] == commands.READ and rule is not None)  # READ: as its program
    assert analysed(repo, command) == (("block", rule) if blocks else ("allow", None))


# -- the table itself ---------------------------------------------------------------------------------

def test_every_command_git_lists_has_a_row():
    missing = sorted(listed_commands() - set(commands.COMMANDS))
    assert not missing, "add these to hooks/analyser/gitrules/commands.py: %s" % missing


def test_the_table_names_the_analysers_rules_as_they_are():
    for cmd, entries in commands.COMMANDS.items():
        for entry in entries:
            assert len(entry) in (3, 4) and entry[0] in commands.CLASSES and entry[1] in commands.ANALYSER and \
                entry[2] in commands.BACKSTOP, (cmd, entry)
            assert (entry[1] == commands.RULE) <= (cmd in HANDLERS), "%s: no rule in HANDLERS judges it" % cmd
    ruled = {cmd for cmd, entries in commands.COMMANDS.items()
             if any(e[1] == commands.RULE for e in entries) or not entries}
    assert set(HANDLERS) <= ruled, "HANDLERS judges commands the table says no rule reads"
    read = {cmd for cmd, entries in commands.COMMANDS.items() if any(e[1] == commands.READ for e in entries)}
    assert read == set(programs.OPTIONS) | set(programs.POSITIONAL) | {"for-each-repo"}, \
        "the table and gitrules/programs.py disagree on which programs are read"


def test_security_md_shows_the_table():
    with open(os.path.join(ROOT, "SECURITY.md"), encoding="utf-8") as fh:
        found = re.search(r"<!-- commands:begin -->\n(.*)<!-- commands:end -->", fh.read(), re.S)
    assert found and found.group(1) == commands.render_markdown(), \
        "regenerate SECURITY.md's section from commands.render_markdown()"


# -- local-ref ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("cmd,command,rule", [
    ("update-ref", "git update-ref refs/heads/main feat", "protected-move"),
    ("reset", "git reset -q --hard feat", "protected-move"),
    ("fast-import", "git fast-import --quiet --force <<'EOF'\nreset refs/heads/main\nfrom refs/heads/feat\n\nEOF",
     None),
])
def test_local_ref_writes_meet_the_reference_transaction_hook(guarded, cmd, command, rule):
    repo, bare = guarded
    assert_as_stated(repo, cmd, commands.REF, commands.TX, command, rule)
    before = state(repo, bare)
    assert_refused_and_kept(repo.sh(command), repo, bare, before)


def test_hole_reflog_updateref_moves_main_back_with_no_hook(guarded, tmp_path):
    repo, bare = guarded
    upstream_advance(bare, repo.env, tmp_path)
    repo.run("fetch", "-q", "origin")
    repo.run("merge", "-q", "--ff-only", "origin/main")
    current, earlier = repo.rev("main"), repo.rev("main@{1}")
    command = "git reflog delete --updateref 'main@{0}'"
    # the analyser blocks it
    assert_as_stated(repo, "reflog", commands.REF, commands.NO_HOOK, command, "protected-move")
    proc = repo.sh(command)
    assert proc.returncode == 0 and not refused(proc), proc.stderr
    assert repo.rev("main") == earlier != current


# -- remote -------------------------------------------------------------------------------------------

def test_push_meets_the_pre_push_hook(guarded):
    repo, bare = guarded
    command = "git push origin feat:main"
    assert_as_stated(repo, "push", commands.REMOTE, commands.PRE_PUSH, command, "push-protected")
    before = state(repo, bare)
    assert_refused_and_kept(repo.sh(command), repo, bare, before)


def test_hole_send_pack_lands_on_main_with_no_pre_push(guarded):
    repo, bare = guarded
    command = "git send-pack %s feat:main" % REMOTE
    assert_as_stated(repo, "send-pack", commands.REMOTE, commands.NO_PRE_PUSH, command, "push-protected")
    proc = repo.sh(command)  # what the analyser is the only guard against
    assert proc.returncode == 0 and not refused(proc), proc.stderr
    assert bare.rev("main") == repo.rev("feat")


def test_send_pack_to_a_feature_branch_is_allowed_and_lands(guarded):
    repo, bare = guarded
    command = "git send-pack %s feat:feature" % REMOTE
    assert analysed(repo, command) == ("allow", None)
    before = state(repo, bare)
    assert repo.sh(command).returncode == 0
    assert bare.rev("feature") == repo.rev("feat") and state(repo, bare) == before


TABLE_REMOTE = "../remote.git"  # the table_repo fixture's bare remote
PLUMBING = [
    ("git send-pack %s feat:main" % TABLE_REMOTE, "push-protected"),
    ("git send-pack %s feat:refs/heads/main" % TABLE_REMOTE, "push-protected"),
    ("git send-pack --all %s" % TABLE_REMOTE, "push-mirror"),
    ("git send-pack --mirror %s" % TABLE_REMOTE, "push-mirror"),
    ("git send-pack --force %s feat:main" % TABLE_REMOTE, "push-protected"),
    ("git send-pack --force %s" % TABLE_REMOTE, "push-protected"),  # no refspec: matching, main included
    ("git send-pack --atomic %s feat:feature feat:main" % TABLE_REMOTE, "push-protected"),
    ("git send-pack %s \"$REF\"" % TABLE_REMOTE, "unanalysable"),
    ("git send-pack --stdin %s" % TABLE_REMOTE, "unanalysable"),
    ("printf 'feat:main\\n' | git send-pack --stdin %s" % TABLE_REMOTE, "push-protected"),
    ("/usr/lib/git-core/git-send-pack %s feat:main" % TABLE_REMOTE, "push-protected"),
    ("git http-push --all %s" % URL, "push-mirror"),
    ("git http-push %s feat:main" % URL, "push-protected"),
    ("git http-push %s" % URL, "push-protected"),
    ("git http-push -D %s main" % URL, "push-protected"),
    ("git http-push %s feat:main --dry-run" % URL, "push-protected"),  # after the first refspec: a refspec
    ("git remote-https origin %s" % URL, "unanalysable"),
    ("git remote-ext origin 'git-receive-pack %s'" % TABLE_REMOTE, "unanalysable"),
    ("git send-pack --dry-run %s feat:feature" % TABLE_REMOTE, None),
    ("git send-pack --dry-run %s feat:main" % TABLE_REMOTE, None),  # as `git push --dry-run`
    ("git send-pack %s feat:feature" % TABLE_REMOTE, None),
    ("printf 'feat:feature\\n' | git send-pack --stdin %s" % TABLE_REMOTE, None),
    ("git http-push --dry-run %s feat:main" % URL, None),
    ("git http-push %s feat:feature" % URL, None),
]


@pytest.mark.parametrize("command,rule", PLUMBING, ids=[c[:60] for c, _ in PLUMBING])
def test_the_push_plumbing_is_judged_by_its_destinations(decide, table_repo, command, rule):
    refs = table_repo.run("for-each-ref").stdout
    decision, got, reason = decide(command)
    assert (decision, got or None) == (("block", rule) if rule else ("allow", None)), reason
    assert table_repo.run("for-each-ref").stdout == refs


# -- config and hooks ---------------------------------------------------------------------------------

@pytest.mark.parametrize("cmd,command,rule,key", [
    ("config", "git config alias.ci 'commit --no-verify'", "no-verify", "alias.ci"),
    ("branch", "git branch -q --set-upstream-to=origin/main feat", None, "branch.feat.merge"),
])
def test_config_writes_are_seen_by_no_hook(guarded, cmd, command, rule, key):
    repo, bare = guarded
    assert_as_stated(repo, cmd, commands.CONFIG, commands.UNSEEN, command, rule)
    before = state(repo, bare)
    proc = repo.sh(command)
    assert proc.returncode == 0 and not refused(proc), proc.stderr
    assert repo.run("config", key).stdout.strip() and state(repo, bare) == before


def test_hooks_switched_off_by_config_run_none(guarded):
    repo, bare = guarded
    command = "git config core.hooksPath /dev/null"
    assert_as_stated(repo, "config", commands.HOOKS, commands.HOOKS_OFF, command, "hooks-path")
    assert repo.sh(command).returncode == 0
    repo.run("update-ref", "refs/heads/main", "feat")  # the hole SECURITY.md lists first
    assert repo.rev("main") == repo.rev("feat")


def test_init_with_a_template_keeps_the_guards_hooks(guarded, tmp_path):
    repo, bare = guarded
    template = tmp_path / "template" / "hooks"
    template.mkdir(parents=True)
    for name in ("reference-transaction", "post-checkout"):
        (template / name).write_text("#!/bin/sh\nexit 0\n")
        (template / name).chmod(0o755)
    hook = os.path.join(repo.path, ".git", "hooks", "reference-transaction")
    with open(hook, "rb") as fh:
        ours = fh.read()
    command = "git init -q --template=%s ." % template.parent
    assert_as_stated(repo, "init", commands.HOOKS, commands.KEPT, command)
    assert repo.sh(command).returncode == 0
    with open(hook, "rb") as fh:
        assert fh.read() == ours
    assert os.path.exists(os.path.join(repo.path, ".git", "hooks", "post-checkout"))
    before = state(repo, bare)
    assert_refused_and_kept(repo.run("update-ref", "refs/heads/main", "feat", check=False), repo, bare, before)


# -- code ---------------------------------------------------------------------------------------------

def test_a_program_in_an_option_meets_the_hooks_of_what_it_runs(guarded):
    repo, bare = guarded
    command = "git grep -O'git push origin feat:main; true' -e initial"
    # the analyser reads it...
    assert_as_stated(repo, "grep", commands.CODE, commands.PROGRAM, command, "push-protected")
    before = state(repo, bare)  # ...and run anyway, the hooks refuse what it does
    proc = repo.sh(command)
    assert "agentguard: refused" in proc.stderr and state(repo, bare) == before, proc.stderr


def test_a_program_in_an_option_is_read_like_a_command_line(guarded):
    repo, bare = guarded
    program = "git push -q --no-verify origin feat:main"
    assert analysed(repo, program) == ("block", "no-verify")
    command = "git grep -O'%s; true' -e initial" % program
    assert analysed(repo, command) == ("block", "no-verify")
    assert bare.rev("main") != repo.rev("feat")


@pytest.mark.parametrize("command,rule", [
    ("git checkout feat && git rebase -x 'git push --no-verify origin HEAD:main' HEAD~1", "no-verify"),
    ("git bisect run sh -c 'git push --no-verify origin HEAD:main'", "no-verify"),
    ("git submodule foreach --recursive 'git push --no-verify origin HEAD:main'", "no-verify"),
    ("git fetch --upload-pack='git push --no-verify origin HEAD:main; git-upload-pack' origin", "no-verify"),
    ("git for-each-repo --config=maintenance.repo -- -c core.hooksPath=/dev/null commit -m x", "hooks-path"),
    ("git difftool -x 'git push --no-verify origin HEAD:main' HEAD~1", "no-verify"),
    ("git archive --remote=origin --exec='rm -rf .git/hooks' HEAD", "guard-files"),
    ("git reflog delete --updateref 'main@{0}'", "protected-move"),
    ("git reflog expire --updateref --expire=now --all", "protected-move"),
])
def test_programs_the_code_class_runs_are_read(decide, command, rule):
    assert decide(command)[:2] == ("block", rule)


@pytest.mark.parametrize("command", ["git checkout feat && git rebase -x 'make test' HEAD~1",
                                     "git bisect run make test", "git submodule foreach git pull", "git reflog",
                                     "git reflog expire --all"])
def test_ordinary_programs_stay_allowed(decide, command):
    assert decide(command)[0] == "allow"


def test_an_alias_cannot_hide_a_shipped_command_from_the_analyser(decide, table_repo):
    command = "git -c alias.http-push=status http-push %s feat:main" % URL
    assert decide(command)[0] == "block"  # judged as http-push, as git runs it...
    proc = table_repo.run("-c", "alias.http-push=status", "http-push", check=False)
    assert "usage: git http-push" in proc.stderr  # ...ignoring the alias


# -- none ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("command", ["git status", "git log --oneline", "git show-ref", "git gc -q",
                                     "git pack-refs --all", "git fsck --no-progress", "git stripspace < /dev/null"])
def test_commands_of_no_class_change_no_ref_config_or_hook(guarded, command):
    repo, bare = guarded
    assert commands.COMMANDS[command.split()[1]] == ()
    assert analysed(repo, command) == ("allow", None)
    before = _refs_config_hooks(repo, bare)
    assert repo.sh(command).returncode == 0
    assert _refs_config_hooks(repo, bare) == before


def _refs_config_hooks(repo, bare):
    return (repo.run("for-each-ref").stdout, repo.run("config", "--list").stdout,
            sorted(os.listdir(os.path.join(repo.path, ".git", "hooks"))), state(repo, bare))


# -- every row ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("cmd", sorted(commands.COMMANDS))
def test_every_command_is_judged_as_its_row_says(decide, cmd):
    """Each command of the table, on a feature branch, read-only form where there is one: a command no rule
    reads is allowed (no false block from a table row); one a rule reads either way is decided by it."""
    decision, rule, _ = decide("git checkout -q feat && git %s --help" % cmd)
    ruled = any(entry[1] == commands.RULE for entry in commands.COMMANDS[cmd])
    assert decision == "allow" or ruled or cmd.startswith("remote-"), (cmd, rule)
    decision, rule, _ = decide("git checkout -q feat && git %s" % cmd)
    if not ruled and not commands.COMMANDS[cmd]:
        assert decision == "allow", (cmd, rule)
