"""Users already have hooks: they are chained, still refuse, and come back byte for byte."""
import os
import shutil
import stat
import subprocess
import sys

import pytest

from helpers import NODE_MODULES, need_path, refused

HERE = os.path.dirname(os.path.abspath(__file__))

USER_HOOK = """#!/bin/sh
# the user's own {hook} hook
printf '%s\\n' "args:$*" >> "$(git rev-parse --git-common-dir)/{hook}.log"
cat >> "$(git rev-parse --git-common-dir)/{hook}.stdin" 2>/dev/null
[ ! -f BLOCK ] || {{ echo "user hook says no" >&2; exit 1; }}
"""
USER_HOOK_BASH = USER_HOOK.replace("#!/bin/sh", "#!/usr/bin/env bash")


def hooks_dir(repo):
    return os.path.join(repo.path, ".git", "hooks")


def write_user_hooks(repo, hooks, template=USER_HOOK, mode=0o750):
    saved = {}
    for hook in hooks:
        path = os.path.join(hooks_dir(repo), hook)
        data = template.format(hook=hook).encode()
        with open(path, "wb") as fh:
            fh.write(data)
        os.chmod(path, mode)
        saved[hook] = (data, mode)
    return saved


def read_log(repo, name):
    path = os.path.join(repo.path, ".git", name)
    return open(path).read() if os.path.exists(path) else ""


@pytest.mark.parametrize("template", [USER_HOOK, USER_HOOK_BASH], ids=["posix-sh", "bash"])
def test_user_hooks_are_chained_and_restored(make_repo, template):
    repo, bare = make_repo(install=False)
    hooks = ["pre-commit", "pre-push", "reference-transaction", "pre-rebase"]
    saved = write_user_hooks(repo, hooks, template)
    proc = repo.agentguard("install")
    for hook in hooks:  # the summary names every hook it kept
        assert "kept .git/hooks/%s as .git/hooks/%s.agentguard-chained (chained: it still runs)" % (hook, hook) \
            in proc.stdout, proc.stdout
    # protection works...
    assert refused(repo.run("commit", "--allow-empty", "-m", "x", check=False))
    # ...and the user's hooks still run, with the same arguments and stdin
    repo.run("checkout", "-q", "-b", "feat")
    repo.commit("feature")
    assert "args:" in read_log(repo, "pre-commit.log")
    assert "args:prepared" in read_log(repo, "reference-transaction.log")
    assert "args:committed" in read_log(repo, "reference-transaction.log")
    assert " refs/heads/feat\n" in read_log(repo, "reference-transaction.stdin")
    repo.run("push", "-q", "origin", "feat", "feat:other")
    assert "args:origin %s" % bare.path in read_log(repo, "pre-push.log")
    pushed = read_log(repo, "pre-push.stdin").splitlines()
    assert len(pushed) == 2 and {line.split()[2] for line in pushed} == {"refs/heads/feat", "refs/heads/other"}
    # the user's refusal still refuses
    open(os.path.join(repo.path, "BLOCK"), "w").close()
    repo.run("add", "BLOCK")
    proc = repo.run("commit", "-m", "blocked by the user", check=False)
    assert proc.returncode != 0 and "user hook says no" in proc.stderr
    proc = repo.run("push", "origin", "feat:third", check=False)
    assert proc.returncode != 0 and bare.rev("refs/heads/third") is None
    os.unlink(os.path.join(repo.path, "BLOCK"))
    repo.run("reset", "-q")
    # uninstall: every hook back, byte for byte, same mode
    repo.agentguard("uninstall")
    for hook, (data, mode) in saved.items():
        path = os.path.join(hooks_dir(repo), hook)
        assert open(path, "rb").read() == data
        assert stat.S_IMODE(os.stat(path).st_mode) == mode
    for hook in ("pre-merge-commit", "post-checkout"):
        assert not os.path.exists(os.path.join(hooks_dir(repo), hook))
    assert not [n for n in os.listdir(hooks_dir(repo)) if "agentguard" in n]
    repo.run("checkout", "-q", "main")
    repo.run("commit", "-q", "--allow-empty", "-m", "unguarded again")


def test_uninstall_leaves_a_modified_hook_in_place(make_repo):
    repo, _ = make_repo()
    path = os.path.join(hooks_dir(repo), "pre-push")
    with open(path, "a") as fh:
        fh.write("# my local tweak\n")
    edited = open(path, "rb").read()
    proc = repo.agentguard("uninstall")
    assert "changed since install" in proc.stderr
    assert open(path, "rb").read() == edited
    assert not os.path.exists(os.path.join(hooks_dir(repo), "pre-commit"))


def test_uninstall_then_reinstall_round_trip(make_repo):
    repo, _ = make_repo(install=False)
    before = sorted(os.listdir(hooks_dir(repo)))
    repo.agentguard("install")
    repo.agentguard("uninstall")
    assert sorted(os.listdir(hooks_dir(repo))) == before
    repo.agentguard("install")
    assert refused(repo.run("commit", "--allow-empty", "-m", "x", check=False))


def _pre_commit_config(repo):
    with open(os.path.join(repo.path, ".pre-commit-config.yaml"), "w") as fh:
        fh.write("repos:\n- repo: local\n  hooks:\n  - id: marker\n    name: marker\n"
                 "    entry: sh -c 'echo ran >> .git/framework.log'\n    language: system\n"
                 "    pass_filenames: false\n    always_run: true\n    stages: [pre-commit, pre-push]\n")
    repo.run("add", ".pre-commit-config.yaml")


def _pre_commit(repo, *args):
    exe = shutil.which("pre-commit", path=os.path.dirname(sys.executable))
    proc = subprocess.run([exe, *args], cwd=repo.path, env=repo.env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


@pytest.mark.parametrize("order", ["agentguard-first", "pre-commit-first"])
def test_pre_commit_framework_in_either_order(make_repo, order):
    repo, bare = make_repo(install=False)
    repo.run("checkout", "-q", "-b", "feat")
    _pre_commit_config(repo)
    if order == "agentguard-first":
        repo.agentguard("install")
        _pre_commit(repo, "install", "-t", "pre-commit", "-t", "pre-push")
    else:
        _pre_commit(repo, "install", "-t", "pre-commit", "-t", "pre-push")
        repo.agentguard("install")
    repo.run("commit", "-q", "-m", "feature")
    assert read_log(repo, "framework.log").count("ran") == 1
    repo.run("push", "-q", "origin", "feat")
    assert read_log(repo, "framework.log").count("ran") == 2
    main = repo.rev("main")
    assert refused(repo.run("push", "origin", "feat:main", check=False))
    repo.run("checkout", "-q", "main")
    assert refused(repo.run("commit", "--allow-empty", "-m", "x", check=False))
    assert refused(repo.run("commit", "--no-verify", "--allow-empty", "-m", "x", check=False))
    assert repo.rev("main") == main and bare.rev("main") == main
    # pre-commit uninstall leaves agentguard intact
    _pre_commit(repo, "uninstall", "-t", "pre-commit", "-t", "pre-push")
    assert refused(repo.run("commit", "--allow-empty", "-m", "x", check=False))
    repo.run("checkout", "-q", "feat")
    assert refused(repo.run("push", "origin", "feat:main", check=False))
    repo.agentguard("uninstall")
    left = sorted(n for n in os.listdir(hooks_dir(repo)) if not n.endswith(".sample"))
    if order == "agentguard-first":
        assert left == [], left
    else:
        # pre-commit's hooks were there before agentguard, so they are what uninstall puts back
        assert left == ["pre-commit", "pre-push"]
        assert all("pre-commit" in open(os.path.join(hooks_dir(repo), n)).read() for n in left)


def test_pre_commit_install_over_agentguard_then_agentguard_uninstall(make_repo):
    repo, _ = make_repo(install=False)
    _pre_commit_config(repo)
    repo.agentguard("install")
    _pre_commit(repo, "install", "-t", "pre-commit")
    assert os.path.exists(os.path.join(hooks_dir(repo), "pre-commit.legacy"))
    repo.agentguard("uninstall")
    # agentguard's hook (moved to .legacy by pre-commit) is gone; pre-commit's own hook stays
    assert not os.path.exists(os.path.join(hooks_dir(repo), "pre-commit.legacy"))
    assert "pre-commit" in open(os.path.join(hooks_dir(repo), "pre-commit")).read()
    repo.run("commit", "-q", "-m", "framework only now")
    assert read_log(repo, "framework.log").count("ran") == 1


def _husky(repo):
    bin_js = os.path.join(NODE_MODULES, "husky", "bin.js")
    need_path(bin_js)
    subprocess.run(["node", bin_js], cwd=repo.path, env=repo.env, check=True, capture_output=True)
    with open(os.path.join(repo.path, ".husky", "pre-commit"), "w") as fh:
        fh.write("echo husky-ran >> .git/husky.log\n")


def test_husky_v9(make_repo):
    repo, bare = make_repo(install=False)
    _husky(repo)
    stub = open(os.path.join(repo.path, ".husky", "_", "pre-commit"), "rb").read()
    repo.agentguard("install")
    assert os.path.exists(os.path.join(repo.path, ".husky", "_", "reference-transaction"))
    repo.run("checkout", "-q", "-b", "feat")
    repo.commit("feature")
    assert read_log(repo, "husky.log").count("husky-ran") == 1, "the user's husky hook must still run"
    repo.run("checkout", "-q", "main")
    assert refused(repo.run("commit", "--allow-empty", "-m", "x", check=False))
    main = repo.rev("main")
    env = dict(repo.env, HUSKY="0")  # disables husky, not agentguard
    assert refused(repo.run("commit", "--allow-empty", "-m", "x", env=env, check=False))
    assert repo.rev("main") == main
    repo.agentguard("uninstall")
    assert open(os.path.join(repo.path, ".husky", "_", "pre-commit"), "rb").read() == stub
    assert not os.path.exists(os.path.join(repo.path, ".husky", "_", "reference-transaction"))
