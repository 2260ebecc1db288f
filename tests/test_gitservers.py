"""The real git servers of gitservers.py work: over each transport, push main, see it with ls-remote,
push a second branch and delete it; the server side runs the same git as the client."""
import functools
import socket
import subprocess

import pytest

from gitservers import enable_http_push, git_daemon, http_backend, running_in_group, sshd
from helpers import Git, _base_env

USERS = {"alice": "s3cret"}
# transport -> (context manager, the URL of a repository on it)
TRANSPORTS = {
    "ssh": (sshd, lambda server, name: server.url(name)),
    "ssh-scp": (sshd, lambda server, name: server.scp_url(name)),
    "http": (http_backend, lambda server, name: server.url(name)),
    "http-auth": (functools.partial(http_backend, users=USERS), lambda server, name: server.url(name, user="alice")),
    "git": (git_daemon, lambda server, name: server.url(name)),
}


@pytest.fixture
def env(tmp_path):
    (tmp_path / "home").mkdir()
    return _base_env(tmp_path / "home")


def _heads(repo, url):
    out = repo.run("ls-remote", "--heads", url).stdout
    return {ref: sha for sha, ref in (line.split("\t") for line in out.splitlines())}


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_push_ls_remote_and_delete(tmp_path, env, transport):
    serve, url_of = TRANSPORTS[transport]
    root = tmp_path / "srv"
    bare = root / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], env=env, check=True)
    if transport == "http":
        enable_http_push(bare)
    # Which git received the push: receive-pack puts its own exec-path first on the hook's PATH.
    hook = bare / "hooks" / "post-receive"
    hook.write_text("#!/bin/sh\ngit --version > server-git-version\n")
    hook.chmod(0o755)
    subprocess.run(["git", "init", "-q", "-b", "main", str(tmp_path / "work")], env=env, check=True)
    with serve(root, tmp_path / "scratch") as server:
        repo = Git(str(tmp_path / "work"), dict(env, **server.env))
        repo.commit("initial")
        url = url_of(server, "remote.git")
        repo.run("push", "-q", url, "main")
        assert _heads(repo, url) == {"refs/heads/main": repo.rev("main")}
        assert (bare / "server-git-version").read_text() == repo.run("--version").stdout
        repo.run("push", "-q", url, "main:refs/heads/topic")
        assert set(_heads(repo, url)) == {"refs/heads/main", "refs/heads/topic"}
        repo.run("push", "-q", url, "--delete", "topic")
        assert set(_heads(repo, url)) == {"refs/heads/main"}
        if transport == "http-auth":
            denied = repo.run("ls-remote", server.url("remote.git"), check=False)
            assert denied.returncode != 0 and "could not read Username" in denied.stderr


@pytest.mark.parametrize("serve", [sshd, http_backend, git_daemon])
def test_stopped_when_the_body_raises(tmp_path, serve):
    (tmp_path / "srv").mkdir()
    with pytest.raises(ZeroDivisionError), serve(tmp_path / "srv", tmp_path / "scratch") as server:
        socket.create_connection(("127.0.0.1", server.port), timeout=5).close()
        assert server.pid in running_in_group(server.pid)
        1 / 0
    # nothing of the server's process group runs any more (not "the port refuses": under xdist another
    # worker's server may be given the same port a moment later; exited children may stay zombies
    # until init reaps them)
    assert running_in_group(server.pid) == []
