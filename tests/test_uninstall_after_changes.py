"""Uninstall after the world moved on: the runtime deleted, agentguard's whole directory deleted, a
hook that chains the user's edited by the user. Nothing of the user's is lost, and what uninstall
cannot decide it leaves in place and says so."""
import os
import shutil

from helpers import USER_HOOK, USER_TOML

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
    # the adapter files and gptme.toml, which only the manifest describes, are left and named
    repo, hooks = prepared(make_repo)
    shutil.rmtree(os.path.join(repo.path, ".git", "agentguard"))
    proc = repo.agentguard("uninstall")
    assert "Traceback" not in proc.stderr
    assert read(os.path.join(hooks, "pre-commit")) == USER_HOOK
    assert read(os.path.join(hooks, "pre-push")) == OTHER_HOOK
    assert not os.path.exists(os.path.join(hooks, "reference-transaction"))
    assert "no record of what install wrote" in proc.stderr
    assert os.path.exists(os.path.join(repo.path, ".pi", "extensions", "agentguard.ts"))
    assert b"keep me" in read(os.path.join(repo.path, "gptme.toml"))


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
