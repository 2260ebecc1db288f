"""Real git servers for tests: sshd, lighttpd + `git http-backend` (smart HTTP) and `git daemon`.

Each context manager takes `root`, a directory holding bare repositories (root/"remote.git"), and
`scratch`, a directory for its own files (configs, keys, logs). It starts the server bound to
127.0.0.1 on a free port in its own process group and yields a `Server`:

    server.url(name)   the URL of root/name on that transport
    server.env         environment variables a client needs (merge them into the git client's env)
    server.log         the server's output (scratch/<server>.log), for diagnosing a failure

The server side runs the git first on `path` (default: this process's PATH), so a test run under
another git version on PATH exercises that version on both sides of the wire. Each server gets
HOME=scratch/home and GIT_CONFIG_NOSYSTEM=1: no user or system git config leaks in.
A server that is not installed skips the test, and fails it under CI (helpers.need).
"""
import contextlib
import os
import pwd
import shlex
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from helpers import need

_SBIN = os.pathsep.join(["/usr/local/sbin", "/usr/sbin", "/sbin"])
SSH_ALIAS = "agtest"


class Server:
    def __init__(self, base, port, env=None, log=None, pid=None):
        self.base, self.port, self.env, self.log = base, port, dict(env or {}), log
        self.pid = pid  # the server's process group

    def url(self, name):
        return "%s/%s" % (self.base, name)


class SSHServer(Server):
    def __init__(self, root, *args, key_files=None, **kw):
        super().__init__(*args, **kw)
        self.root = root
        self.key_files = dict(key_files or {})

    def env_for(self, key):
        """The client environment that logs in with the named key of sshd(keys=...)."""
        return {"GIT_SSH_COMMAND": "%s -i %s" % (self.env["GIT_SSH_COMMAND"], shlex.quote(str(self.key_files[key])))}

    def scp_url(self, name):
        """The scp-like form, through the Host alias of the generated client config."""
        return "%s:%s/%s" % (SSH_ALIAS, self.root, name)


class HTTPServer(Server):
    def __init__(self, users, *args, **kw):
        super().__init__(*args, **kw)
        self.users = dict(users or {})

    def url(self, name, user=None):
        """With `user` (one of `users`), the URL carries that user's credentials."""
        if user is None:
            return super().url(name)
        return super().url(name).replace("http://", "http://%s:%s@" % (user, self.users[user]), 1)


def enable_http_push(repo_path):
    """Anonymous smart-HTTP push needs http.receivepack in the served repository (with `users`,
    git http-backend sees REMOTE_USER and allows it anyway)."""
    subprocess.run(["git", "config", "--file", os.path.join(repo_path, "config"), "http.receivepack", "true"],
                   check=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _require(name, path=None):
    exe = shutil.which(name, path=(path or os.environ.get("PATH", "")) + os.pathsep + _SBIN)
    return need(name, exe)


def _git_setup(root, scratch, path):
    """Absolute root and scratch, the git on `path` and the environment the server side runs git in."""
    root, scratch = Path(root).resolve(), Path(scratch).resolve()
    (scratch / "home").mkdir(parents=True, exist_ok=True)
    path = path or os.environ.get("PATH", os.defpath)
    git = _require("git", path)
    env = {"PATH": path, "HOME": str(scratch / "home"), "GIT_CONFIG_NOSYSTEM": "1"}
    return root, scratch, git, env


def _stop(proc):
    """SIGTERM the whole process group and wait until no live process of it is left (the server's
    children too: a connection's handler may outlive the server by a moment), then SIGKILL."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            if proc.poll() is not None and not running_in_group(proc.pid):
                return
            time.sleep(0.02)
    proc.wait()


def running_in_group(pgid):
    """Pids of live (not zombie) processes in process group ``pgid``, from /proc."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open("/proc/%s/stat" % entry) as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z" and int(fields[2]) == pgid:
                found.append(int(entry))
    return found


def _listening(proc, port, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return proc.poll() is None
        time.sleep(0.05)
    return False


@contextlib.contextmanager
def _serve(name, scratch, argv_for_port, env, timeout=10, attempts=3):
    """Run argv_for_port(port) (which also writes the config for that port) on a free port in its own
    process group until it accepts connections; yield (port, log file, pid); stop the group in any case. A start
    that fails (the port was taken meanwhile) is retried on another port; the last failure raises
    with the server's output."""
    log_path = Path(scratch) / ("%s.log" % name)
    for _ in range(attempts):
        port = free_port()
        argv = argv_for_port(port)
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                    env=env, start_new_session=True)
        try:
            if _listening(proc, port, timeout):
                break
        except BaseException:
            _stop(proc)
            raise
        _stop(proc)
    else:
        raise RuntimeError("%s did not listen on 127.0.0.1:%d (exit %s), %s:\n%s"
                           % (name, port, proc.returncode, shlex.join(argv), log_path.read_text(errors="replace")))
    try:
        yield port, log_path, proc.pid
    finally:
        _stop(proc)


def _write(path, text, mode=None):
    path.write_text(text)
    if mode is not None:
        path.chmod(mode)
    return path


def _keygen(path):
    if not path.exists():
        subprocess.run([_require("ssh-keygen"), "-q", "-t", "ed25519", "-N", "", "-C", path.name, "-f", str(path)],
                       check=True, stdin=subprocess.DEVNULL)
    return path


@contextlib.contextmanager
def sshd(root, scratch, path=None, key_env=None, keys=None):
    """OpenSSH's sshd, logging in as the current user with a fresh key.

    `key_env` adds `environment=` options to that key (e.g. {"AGENTGUARD_PUSHER": "alice"}); `keys`
    ({name: env}) adds one more key per name with its own `environment=`: server.env_for(name) logs
    in with it.

    Yields an SSHServer: url(name) is ssh://<user>@127.0.0.1:<port><root>/<name>, scp_url(name) is
    agtest:<root>/<name>, env is {"GIT_SSH_COMMAND": "ssh -F <client config>"}; the client config
    pins the server's host key (StrictHostKeyChecking yes) and never reads ~/.ssh (which OpenSSH
    takes from the passwd entry, not $HOME)."""
    exe = _require("sshd")   # absolute, as sshd requires to re-exec itself
    root, scratch, _, git_env = _git_setup(root, scratch, path)
    user = pwd.getpwuid(os.getuid()).pw_name
    is_root = os.getuid() == 0
    if is_root:   # the privilege separation directory, which only root's sshd needs
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
    host_key, client_key = _keygen(scratch / "ssh_host_ed25519_key"), _keygen(scratch / "client_ed25519_key")
    # The login shell runs git-upload-pack/git-receive-pack with the environment sshd gives it. The
    # `environment=` option of the authorized key (honoured with PermitUserEnvironment yes) sets
    # PATH, so that is the tests' git rather than sshd's default /usr/bin:/bin, and HOME, so that
    # bash (built to source ~/.bashrc under sshd) does not read the real user's .bashrc, which may
    # change PATH. (The client's SetEnv only passes what AcceptEnv lists; sshd_config's SetEnv
    # needs OpenSSH >= 8.7.)
    def options(extra):
        return ",".join('environment="%s=%s"' % (k, v.replace("\\", "\\\\").replace('"', '\\"'))
                        for k, v in dict(git_env, **(extra or {})).items())
    key_files = {name: _keygen(scratch / ("client_%s_ed25519_key" % name)) for name in keys or {}}
    authorized = _write(scratch / "authorized_keys", "".join(
        "%s %s" % (options(extra), key.with_suffix(".pub").read_text())
        for key, extra in [(client_key, key_env)] + [(key_files[n], (keys or {})[n]) for n in key_files]))
    known_hosts = _write(scratch / "known_hosts", "%s %s" % (SSH_ALIAS, Path(str(host_key) + ".pub").read_text()))
    cfg = scratch / "sshd_config"

    def argv(port):
        _write(cfg, "\n".join([
            "HostKey %s" % host_key, "ListenAddress 127.0.0.1", "Port %d" % port,
            "AuthorizedKeysFile %s" % authorized, "PidFile %s" % (scratch / "sshd.pid"),
            "StrictModes no", "UsePAM no", "PasswordAuthentication no", "KbdInteractiveAuthentication no",
            "PubkeyAuthentication yes", "PermitUserEnvironment yes", "AcceptEnv GIT_PROTOCOL",
            "UseDNS no", "PrintMotd no", "PrintLastLog no",
        ] + (["PermitRootLogin prohibit-password"] if is_root else [])) + "\n")
        # Every host is this server: the scp form goes through the alias, the ssh:// form names
        # 127.0.0.1 and its port; HostKeyAlias makes one known_hosts line serve both and any port.
        _write(scratch / "ssh_config", "\n".join([
            "Host %s" % SSH_ALIAS, "  Hostname 127.0.0.1",
            "Host *", "  Port %d" % port, "  User %s" % user, "  IdentityFile %s" % client_key,
            "  IdentitiesOnly yes", "  IdentityAgent none", "  HostKeyAlias %s" % SSH_ALIAS,
            "  UserKnownHostsFile %s" % known_hosts, "  GlobalKnownHostsFile /dev/null",
            "  StrictHostKeyChecking yes", "  BatchMode yes", "  LogLevel ERROR",
        ]) + "\n", 0o600)
        return [exe, "-D", "-e", "-f", str(cfg)]

    with _serve("sshd", scratch, argv, env={"PATH": os.environ.get("PATH", os.defpath)}) as (port, log, pid):
        env = {"GIT_SSH_COMMAND": "ssh -F %s" % shlex.quote(str(scratch / "ssh_config"))}
        yield SSHServer(root, "ssh://%s@127.0.0.1:%d%s" % (user, port, root), port, env, log, pid,
                        key_files=key_files)


def _lighttpd_str(value):
    return '"%s"' % str(value).replace("\\", "\\\\").replace('"', '\\"')


@contextlib.contextmanager
def http_backend(root, scratch, path=None, users=None):
    """lighttpd running `git http-backend` (smart HTTP) as CGI under /git/.

    Yields an HTTPServer: url(name) is http://127.0.0.1:<port>/git/<name>, env has
    GIT_TERMINAL_PROMPT=0. Without `users`, push needs enable_http_push(repo) on each repository.
    With users={name: password}, every request needs HTTP basic auth (REMOTE_USER is then set,
    which also enables push); url(name, user=name) carries the credentials."""
    exe = _require("lighttpd")
    root, scratch, git, git_env = _git_setup(root, scratch, path)
    exec_path = subprocess.run([git, "--exec-path"], env=git_env, check=True, capture_output=True,
                               text=True).stdout.strip()
    backend = os.path.join(exec_path, "git-http-backend")
    (scratch / "www").mkdir(exist_ok=True)
    cgi_env = dict(git_env, GIT_PROJECT_ROOT=str(root), GIT_HTTP_EXPORT_ALL="1")
    auth = []
    if users:
        userfile = _write(scratch / "htpasswd", "".join("%s:%s\n" % kv for kv in users.items()), 0o600)
        auth = ['auth.backend = "plain"', "auth.backend.plain.userfile = %s" % _lighttpd_str(userfile),
                'auth.require = ("/git/" => ("method" => "basic", "realm" => "git", "require" => "valid-user"))']
    conf = scratch / "lighttpd.conf"

    def argv(port):
        # No server.username: run as the invoking user (as root too), who owns the repositories.
        _write(conf, "\n".join([
            'server.modules = ("mod_auth", "mod_authn_file", "mod_alias", "mod_setenv", "mod_cgi")',
            'server.bind = "127.0.0.1"', "server.port = %d" % port,
            "server.document-root = %s" % _lighttpd_str(scratch / "www"),
            "server.upload-dirs = (%s)" % _lighttpd_str(scratch),
            'alias.url = ("/git/" => %s)' % _lighttpd_str(backend + "/"),
            'cgi.assign = ("" => "")',
            "setenv.add-environment = (%s)" % ", ".join("%s => %s" % (_lighttpd_str(k), _lighttpd_str(v))
                                                       for k, v in cgi_env.items()),
        ] + auth) + "\n")
        return [exe, "-D", "-f", str(conf)]

    with _serve("lighttpd", scratch, argv, env=git_env) as (port, log, pid):
        yield HTTPServer(users, "http://127.0.0.1:%d/git" % port, port, {"GIT_TERMINAL_PROMPT": "0"}, log, pid)


@contextlib.contextmanager
def git_daemon(root, scratch, path=None):
    """`git daemon` exporting every repository under root, receive-pack enabled.
    Yields a Server: url(name) is git://127.0.0.1:<port>/<name>, env is empty."""
    root, scratch, git, git_env = _git_setup(root, scratch, path)

    def argv(port):
        return [git, "daemon", "--reuseaddr", "--listen=127.0.0.1", "--port=%d" % port, "--base-path=%s" % root,
                "--export-all", "--enable=receive-pack", "--informative-errors", str(root)]

    with _serve("git-daemon", scratch, argv, env=git_env) as (port, log, pid):
        yield Server("git://127.0.0.1:%d" % port, port, log=log, pid=pid)
