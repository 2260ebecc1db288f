"""Install side of the push guard in git's transport (``hooks/pushguard``).

Install writes, in the repository's own config file: ``alias.remote-agw`` (how git finds the helper,
for every user and process, without PATH: git runs ``git remote-agw`` and falls back to the alias),
one ``url."agw::<E>".pushInsteadOf = <P>`` per covered prefix P (each remote's URL, the host it
names, and any longer rewrite prefix of the user's under them), where E is the URL git itself
would push to for P without the guard (so the user's own ``insteadOf`` rules keep working), and
``agw::`` in front of each explicit ``remote.<name>.pushurl`` (git ignores pushInsteadOf for those),
and one catch-all ``url."agw::agw::".pushInsteadOf = ""`` (``CATCH_ALL``): the empty prefix matches
every URL and git takes the longest matching prefix (remote.c, alias_url), so a remote added after
install pushes through the guard at once, while the rules above (and the user's own longer
pushInsteadOf rules) still win. git then applies no ``insteadOf`` to that URL, so the doubled
``agw::`` tells the helper to resolve the URL as git would (``hooks/pushguard/helper.resolve``).
The config is planned on a copy and written whole; uninstall writes back the exact bytes when
nothing else changed, else removes only these entries.
"""
import os
import re
import shutil
import tempfile

from ...hooks.pushguard.connect import LOCAL_ENV
from ...hooks.pushguard.coverage import parse_push_urls
from ...hooks.pushguard.coverage import PREFIX, SCHEME
from ...hooks.textsafe import safe
from ..errors import AgentguardError
from ..fsops import read_regular, sha256_bytes
from ..gitaccess.gitenv import git

ALIAS_KEY = "alias.remote-" + SCHEME
# git runs the alias with GIT_DIR set (transport-helper.c); that is the common dir unless a linked
# worktree's (a commondir file) or the caller's GIT_COMMON_DIR says otherwise: then git is asked.
# The launcher is read into the alias's own shell (one shell start less; it knows it was by $0),
# only while it is executable, as when it was run.
# A launcher that is gone says so (a push failing without a word is no answer); git appends "$@" to
# the alias, so it ends with the launcher's own command.
ALIAS = ('!d=${GIT_DIR-}; { [ -n "$d" ] && [ -z "${GIT_COMMON_DIR-}" ] && [ ! -e "$d/commondir" ]; } || '
         'd=$(git rev-parse --git-common-dir) || exit 1; [ -x "$d/agentguard/push-guard" ] || { echo "agentguard: '
         'the push guard\'s launcher $d/agentguard/push-guard is missing; run agentguard install (or agentguard '
         'uninstall) to repair git\'s pushes" >&2; exit 1; }; . "$d/agentguard/push-guard"')
LAUNCHER_NAME = "push-guard"
BEFORE_NAME = "config.before"
CATCH_ALL = PREFIX + PREFIX  # the base of the catch-all rule: the helper resolves what follows it
SCP = re.compile(r"\A([^/:@]+@)?([^/:]+):(?!//)")
URL = re.compile(r"\A([A-Za-z][A-Za-z0-9+.-]*)://([^/]*)/")
REMOTE_KEYS = r"^remote\..*\.(url|pushurl)$"
REWRITE_KEYS = r"^url\..*\.(pushinsteadof|insteadof)$"


def launcher(python, git=None, policy=None, cat=None):
    """The launcher's bytes (``templates/adapters/push-guard.sh``) for ``python``, ``git`` and ``cat``
    (those install finds now when None) and ``policy`` (its protected names in the shell's fast
    path; None: every push goes to the runtime)."""
    from importlib import resources
    from ..harness.adapters import sh_quote
    from .hookscripts import reftx_prefilter, tools
    text = resources.files("agentguard.templates").joinpath("adapters", "push-guard.sh").read_text("utf-8")
    found = tools() if git is None or cat is None else {}
    for key, value in (("@AG_GIT@", sh_quote(git or found["git"])), ("@AG_PY@", sh_quote(python)),
                       ("@AG_CAT@", sh_quote(cat or found["cat"])), ("@AG_DD@", sh_quote(_tool("dd"))),
                       ("@AG_TR@", sh_quote(_tool("tr"))), ("@LOCAL_ENV@", " ".join(LOCAL_ENV)),
                       ("@ZERO40@", "0" * 40), ("@ZERO64@", "0" * 64),
                       ("@PREFILTER@", reftx_prefilter(policy) if policy is not None else "*")):
        text = text.replace(key, value)
    return text.encode()


def _tool(name):
    """``name`` (dd, tr) by a fixed path (the caller's PATH is not asked), the same for install and
    the doctor."""
    for path in ("/bin/" + name, "/usr/bin/" + name):
        if os.access(path, os.X_OK):
            return path
    return shutil.which(name) or name


def config_path(info):
    return os.path.join(info.common_dir, "config")


def _cfg(path, args, check=True):
    return git(["config", "--file", path] + args, os.path.dirname(path), check=check)


def host_prefixes(url):
    """The prefixes that name the host of ``url`` (both ssh spellings), or none for a local path."""
    m = URL.match(url)
    if m:
        out = [m.group(0)]
        if m.group(1) == "ssh" and ":" not in m.group(2):
            out.append(m.group(2) + ":")
        return out
    m = SCP.match(url)
    if m and not os.path.isabs(url):
        return [m.group(0), "ssh://%s%s/" % (m.group(1) or "", m.group(2))]
    return []


def remote_urls(info, ask=None):
    """{remote: ([url...], [pushurl...])} as git reads them (every config level), the guard's own
    ``agw::`` taken off the pushurls; ``ask(args)``: how to put the config question (default: git itself)."""
    args = ["config", "--get-regexp", REMOTE_KEYS]
    out = ask(args) if ask is not None else git(args, info.top, check=False)
    remotes = {}
    for row in out.splitlines():
        key, _, value = row.partition(" ")
        name, kind = key[len("remote."):].rsplit(".", 1)
        while value.startswith(PREFIX):
            value = value[len(PREFIX):]
        remotes.setdefault(name, ([], []))[kind == "pushurl"].append(value)
    return remotes


def _remotes_and_rewrites(info):
    """(``remote_urls``, every ``url.*.(push)insteadOf`` prefix git reads but the guard's own): one
    ``git config`` for both."""
    out = git(["config", "--get-regexp", "%s|%s" % (REMOTE_KEYS, REWRITE_KEYS)], info.top, check=False)
    remote_rows, found = [], []
    for row in out.splitlines():
        key, _, value = row.partition(" ")
        if key.startswith("remote."):
            remote_rows.append(row)
        elif not key[len("url."):].startswith(PREFIX):
            found.append(value)
    return remote_urls(info, lambda args: "\n".join(remote_rows)), found


def _effective(base_config, urls, pushurls):
    """What git pushes to, without the guard, for a remote whose URL is each of ``urls`` (and for
    each explicit pushurl): asked of git, on a throwaway git dir holding the config being planned
    (nothing to ask: no git at all)."""
    if not urls and not pushurls:
        return {}
    with tempfile.TemporaryDirectory(prefix="agentguard-") as tmp:
        git(["init", "-q", "--bare", tmp], tmp)
        with open(os.path.join(tmp, "config"), "wb") as fh:
            fh.write(base_config)
        args = []
        names = {}
        for i, value in enumerate(urls + pushurls):
            name = "agentguard-probe-%d" % i
            names[name] = (i < len(urls), value)
            args += ["-c", "remote.%s.url=%s" % (name, value if i < len(urls) else "x")]
            if i >= len(urls):
                args += ["-c", "remote.%s.pushurl=%s" % (name, value)]
        out = git(["--git-dir", tmp] + args + ["remote", "-v"], tmp, check=False) if names else ""
    return {names[name]: urls[0] for name, urls in parse_push_urls(out).items() if name in names and urls}


def plan(info, previous, want, enabled=True):
    """Plan the config write; returns the manifest record (``{}`` when ``enabled`` is false: then
    only a previous install's entries are taken out)."""
    path = config_path(info)
    current = read_regular(path)
    if current is None:
        raise AgentguardError("%s is not a regular file" % safe(path, 300))
    with tempfile.TemporaryDirectory(prefix="agentguard-") as tmp:
        work = os.path.join(tmp, "config")
        with open(work, "wb") as fh:
            fh.write(current)
        remove(work, previous.get("push_guard") or {})
        scrub(work)  # what a lost or older record left: config.before never holds the guard
        with open(work, "rb") as fh:
            base = fh.read()
        if not enabled:
            if base != current:
                want(path, base, os.stat(path).st_mode & 0o7777)
            return {}
        remotes, rewrites = _remotes_and_rewrites(info)
        prefixes = []
        for urls, _ in remotes.values():
            for url in urls:
                prefixes += [url] + host_prefixes(url)
                if os.path.isabs(url):
                    prefixes.append("file://" + url)
        prefixes += [q for q in rewrites if any(q.startswith(p) and q != p for p in prefixes)]
        prefixes = [p for p in dict.fromkeys(prefixes) if p and not p.startswith(PREFIX)]
        pushurls = {name: push for name, (_, push) in remotes.items() if push}
        flat = [u for push in pushurls.values() for u in push]
        effective = _effective(base, prefixes, flat)
        rules = {}
        for p in prefixes:
            rules.setdefault(PREFIX + effective.get((True, p), p), []).append(p)
        rules.setdefault(CATCH_ALL, []).append("")
        for base_url, values in rules.items():
            for value in values:
                _cfg(work, ["--add", "url.%s.pushInsteadOf" % base_url, value])
        changed = {}
        for name, values in pushurls.items():
            _cfg(work, ["--unset-all", "remote.%s.pushurl" % name], check=False)
            for value in values:
                _cfg(work, ["--add", "remote.%s.pushurl" % name, PREFIX + effective.get((False, value), value)])
            changed[name] = values
        _cfg(work, ["--replace-all", ALIAS_KEY, ALIAS])  # also with no remote yet: the doctor then names them
        with open(work, "rb") as fh:
            new = fh.read()
    want(os.path.join(info.ag_home, BEFORE_NAME), base, 0o600)  # first: uninstall needs it once the config changed
    want(path, new, os.stat(path).st_mode & 0o7777)
    return {"config_sha256": sha256_bytes(new), "rules": rules, "pushurls": changed}


def remove(path, record):
    """Take the guard's entries out of the config file ``path`` (as ``record`` lists them)."""
    if not record:
        return
    for base_url, values in (record.get("rules") or {}).items():
        for value in values:  # an empty value matches as a pattern only as a regex (git 2.39-2.47)
            how = ["--fixed-value", "--unset-all", "url.%s.pushInsteadOf" % base_url, value] if value else \
                ["--unset-all", "url.%s.pushInsteadOf" % base_url, "^$"]
            _cfg(path, how, check=False)
    for name, values in (record.get("pushurls") or {}).items():
        now = _cfg(path, ["--get-all", "remote.%s.pushurl" % name], check=False).splitlines()
        if now and all(v.startswith(PREFIX) for v in now):
            _cfg(path, ["--unset-all", "remote.%s.pushurl" % name], check=False)
            for value in values:
                _cfg(path, ["--add", "remote.%s.pushurl" % name, value])
    _cfg(path, ["--fixed-value", "--unset-all", ALIAS_KEY, ALIAS], check=False)


def scrub(path):
    """Take out of the config file ``path`` whatever is recognisably the guard's, record or not: every
    ``url."agw::..."`` section, ``alias.remote-agw``, and ``agw::`` in front of a ``remote.*.pushurl``
    (the URL git pushes to stays the same). Returns True when it changed the file."""
    out = _cfg(path, ["-z", "--get-regexp", r"^url\.%s|^%s$|^remote\..*\.pushurl$"
                      % (re.escape(PREFIX), re.escape(ALIAS_KEY))], check=False)
    sections, pushurls, alias = set(), {}, False
    for item in out.split("\0"):
        key, _, value = item.partition("\n")
        if key.startswith("url." + PREFIX):
            sections.add(key.rsplit(".", 1)[0])
        elif key == ALIAS_KEY:
            alias = True
        elif key.startswith("remote."):
            pushurls.setdefault(key, []).append(value)
    for section in sorted(sections):
        _cfg(path, ["--remove-section", section], check=False)
    if alias:
        _cfg(path, ["--unset-all", ALIAS_KEY], check=False)
    guarded = {key: values for key, values in pushurls.items() if any(v.startswith(PREFIX) for v in values)}
    for key, values in guarded.items():
        _cfg(path, ["--unset-all", key], check=False)
        for value in values:
            while value.startswith(PREFIX):
                value = value[len(PREFIX):]
            _cfg(path, ["--add", key, value])
    return bool(sections or alias or guarded)


def uninstall(info, record, done, warnings):
    """Put the config back: the exact bytes from before install when nothing else changed it; then,
    record or not, take out whatever of the guard is still there (a lost or older record)."""
    entry = record.get("push_guard") or {}
    if entry:
        _restore_config(info, entry, done, warnings)
    _scrub_config(info, done)
    for name in (BEFORE_NAME, LAUNCHER_NAME):  # also when a killed install wrote them before its record
        try:
            os.unlink(os.path.join(info.ag_home, name))
        except FileNotFoundError:
            pass


def _restore_config(info, entry, done, warnings):
    from ..fsops import atomic_write
    path = config_path(info)
    current = read_regular(path)
    before = read_regular(os.path.join(info.ag_home, BEFORE_NAME))
    mode = os.stat(path).st_mode & 0o7777
    if current is not None and before is not None and sha256_bytes(current) == entry.get("config_sha256"):
        atomic_write(path, before, mode)
    else:
        with tempfile.TemporaryDirectory(prefix="agentguard-") as tmp:
            work = os.path.join(tmp, "config")
            with open(work, "wb") as fh:
                fh.write(current or b"")
            remove(work, entry)
            with open(work, "rb") as fh:
                cleaned = fh.read()
        if cleaned == current:
            return  # a killed install had not written it yet
        atomic_write(path, cleaned, mode)
        warnings.append("the git config changed since install: took out only the push guard's entries")
    done.append("removed the push guard from %s" % info.display(path))


def _scrub_config(info, done):
    from ..fsops import atomic_write
    path = config_path(info)
    current = read_regular(path)
    if current is None:
        return
    with tempfile.TemporaryDirectory(prefix="agentguard-") as tmp:
        work = os.path.join(tmp, "config")
        with open(work, "wb") as fh:
            fh.write(current)
        if not scrub(work):
            return
        with open(work, "rb") as fh:
            cleaned = fh.read()
    atomic_write(path, cleaned, os.stat(path).st_mode & 0o7777)
    done.append("removed the push guard's entries (agw::, alias.remote-agw) from %s" % info.display(path))


def coverage(info):
    """{remote: [push URL git uses...]} for every remote, asked of git (``pushguard.coverage``)."""
    from ...hooks.pushguard.coverage import push_urls
    found = push_urls(info.top) or {}
    return {name: found.get(name, []) for name in remote_urls(info)}
