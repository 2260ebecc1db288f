"""The ``connect`` capability for the runtime's helper: git's own push runs over the helper's stdin
and stdout, on one connection to the remote's receive-pack that the helper opens as git would
(connect.c: a local path or ``file:///``, ssh in both spellings), and the update request in it is
judged by ``relay`` before the remote sees it. Where git would do something this does not (another
ssh variant, a percent-escaped or bracketed URL, a protocol allow rule, ``git://``), the helper
answers ``fallback`` and git pushes through the helper's ``list``/``push`` commands instead."""
import os

from .. import gitio

# what `git rev-parse --local-env-vars` names (2.39 to 2.47): git runs the remote side without them
LOCAL_ENV = ("GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT",
             "GIT_OBJECT_DIRECTORY", "GIT_DIR", "GIT_WORK_TREE", "GIT_IMPLICIT_WORK_TREE", "GIT_GRAFT_FILE",
             "GIT_INDEX_FILE", "GIT_NO_REPLACE_OBJECTS", "GIT_REPLACE_REF_BASE", "GIT_PREFIX",
             "GIT_INTERNAL_SUPER_PREFIX", "GIT_SHALLOW_FILE", "GIT_COMMON_DIR")
SSH_SCHEMES = ("ssh://", "git+ssh://", "ssh+git://")


def sq(text):
    """``text`` single-quoted as git's sq_quote_buf writes it for the remote shell."""
    return "'" + text.replace("'", "'\\''").replace("!", "'\\!'") + "'"


def parse_ssh(url):
    """(user@host, port or None, path) of an ssh URL as git's connect.c reads it; None for any
    form this does not take (left to git)."""
    if "%" in url or "[" in url:
        return None
    for scheme in SSH_SCHEMES:
        if url.startswith(scheme):
            rest = url[len(scheme):]
            hostport, slash, path = rest.partition("/")
            if not slash or not hostport:
                return None
            path = "/" + path
            if path.startswith("/~"):
                path = path[1:]
            host, colon, port = hostport.rpartition(":") if ":" in hostport.rpartition("@")[2] else (hostport, "", "")
            if colon and not port.isdigit():
                return None
            return host, port or None, path
    colon = url.find(":")
    slash = url.find("/")
    if colon <= 0 or (0 <= slash < colon) or "://" in url:
        return None
    return url[:colon], None, url[colon + 1:]


def git_rules(env=None):
    """{key: value} of the config that decides how git connects (core.sshCommand, ssh.variant,
    protocol.*), asked of git; None when git applies something here not done: a protocol allow
    rule or protocol version 1 (0 and 2 mean v0 for receive-pack, as here)."""
    env = os.environ if env is None else env
    if env.get("GIT_ALLOW_PROTOCOL") is not None or env.get("GIT_PROTOCOL_FROM_USER") is not None:
        return None
    rc, out = gitio.run(["config", "-z", "--get-regexp", r"^(core\.sshcommand|ssh\.variant|protocol\..*)$"])
    config = {}
    for item in out.decode("utf-8", "surrogateescape").split("\0"):
        key, _, value = item.partition("\n")
        if key:
            config[key.lower()] = value
    if rc not in (0, 1) or any(k.startswith("protocol.") and k.endswith(".allow") for k in config) \
            or config.get("protocol.version", "2").strip() not in ("0", "2"):
        return None
    return config


def ssh_command(config, env=None):
    """(program, through a shell) git runs for ssh, or None when git would pick a variant other than
    plain OpenSSH: read as connect.c reads it."""
    env = os.environ if env is None else env
    if env.get("GIT_SSH_VARIANT") not in (None, "ssh") or config.get("ssh.variant", "ssh") != "ssh":
        return None
    command = env.get("GIT_SSH_COMMAND") or config.get("core.sshcommand")
    if command:
        first = command.split()[0] if command.split() else ""
        return (command, True) if os.path.basename(first) == "ssh" else None
    program = env.get("GIT_SSH") or "ssh"
    return (program, False) if os.path.basename(program) == "ssh" else None


def target(url, family=None):
    """(argv, env) that opens git's connection to the receive-pack of ``url``, or None (fallback)."""
    env = {k: v for k, v in os.environ.items() if k not in LOCAL_ENV}
    local = None
    if url.startswith("file:///"):
        local = url[len("file://"):] if "%" not in url else None
    elif not url.startswith(SSH_SCHEMES):
        if "://" in url or "::" in url:
            return None
        colon, slash = url.find(":"), url.find("/")
        if colon < 0 or 0 <= slash < colon:  # git's url_is_local_not_ssh
            local = url
    parsed = parse_ssh(url) if local is None else None
    if local is None and parsed is None:
        return None
    config = git_rules()
    if config is None:
        return None
    if local is not None:
        return [gitio.program(), "receive-pack", local], env
    ssh = ssh_command(config)
    if ssh is None or parsed is None:
        return None
    userhost, port, path = parsed
    if userhost.startswith("-") or not path:
        return None
    program, shell = ssh
    args = (["-p", port] if port else []) + {"ipv4": ["-4"], "ipv6": ["-6"]}.get(family, [])
    args += [userhost, "git-receive-pack %s" % sq(path)]
    if shell:
        return ["/bin/sh", "-c", program + ' "$@"', program] + args, env
    return [program] + args, env


def read_advertisement(fd):
    """(raw bytes, {ref: oid}) of receive-pack's advertisement up to and with its flush (empty when
    the remote ended first: git then says why)."""
    from .relay import read_exact
    raw: list = []
    listed: dict = {}
    while True:
        try:
            head = read_exact(fd, 4)
            n = int(head, 16)
            data = read_exact(fd, n - 4) if n > 4 else b""
        except (EOFError, ValueError):
            return b"".join(raw), None
        raw.append(head + data)
        if n == 0:
            return b"".join(raw), listed
        text = data.split(b"\0", 1)[0].rstrip(b"\n").decode("utf-8", "surrogateescape")
        oid, _, ref = text.partition(" ")
        if ref.startswith("refs/"):
            listed[ref] = oid


def copy(src, dst):
    while True:
        data = os.read(src, 65536)
        if not data:
            return
        view = memoryview(data)
        while view:
            view = view[os.write(dst, view):]


def run(argv, env, ag_home, remote, url, stdin_fd=0, stdout_fd=1):
    """Open the connection, pass its advertisement on to git (keeping the listing), then relay git's
    request through the judge while the remote's answer goes back to git as it comes; the exit status."""
    from .relay import read_exact, relay
    to_child, wfd = os.pipe()
    rfd, from_child = os.pipe()
    try:
        pid = os.posix_spawnp(argv[0], argv, env, file_actions=[
            (os.POSIX_SPAWN_DUP2, to_child, 0), (os.POSIX_SPAWN_DUP2, from_child, 1),
            (os.POSIX_SPAWN_CLOSE, to_child), (os.POSIX_SPAWN_CLOSE, from_child),
            (os.POSIX_SPAWN_CLOSE, wfd), (os.POSIX_SPAWN_CLOSE, rfd)])
    finally:
        os.close(to_child)
        os.close(from_child)
    raw, listed = read_advertisement(rfd)
    os.write(stdout_fd, raw)
    import threading
    back = threading.Thread(target=copy, args=(rfd, stdout_fd))  # the report, as receive-pack writes it
    back.start()
    status = 1
    if listed is not None:
        try:
            head = read_exact(stdin_fd, 4)
        except EOFError:
            head = b""
        if head in (b"", b"0000"):
            os.write(wfd, head)
            os.close(wfd)
            status = 0
        else:
            status = relay(head, [], remote, url, ag_home, stdin_fd, wfd, stdout_fd, listed=listed)
    else:
        os.close(wfd)
    back.join()
    os.close(rfd)
    _, code = os.waitpid(pid, 0)
    return status or (128 if os.waitstatus_to_exitcode(code) else 0)
