"""``doctor --all``: the hook-file probes run once per set of byte-identical guards.

The live probes of one repository start about seven Python hooks. Three of the four experiments
(``probe.pre-push``, ``probe.pre-commit``, ``probe.push-guard``) execute files the guard owns with a
fixed input: the hook scripts, the runtime copy (sources and their compiled file), the policy snapshot,
the launchers, the break-glass grants. ``fingerprint`` hashes every one of those files (name, type,
mode and bytes) as they are when the probe runs. Within ONE ``doctor --all`` run, a repository whose
fingerprint equals that of a repository probed before it, where those three probes passed, takes their
results instead of running them again; what the repository's own state decides stays per repository:

* ``probe.reference-transaction`` runs in every repository, through git: git reads that repository's
  config to find and run its hook, which runs its runtime over its refs, config and grants. Its accepted
  transaction runs everywhere; its refused one (the Python runtime's verdict) is taken from a repository
  probed before only where, besides the fingerprint, the reference-transaction hook file, the config as
  git lists it and the refs are byte-identical (``reftx_fingerprint``) AND git's trace shows this
  repository's git starting that very hook file (``probes.hook_ran``): a hook git does not run (not
  executable, another hooksPath, hooks switched off) sends the refusal probe to run here, and fail;
* every static check (hook bytes against the record, executable bits, where git reads hooks, the
  runtime's bytes, the push guard's alias and launcher, the remotes) runs in every repository.

Nothing is kept between runs (the results live in the parent process of one run, passed to its
workers), so there is no cache an agent could write; a fingerprint that differs in any byte, a probe
that did not pass, or a file that changed while its repository was probed means the probes run there.
``doctor`` on one repository (and ``doctor --all --probe-each``) runs every probe everywhere.
"""
import hashlib
import json
import os
import stat

from ...hooks.audit import LOG_NAME
from ...hooks.policy import MAX_POLICY_FILE, POLICY_FILE, Policy, PolicyError
from ..setup.pushguard import BEFORE_NAME
from ...hooks.outcome.store import DIR as OUTCOME_DIR
from ...hooks.saferead import open_regular, read_regular
from .probes import REFTX_HOOK

SHARED = ("probe.pre-push", "probe.pre-commit", "probe.push-guard")
# In the guard's home, what no hook-file probe reads: the log probes append to (and the doctor cuts
# again), install's lock, the after-check's snapshots. The manifest holds this repository's paths; the
# runtime only asks whether it exists, and the doctor's use of it (is the push guard on) is hashed apart.
# install's copy of the config from before the push guard's entries is read by uninstall alone.
NOT_READ = frozenset({LOG_NAME, "lock", OUTCOME_DIR, BEFORE_NAME})
MANIFEST = "manifest.json"
HOOKS = ("pre-push", "pre-commit")  # and their ``.legacy`` (the pre-commit framework moves ours there)
LIMIT = 64 * 1024 * 1024
AS_CONFIGURED = "\0as configured"  # no URL has a NUL


def fingerprint(info, record, remotes_now):
    """sha256 over the files the shared probes execute or read, or None when one cannot be read.
    ``remotes_now``: {name: fetch URL} as the repository's config has them (see ``policy_form``)."""
    digest = hashlib.sha256()
    digest.update(b"transport=%d\n" % ((record or {}).get("transport") is not False))
    for hook in HOOKS:
        for name in (hook, hook + ".legacy"):
            if not _add(digest, "hooks/" + name, os.path.join(info.hooks_dir, name)):
                return None
    home = info.ag_home
    digest.update(b"manifest=%d\n" % os.path.lexists(os.path.join(home, MANIFEST)))
    for folder, dirs, files in os.walk(home):
        rel = os.path.relpath(folder, home)
        if rel == ".":
            dirs[:] = [d for d in dirs if d not in NOT_READ]
            files = [f for f in files if f not in NOT_READ and f != MANIFEST]
        dirs.sort()
        for name in sorted(files + [d for d in dirs if os.path.islink(os.path.join(folder, d))]):
            path = os.path.join(folder, name)
            form = policy_form(path, remotes_now) if rel == "." and name == POLICY_FILE else None
            if form is not None:
                digest.update(b"policy %d\n" % len(form) + form)
            elif not _add(digest, os.path.join("home", rel, name), path):
                return None
    return digest.hexdigest()


def policy_form(path, remotes_now):
    """The policy snapshot with each recorded remote's URL replaced by a mark when it is the URL the
    repository's config gives that remote now: the URL is the repository's own (every repository's
    origin is elsewhere) and what the runtime does with it is compare it with that config (which the
    per-repository ``probe.reference-transaction`` and ``policy.remotes`` see). None (hash the bytes)
    unless the file is exactly what install writes for the policy it holds."""
    data = read_regular(path, MAX_POLICY_FILE + 1)
    try:
        parsed = json.loads(data) if data is not None else None
        policy = Policy.from_json(parsed)
    except (ValueError, PolicyError):
        return None
    if policy.dumps().encode() != data:
        return None
    out = policy.to_json()
    if policy.remotes is not None:
        out["remotes"] = {name: AS_CONFIGURED if remotes_now.get(name) == url else url
                          for name, url in policy.remotes.items()}
    return json.dumps(out, sort_keys=True).encode()


def _add(digest, label, path):
    """Hash one entry: absent, a link (its target), a regular file (mode and bytes) or something else
    (never opened). False when a regular file cannot be read whole."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        digest.update(b"absent %s\n" % os.fsencode(label))
        return True
    except OSError:
        return False
    if stat.S_ISLNK(st.st_mode):
        digest.update(b"link %s %s\n" % (os.fsencode(label), os.fsencode(os.readlink(path))))
        return True
    if not stat.S_ISREG(st.st_mode):
        digest.update(b"other %s %o\n" % (os.fsencode(label), st.st_mode))
        return True
    data = _read_as_listed(path, st)
    if data is None:
        return False
    digest.update(b"file %s %o %d\n" % (os.fsencode(label), stat.S_IMODE(st.st_mode), len(data)))
    digest.update(data)
    return True


def reftx_fingerprint(key, info, config, refs):
    """The key under which the refusal of ``probe.reference-transaction`` is shared: ``key`` (the
    fingerprint above) with the reference-transaction hook file, the config as git lists it (``config``:
    ``ConfigList.entries``, every level, includes followed) and the refs (``Context.refs``) the runtime
    decides over. None when one is unknown. A repository whose key matches still runs the accepted
    transaction through its own git, which must be seen starting that hook file (``probes.hook_ran``)."""
    if key is None or config is None:
        return None
    digest = hashlib.sha256(b"reference-transaction %s\n" % key.encode())
    if not _add(digest, "hooks/" + REFTX_HOOK, os.path.join(info.hooks_dir, REFTX_HOOK)):
        return None
    digest.update(repr((config, sorted(refs))).encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


def _read_as_listed(path, st):
    """The bytes of the regular file ``path`` that ``lstat`` gave as ``st``, in one read of one byte past its
    size (not LIMIT: os.read allocates what it is asked for); None when it is another file now (opened
    without following a link or waiting on a pipe), grew or shrank meanwhile, or cannot be read."""
    size = min(st.st_size, LIMIT)
    try:
        fd = open_regular(path, os.O_NOFOLLOW)
    except OSError:
        return None
    if fd is None:
        return None
    data = None
    try:
        now = os.fstat(fd)
        if (now.st_dev, now.st_ino) == (st.st_dev, st.st_ino):  # the file lstat saw, not one put there since
            data = os.read(fd, size + 1)
    except OSError:
        pass
    finally:
        os.close(fd)
    return data if data is not None and len(data) == size == st.st_size else None


class Shared:
    """What one ``doctor --all`` run learnt: {key: (repository, {check id: summary})} of the shared
    probes that passed. ``offers`` is what a repository probed in full hands back."""

    def __init__(self, known=None, commit=None):
        self.known = dict(known or {})
        self.offers = []
        self.commit = commit  # the run's probe commit (``probes.shared_commit``), or None

    def lookup(self, key):
        return self.known.get(key) if key else None

    def learnt(self, key, path, results, ids=SHARED):
        """Offer the passing probes among ``ids`` of a repository probed in full, if its files did not change."""
        passed = {cid: detail for cid, ok, detail in results if cid in ids and ok}
        if key and passed:
            self.offers.append((key, path, passed))
