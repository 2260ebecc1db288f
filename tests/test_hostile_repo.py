"""The installer writes into a repository it does not trust: symlinks, FIFOs and directories where
files are expected, hooks directories outside. Nothing outside the repository is created or changed."""
import os

import pytest

from helpers import Git, refused
from helpers import tree_snapshot


@pytest.fixture
def outside(tmp_path):
    d = tmp_path / "outside"
    d.mkdir()
    (d / "sentinel.txt").write_text("untouched\n")
    return d


@pytest.mark.parametrize("link", [".pi", ".pi/extensions", ".hermes", ".hermes/plugins", ".gptme", "gptme.toml",
                                  ".pi/extensions/agentguard.ts", ".gptme/verify-completion.sh"])
def test_symlink_out_of_the_repository_is_refused(make_repo, outside, link):
    repo, _ = make_repo(install=False)
    path = os.path.join(repo.path, link)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    target = outside / "target"
    if link.endswith((".toml", ".ts", ".sh")):
        target.write_text("outside file\n")
    else:
        target.mkdir()
    os.symlink(str(target), path)
    before = tree_snapshot(str(outside))
    proc = repo.agentguard("install", check=False)
    assert proc.returncode == 1 and "outside the repository" in proc.stderr and "Traceback" not in proc.stderr
    assert tree_snapshot(str(outside)) == before


def test_dangling_symlink_where_a_file_goes(make_repo, outside):
    repo, _ = make_repo(install=False)
    os.symlink(str(outside / "nothing-yet"), os.path.join(repo.path, "gptme.toml"))
    proc = repo.agentguard("install", check=False)
    assert proc.returncode == 1 and not (outside / "nothing-yet").exists()


@pytest.mark.parametrize("kind", ["fifo", "dir"])
def test_fifo_or_directory_where_a_file_is_expected(make_repo, kind):
    repo, _ = make_repo(install=False)
    path = os.path.join(repo.path, "gptme.toml")
    os.mkfifo(path) if kind == "fifo" else os.mkdir(path)
    proc = repo.agentguard("install", check=False)
    assert proc.returncode == 1 and "not a regular file" in proc.stderr and "Traceback" not in proc.stderr


def test_hooks_path_outside_the_repository_is_refused(make_repo, outside):
    repo, _ = make_repo(install=False)
    repo.run("config", "core.hooksPath", str(outside))
    before = tree_snapshot(str(outside))
    proc = repo.agentguard("install", check=False)
    assert proc.returncode == 1 and "outside this repository" in proc.stderr
    assert tree_snapshot(str(outside)) == before


def test_symlink_inside_the_repository_is_fine(make_repo):
    repo, _ = make_repo(install=False)
    os.makedirs(os.path.join(repo.path, "config", "pi"))
    os.symlink(os.path.join(repo.path, "config", "pi"), os.path.join(repo.path, ".pi"))
    repo.agentguard("install")
    assert os.path.isfile(os.path.join(repo.path, "config", "pi", "extensions", "agentguard.ts"))


def test_submodule_with_a_dot_git_file(make_repo):
    """A submodule's `.git` is a file pointing into the superproject's `.git/modules/`: install follows
    it (hooks where git reads them for the submodule), writes adapters in the submodule's work tree,
    and the submodule's main is protected; the superproject is untouched."""
    sub_origin, _ = make_repo("subsrc", remote=False, install=False)
    repo, _ = make_repo(install=False)
    repo.run("-c", "protocol.file.allow=always", "submodule", "add", "-q", sub_origin.path, "sub")
    sub = Git(os.path.join(repo.path, "sub"), repo.env)
    assert os.path.isfile(os.path.join(sub.path, ".git"))
    super_hooks = sorted(os.listdir(os.path.join(repo.path, ".git", "hooks")))
    sub.agentguard("install")
    hooks_dir = sub.run("rev-parse", "--git-path", "hooks").stdout.strip()
    hooks_dir = os.path.normpath(os.path.join(sub.path, hooks_dir))
    assert hooks_dir.startswith(os.path.join(repo.path, ".git", "modules"))
    assert os.path.exists(os.path.join(hooks_dir, "reference-transaction"))
    assert os.path.exists(os.path.join(sub.path, ".pi", "extensions", "agentguard.ts"))
    assert sorted(os.listdir(os.path.join(repo.path, ".git", "hooks"))) == super_hooks
    main = sub.rev("main")
    with open(os.path.join(sub.path, "s.txt"), "w") as fh:
        fh.write("s\n")
    sub.run("add", "s.txt")
    sub.run("checkout", "-q", "main")
    proc = sub.run("commit", "-q", "--no-verify", "-m", "on the submodule's main", check=False)
    assert refused(proc) and sub.rev("main") == main
    assert sub.staged() == ["s.txt"]
    assert sub.agentguard("doctor", check=False).returncode == 0
