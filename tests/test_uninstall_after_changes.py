"""Uninstall after the world moved on: the runtime deleted, agentguard's whole directory deleted, a
hook that chains the user's edited by the user. Nothing of the user's is lost, and what uninstall
cannot decide it leaves in place and says so."""
import os
import shutil

import pytest

from helpers import USER_HOOK, USER_TOML, tree_snapshot

OTHER_HOOK = b"#!/bin/sh\necho 'user pre-push ran' >&2\n"


def prepared(make_repo):
    """Installed over a user pre-commit and pre-push hook and a user gptme.toml."""
    repo, _ = make_repo(install=False)
    hooks = os.path.join(repo.path, ".git", "hooks")
    for name, data in (("pre-commit", USER_HOOK), ("pre-push", OTHER_HOOK)):
        with open(os.path.join(hooks, name), "wb") as fh:
            fh.write(data)
        os.chmod(os.path.join(hooks, name), 0o755)
    with open(os.path.join(repo.path, "gptme.toml"), "wb") as fh:
        fh.write(USER_TOML)
    repo.agentguard("install")
    return repo, hooks


def read(path):
    with open(path, "rb") as fh:
        return fh.read()


def assert_user_things_back(repo, hooks):
    assert read(os.path.join(hooks, "pre-commit")) == USER_HOOK
    assert read(os.path.join(hooks, "pre-push")) == OTHER_HOOK
    assert os.stat(os.path.join(hooks, "pre-commit")).st_mode & 0o777 == 0o755
    assert read(os.path.join(repo.path, "gptme.toml")) == USER_TOML
    leftovers = [n for n in os.listdir(hooks)
                 if "agentguard" in n or n in ("reference-transaction", "pre-rebase", "post-checkout")]
    assert leftovers == []


def test_uninstall_after_the_runtime_was_deleted(make_repo):
    repo, hooks = prepared(make_repo)
    shutil.rmtree(os.path.join(repo.path, ".git", "agentguard", "runtime"))
    proc = repo.agentguard("uninstall")
    assert "Traceback" not in proc.stderr
    assert_user_things_back(repo, hooks)
    assert not os.path.exists(os.path.join(repo.path, ".pi"))
    assert not os.path.exists(os.path.join(repo.path, ".hermes"))


def test_uninstall_after_agentguard_directory_was_deleted(make_repo):
    # no manifest: hooks are recognised by their own header and restored from the chained copies;
    # adapter files as this agentguard writes them go; the user's gptme.toml, into which install
    # merged its entries, is left (its original is gone with the record) and named
    repo, hooks = prepared(make_repo)
    shutil.rmtree(os.path.join(repo.path, ".git", "agentguard"))
    proc = repo.agentguard("uninstall")
    assert "Traceback" not in proc.stderr
    assert read(os.path.join(hooks, "pre-commit")) == USER_HOOK
    assert read(os.path.join(hooks, "pre-push")) == OTHER_HOOK
    assert not os.path.exists(os.path.join(hooks, "reference-transaction"))
    assert "manifest.json) is missing" in proc.stderr
    assert "could not restore, so left in place: gptme.toml (its agentguard plugin entries)" in proc.stderr
    for d in (".pi", ".hermes", ".gptme"):
        assert not os.path.exists(os.path.join(repo.path, d)), d
    assert b"keep me" in read(os.path.join(repo.path, "gptme.toml"))
    assert_git_keeps_working(repo)


# -- a damaged record: deleted, truncated, not JSON, the whole directory gone -----------------------
USER_CLAUDE = {"permissions": {"allow": ["Bash(ls)"]},
               "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}


def damage(repo, how):
    home = os.path.join(repo.path, ".git", "agentguard")
    path = os.path.join(home, "manifest.json")
    if how == "deleted":
        os.unlink(path)
    elif how == "truncated":
        data = read(path)
        with open(path, "wb") as fh:
            fh.write(data[:len(data) // 2])
    elif how == "invalid":
        with open(path, "wb") as fh:
            fh.write(b"{not json\n")
    elif how == "directory":
        shutil.rmtree(home)
    return {"deleted": "is missing", "truncated": "is unreadable", "invalid": "is unreadable",
            "directory": "is missing"}[how]


def everything_installed(make_repo):
    """Every layer on (--harness all: settings files, Codex trust, the push guard) over a user
    pre-commit hook and a user .claude/settings.json; returns (repo, bare, what was there before)."""
    import json
    repo, bare = make_repo(install=False)
    hooks = os.path.join(repo.path, ".git", "hooks")
    with open(os.path.join(hooks, "pre-commit"), "wb") as fh:
        fh.write(USER_HOOK)
    os.chmod(os.path.join(hooks, "pre-commit"), 0o755)
    os.makedirs(os.path.join(repo.path, ".claude"))
    with open(os.path.join(repo.path, ".claude", "settings.json"), "w") as fh:
        json.dump(USER_CLAUDE, fh)
    before = pristine(repo)
    repo.agentguard("install", "--harness", "all")
    assert "agw::" in repo.run("config", "-l").stdout
    assert os.path.exists(os.path.join(repo.env["HOME"], ".codex", "config.toml"))
    return repo, bare, before


def pristine(repo):
    """What must be as before after uninstall: the work tree (JSON files as data), the hooks, the
    repository's config as git reads it, and the files under HOME."""
    import json
    tree = {}
    for rel, (mode, data) in tree_snapshot(repo.path).items():
        if rel.startswith(".git" + os.sep):
            continue
        tree[rel] = (mode, json.loads(data) if rel.endswith(".json") else data)
    hooks = {rel: v for rel, v in tree_snapshot(os.path.join(repo.path, ".git", "hooks")).items()
             if not rel.endswith(".sample")}
    config = sorted(repo.run("config", "-l", "--local").stdout.splitlines())
    return tree, hooks, config, tree_snapshot(repo.env["HOME"])


def assert_git_keeps_working(repo):
    config = repo.run("config", "-l").stdout
    assert "agw" not in config and "remote-agw" not in config, config
    repo.run("checkout", "-q", "-b", "after-uninstall")
    repo.commit("work after uninstall")
    repo.run("push", "-q", "origin", "after-uninstall")
    assert repo.run("ls-remote", "origin", "refs/heads/after-uninstall").stdout.split()[0] == repo.rev("HEAD")
    repo.run("checkout", "-q", "main")


@pytest.mark.parametrize("how", ["deleted", "truncated", "invalid", "directory"])
def test_uninstall_with_a_damaged_record_takes_out_everything_recognisably_agentguards(make_repo, how):
    repo, bare, before = everything_installed(make_repo)
    problem = damage(repo, how)
    proc = repo.agentguard("uninstall")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr
    assert "manifest.json) %s" % problem in proc.stderr and "nothing of it is left" in proc.stderr, proc.stderr
    assert proc.stdout.startswith("agentguard: uninstalled from ")
    assert "removed the push guard's entries" in proc.stdout.splitlines()[1], "the push guard goes first"
    assert_git_keeps_working(repo)
    repo.run("branch", "-q", "-D", "after-uninstall")
    repo.run("push", "-q", "origin", "--delete", "after-uninstall")
    assert pristine(repo) == before
    assert os.listdir(os.path.join(repo.path, ".git", "agentguard")) in ([], ["lock"])


@pytest.mark.parametrize("how", ["deleted", "invalid"])
def test_install_and_uninstall_again_after_a_damaged_record_leave_nothing(make_repo, how):
    repo, bare, before = everything_installed(make_repo)
    damage(repo, how)
    assert "installed in" in repo.agentguard("install", "--harness", "all").stdout
    proc = repo.agentguard("uninstall")
    assert "warning" not in proc.stderr, proc.stderr
    assert pristine(repo) == before
    assert_git_keeps_working(repo)


def test_what_an_uninstall_with_no_record_left_behind_is_repaired_by_install_and_uninstall(make_repo):
    """The state an uninstall before this fix left with the record gone: the push guard's entries
    still in .git/config and its launcher deleted, so every push failed. An install and an uninstall
    put git back."""
    repo, bare, before = everything_installed(make_repo)
    home = os.path.join(repo.path, ".git", "agentguard")
    shutil.rmtree(home)
    for name in os.listdir(os.path.join(repo.path, ".git", "hooks")):
        if name != "pre-commit.agentguard-chained" and not name.endswith(".sample"):
            os.unlink(os.path.join(repo.path, ".git", "hooks", name))
    os.rename(os.path.join(repo.path, ".git", "hooks", "pre-commit.agentguard-chained"),
              os.path.join(repo.path, ".git", "hooks", "pre-commit"))
    repo.run("checkout", "-q", "-b", "side")
    proc = repo.run("push", "origin", "side", check=False)
    assert proc.returncode != 0 and "push-guard" in proc.stderr  # the defect: every push fails
    repo.run("checkout", "-q", "main")
    repo.run("branch", "-q", "-D", "side")
    repo.agentguard("install", "--harness", "all")
    repo.agentguard("uninstall")
    assert pristine(repo) == before
    assert_git_keeps_working(repo)


def test_uninstall_with_no_record_reaches_every_worktree(make_repo, tmp_path):
    repo, _ = make_repo(install=False)
    repo.agentguard("install", "--harness", "all")
    wt = str(tmp_path / "wt")
    repo.run("worktree", "add", "-q", "-b", "side", wt)
    assert os.path.exists(os.path.join(wt, ".pi", "extensions", "agentguard.ts"))
    os.unlink(os.path.join(repo.path, ".git", "agentguard", "manifest.json"))
    proc = repo.agentguard("uninstall")
    assert "nothing of it is left" in proc.stderr, proc.stderr
    assert repo.run("status", "--porcelain", cwd=wt).stdout == ""
    assert repo.run("status", "--porcelain").stdout == ""


def test_uninstall_where_nothing_was_installed_says_so_and_writes_nothing(make_repo):
    repo, _ = make_repo(install=False)
    before = tree_snapshot(repo.path)
    proc = repo.agentguard("uninstall")
    assert proc.stdout == "agentguard: not installed in %s; nothing to remove\n" % os.path.realpath(repo.path)
    assert proc.stderr == "" and tree_snapshot(repo.path) == before
    repo.agentguard("install")
    repo.agentguard("uninstall")
    assert "nothing to remove" in repo.agentguard("uninstall").stdout


def test_uninstall_after_the_user_edited_a_hook_that_chains_theirs(make_repo):
    repo, hooks = prepared(make_repo)
    ours = os.path.join(hooks, "pre-commit")
    with open(ours, "ab") as fh:
        fh.write(b"# tweaked by the user\n")
    edited = read(ours)
    proc = repo.agentguard("uninstall")
    assert read(ours) == edited  # their edit is theirs now: left in place
    chained = os.path.join(hooks, "pre-commit.agentguard-chained")
    assert read(chained) == USER_HOOK  # and their original hook is still there, named in the warning
    assert "changed since install" in proc.stderr and "pre-commit.agentguard-chained" in proc.stderr
    assert read(os.path.join(hooks, "pre-push")) == OTHER_HOOK  # the other hooks are restored
    assert not os.path.exists(os.path.join(hooks, "reference-transaction"))


def test_uninstall_with_a_manifest_from_before_created_dirs_were_recorded(make_repo):
    import json
    repo, hooks = prepared(make_repo)
    path = os.path.join(repo.path, ".git", "agentguard", "manifest.json")
    with open(path) as fh:
        record = json.load(fh)
    del record["created_dirs"]
    with open(path, "w") as fh:
        json.dump(record, fh)
    repo.agentguard("uninstall")
    assert_user_things_back(repo, hooks)
    for d in (".pi", ".hermes", ".gptme"):
        assert not os.path.exists(os.path.join(repo.path, d)), d


def test_uninstall_says_when_the_users_kept_hook_is_gone(make_repo):
    repo, hooks = prepared(make_repo)
    os.unlink(os.path.join(hooks, "pre-commit.agentguard-chained"))
    proc = repo.agentguard("uninstall")
    assert "your earlier pre-commit hook, which install kept as .git/hooks/pre-commit.agentguard-chained, is gone; " \
        "it could not be restored" in proc.stderr, proc.stderr
    assert not os.path.exists(os.path.join(hooks, "pre-commit"))
    assert read(os.path.join(hooks, "pre-push")) == OTHER_HOOK
    assert_git_keeps_working(repo)
