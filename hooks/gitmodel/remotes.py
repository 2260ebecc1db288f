"""A remote named by its name, or by a URL or path equal to a configured remote's URL."""
import os
from .. import lazyre


def _same_location(a, b, cwd):
    """Whether git reaches the same repository through ``a`` and through ``b``. Local paths: the
    directory git's receiving side enters for each (``enter_repo``: ``X/.git``, ``X``, ``X.git/.git``,
    ``X.git``, the first that is a repository). Other URLs: the same text up to trailing slashes, which
    every server drops; ``host:repo`` and ``host:repo.git`` may be two repositories there."""
    if a == b:
        return True
    pa, pb = local_path(a, cwd), local_path(b, cwd)
    if pa is None and pb is None:
        return a.rstrip("/") == b.rstrip("/")
    if pa is None or pb is None:
        return False
    ra, rb = entered_repo(pa), entered_repo(pb)
    return ra is not None and ra == rb


# enter_repo (setup.c): the suffixes git's upload-pack and receive-pack try, in order
ENTER_SUFFIXES = ("/.git", "", ".git/.git", ".git")


def entered_repo(path):
    """The real path of the repository git enters for the local ``path``, or None when it enters none:
    the first suffix that names a file or a directory, which git must then take for a repository
    (``rev-parse --resolve-git-dir``: a git directory or a gitfile) or fail."""
    import stat
    from .. import gitio
    path = path.rstrip("/") or "/"
    if path.startswith("~"):
        path = os.path.expanduser(path)
    for suffix in ENTER_SUFFIXES:
        candidate = path + suffix
        try:
            mode = os.stat(candidate).st_mode
        except (OSError, ValueError):
            continue
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            continue
        try:
            rc, out = gitio.run(["rev-parse", "--resolve-git-dir", candidate], cwd=os.sep)
        except gitio.GitError:
            return None
        if rc == 0:
            return os.path.realpath(os.path.join(candidate, out.decode("utf-8", "surrogateescape").rstrip("\n")))
        if stat.S_ISREG(mode):
            return None  # git takes the file and fails on it
    return None


def local_path(url, cwd):
    if url.startswith("file://"):
        return url[len("file://"):]
    if "://" in url or (":" in url.split("/", 1)[0] and not os.path.isabs(url)):
        return None  # a URL or an scp-like host:path
    return os.path.join(cwd or os.getcwd(), url)


def resolve(word, remotes, cwd=None):
    """The configured remotes ``word`` names: [its name], or every remote whose URL equals the URL
    or path ``word`` (``[]`` for an anonymous URL). ``remotes``: {name: url}."""
    if word in remotes:
        return [word]
    return [name for name, url in sorted(remotes.items()) if url and _same_location(word, url, cwd)]


def clone_dir(url, bare=False, bundle=False):
    """The directory ``git clone URL`` makes when it is given none: git's ``git_url_basename``
    (dir.c), the same steps in the same order; None where git dies ("No directory name could be
    guessed")."""
    start = url.find("://")
    start = 0 if start < 0 else start + 3
    at = start
    while at < len(url) and url[at] != "/":  # credentials: up to the last '@' of the host part
        if url[at] == "@":
            start = at + 1
        at += 1
    end = len(url)
    while start < end and (url[end - 1] == "/" or url[end - 1].isspace()):
        end -= 1
    if end - start > 5 and url[end - 5] == "/" and url[end - 4:end] == ".git":
        end -= 5
        while start < end and url[end - 1] == "/":
            end -= 1
    part = url[start:end]
    if "/" not in part and ":" in part:  # host:port alone: no port in the name
        digits = part.rstrip("0123456789")
        if digits.endswith(":"):
            end = start + len(digits) - 1
    ptr = end
    while start < ptr and url[ptr - 1] not in "/:":
        ptr -= 1
    name = url[ptr:end]
    suffix = ".bundle" if bundle else ".git"
    if name.endswith(suffix):
        name = name[:-len(suffix)]
    if not name or name == "/":
        return None
    if bare:
        name += ".git"
    # sequences of control characters and whitespace become one space, none at either end
    name = lazyre.sub(r"[\x00-\x20\x7f]+", " ", name).strip(" ")
    return name or None


# Config that makes `git fetch <remote>` (or a push's tracking update) read another place, another
# program or another refspec at the same name: from a command line (``-c``, ``GIT_CONFIG_*``) it is doubt.
SOURCE_KEYS = ("remote.", "url.", "core.sshcommand", "core.gitproxy")


def swaps_source(call, environ=None):
    """True when the call (a GitCall) or the configuration a command line put in the environment
    (``environ``: a hook's, which git fills from ``-c`` and ``GIT_CONFIG_*``; None: argv only) may
    make the remote it names answer from somewhere else: ``--upload-pack``, or ``SOURCE_KEYS``."""
    from .cli import environment_config
    if call.has("--upload-pack"):
        return True
    from_env = environment_config(environ) if environ is not None else []
    if from_env is None:
        return True  # a GIT_CONFIG_PARAMETERS git would not write: doubt
    return any(key.startswith(SOURCE_KEYS) for key, _ in list(call.config) + from_env)
