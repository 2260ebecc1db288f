"""Remotes on this machine: a remote reached by a local path (``/srv/repo.git``, ``../remote.git``,
``file:///...``, through an ``insteadOf`` rewrite too) is files an agent can write. Its git directory is
one of the guard's paths for the analyser (``known``: written by each snapshot, read with one ``open``),
and each snapshot records its protected branches, its config file and its hooks directory. The
after-check puts back a protected branch the call moved there (the commits kept on
``refs/agentguard/rescued/...`` in that repository, not a branch in a shared remote), takes away a hook
the call planted and restores a hook or the config it changed (the bytes kept in the store). Only
within one call: what changes there between calls (a teammate's push to a shared disk) is the next
snapshot's starting point, never undone (SECURITY.md)."""
import os
import time

from .. import gitio
from . import store
from .remotelist import remember

RESCUED = "refs/agentguard/rescued/"
_SUFFIXES = (os.path.join("", ".git"), "", ".git" + os.sep + ".git", ".git")  # git's enter_repo order


def _rewrite(url, rules):
    """``url`` rewritten by the longest matching prefix in ``rules`` [(prefix, base)], else None."""
    found = max(((p, b) for p, b in rules if url.startswith(p)), key=lambda r: len(r[0]), default=None)
    return found[1] + url[len(found[0]):] if found else None


def urls(pairs):
    """Every URL a fetch or push of a configured remote may reach, from config ``pairs`` [(key, value)]:
    ``url`` and ``pushurl``, as written and as ``insteadOf``/``pushInsteadOf`` rewrite them."""
    rules: dict = {"insteadof": [], "pushinsteadof": []}
    for key, value in pairs:
        low = key.lower()
        var = low.rsplit(".", 1)[-1]
        if low.startswith("url.") and var in rules and value:
            rules[var].append((value, key[len("url."):-len(var) - 1]))
    out = []
    for key, value in pairs:
        low = key.lower()
        if low.startswith("remote.") and low.rsplit(".", 1)[-1] in ("url", "pushurl") and value:
            out.append(value)
            out += [u for u in (_rewrite(value, rules["insteadof"]), _rewrite(value, rules["pushinsteadof"])) if u]
    return out


def local_path(url, top):
    """The directory a local URL names (git's rules: ``file://``, or no ``scheme://``, no ``<helper>::``
    and no ``host:`` before the first slash), or None."""
    if url.startswith("file://"):
        path = url[len("file://"):]
        return os.path.normpath(path) if path.startswith("/") else None
    if "://" in url or "::" in url:
        return None
    colon = url.find(":")
    if colon >= 0 and "/" not in url[:colon]:
        return None  # scp-like host:path
    return os.path.normpath(os.path.join(top, os.path.expanduser(url)))


def git_dir_at(path):
    """The git directory git's ``enter_repo`` finds at ``path`` (a bare repository or a work tree's
    ``.git`` directory), resolved; None when there is none."""
    for suffix in _SUFFIXES:
        candidate = path + suffix
        if os.path.isfile(os.path.join(candidate, "HEAD")) and os.path.isdir(os.path.join(candidate, "refs")) \
                and os.path.isdir(os.path.join(candidate, "objects")):
            return os.path.realpath(candidate)
    return None


def git_dirs(config, where):
    """The git directories of the local-path remotes in snapshot ``config`` ([[scope, file, key,
    value]]), this repository's own excepted."""
    found = set()
    for url in urls([(entry[2], entry[3]) for entry in config if entry[3] is not None]):
        path = local_path(url, where.top)
        gd = git_dir_at(path) if path else None
        if gd and gd != os.path.realpath(where.common_dir):
            found.add(gd)
    return sorted(found)


def _refs_args(gd, policy):
    patterns = list(policy.branches) if policy is not None else []
    return ["--git-dir=" + gd, "for-each-ref", "--format=%(objectname) %(refname)"] + \
        ["refs/heads/" + p for p in patterns]


def _parse_refs(result, policy):
    rc, out = result
    if rc != 0:
        return None
    refs = {}
    for line in out.decode("utf-8", "surrogateescape").splitlines():
        oid, _, ref = line.partition(" ")
        if policy.classify(ref) is not None:
            refs[ref] = oid
    return refs


def _files(gd, ag_home, previous, describe):
    """{relative path: snapshot entry} of the remote's config file and of every file in its hooks
    directory (their bytes kept in the store)."""
    try:
        names = ["config"] + [os.path.join("hooks", n) for n in sorted(os.listdir(os.path.join(gd, "hooks")))[:200]]
    except OSError:
        names = ["config"]
    out = {}
    for name in names:
        entry = describe(os.path.join(gd, name), (previous or {}).get(name), ag_home)
        if entry is not None:
            out[name] = entry
    return out


def read(where, dirs, policy, describe, previous=None):
    """{git dir: {"refs": {protected ref: oid} or None, "files": {path: snapshot entry}}}: one git
    process per local-path remote, run at the same time; none when there is no such remote."""
    if not dirs or policy is None:
        return {}
    return _answer(where, dirs, gitio.run_many(_calls(dirs, policy), cwd=where.top, env=gitio.scrubbed_env()),
                   policy, describe, previous)


def _calls(dirs, policy):
    return [_refs_args(gd, policy) for gd in dirs]


def _answer(where, dirs, results, policy, describe, previous):
    out = {}
    for gd, result in zip(dirs, results):
        old = (previous or {}).get(gd) or {}
        out[gd] = {"refs": _parse_refs(result, policy), "files": _files(gd, where.ag_home, old.get("files"), describe)}
    return out


class Reading:
    """``read`` of the remotes a snapshot named: their git processes started now, so that they run
    alongside the caller's own (``snapshot.read_git``), and read by ``wait`` (no thread: importing
    threading alone cost ~3 ms of CPU on every tool call)."""

    def __init__(self, where, was, policy, describe):
        self.dirs = sorted(gd for gd in was if isinstance(gd, str) and os.path.isdir(gd))
        self._args = (where, policy, describe, was)
        self._found: dict = {}
        self._done = False
        try:
            self._pending = gitio.start_many(_calls(self.dirs, policy), cwd=where.top, env=gitio.scrubbed_env())
        except Exception:  # (gitio.GitError...): the answer is then read again
            self._pending = None

    def wait(self):
        if not self._done:
            self._done = True
            where, policy, describe, was = self._args
            try:
                if self._pending is None:
                    raise gitio.GitError("not started")
                self._found = _answer(where, self.dirs, gitio.collect(self._pending), policy, describe, was)
            except Exception:  # (gitio.GitError...): waited for, the answer is then read again
                self._found = {}
        return self._found


def start(where, snapshot, policy, describe):
    """A ``Reading`` of the local-path remotes ``snapshot`` recorded, or None when there is none (the
    common case: nothing started)."""
    was = (snapshot or {}).get("local_remotes")
    return Reading(where, was, policy, describe) if isinstance(was, dict) and was and policy is not None else None


def take(where, config, policy, describe, previous=None, reading=None):
    """The local-path remotes' part of a snapshot (``read``; what ``reading`` already read is not read
    again), remembered for the analyser (``known``)."""
    dirs = git_dirs(config, where)
    remember(where.ag_home, dirs)
    found = reading.wait() if reading is not None else {}
    was = (previous or {}).get("local_remotes")
    was = was if isinstance(was, dict) else None
    found.update(read(where, [gd for gd in dirs if gd not in found], policy, describe, was))
    return {gd: found[gd] for gd in dirs if gd in found}


# -- the after-check ------------------------------------------------------------------------------
def undo(where, before, reading, report):
    """Put back what the call did to the local-path remotes ``before`` (a snapshot) recorded, as
    ``reading`` (``start``) found them: before the local refs are judged, so the local refs check (which
    believes ``origin/main`` when the remote advertises it) asks a remote already put back."""
    if reading is None:
        return
    was, now = before["local_remotes"], reading.wait()
    if os.path.exists(store.unrepaired_path(where.ag_home, where.top)):
        return  # this call's pre-check kept an older snapshot: a teammate's push since then is no call's doing
    for gd in sorted(was):
        old, new = was[gd], now.get(gd)
        if not isinstance(old, dict) or new is None or isinstance(old.get("refs"), dict) and new["refs"] is None:
            report.fail("the remote %s (reached by a local path) could not be read after the call" % gd)
            continue
        if isinstance(old.get("refs"), dict):
            _undo_refs(where, gd, old["refs"], new["refs"], report, before.get("files") or {})
        if isinstance(old.get("files"), dict):
            _undo_files(where, gd, old["files"], new["files"], report)


def _git(gd, args):
    return gitio.run(["--git-dir=" + gd] + gitio.REPAIR + args, cwd=gd, env=gitio.scrubbed_env())[0] == 0


def _undo_refs(where, gd, old, new, report, files):
    from .grants import pushed_by_persons_grant
    for ref in sorted(set(old) | set(new)):
        was, now = old.get(ref), new.get(ref)
        if was == now:
            continue
        if was is None and not old:
            continue  # the first push of a protected branch to a remote that had none (docs/policy.md)
        if now is not None and pushed_by_persons_grant(where, files, ref):
            continue  # a person's break-glass grant, spent on this push
        shown = "%s in the remote %s" % (ref[len("refs/heads/"):], gd)
        kept = ""
        if now is not None:
            name = "%s%s-%s" % (RESCUED, ref[len("refs/heads/"):], time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()))
            if _git(gd, ["update-ref", "-m", "agentguard: rescued", name, now, "0" * 40]):
                kept = "; its commits are on %s there" % name
        args = ["update-ref", "--no-deref", "-m", "agentguard: put back"]  # a ref made symbolic: itself, not its target
        args += [ref, was, now or "0" * 40] if was is not None else ["-d", ref, now]
        if _git(gd, args) or (was is not None and _git(gd, ["update-ref", "--no-deref", ref, was])):
            report.add("ref", "put protected branch %s back to %s (the call moved it to %s by writing into that "
                       "repository%s)" % (shown, (was or "nothing")[:12], (now or "nothing")[:12], kept),
                       ref=gd + ":" + ref, old=was or "", new=now or "")
        else:
            report.fail("protected branch %s was moved to %s and could not be put back" % (shown, (now or "")[:12]))


def _undo_files(where, gd, old, new, report):
    for name in sorted(set(old) | set(new)):
        b, n = old.get(name), new.get(name)
        if b is None and n is None or b is not None and n is not None and (b[0], b[1], b[6]) == (n[0], n[1], n[6]):
            continue
        if name != "config" and not (name.startswith("hooks" + os.sep) and os.sep not in name[6:] and name[6:] not in
                                     ("", ".", "..")):
            continue  # not a name ``_files`` gives
        path = os.path.join(gd, name)
        shown = "%s of the remote %s" % (name, gd)
        if b is None:
            store.take_away(path)
            report.add("file", "removed %s, which the call planted (its bytes are kept in the store, %s)"
                       % (shown, n[6][:12]), path=path)
        elif store.put_back(where.ag_home, path, b):
            report.add("file", "restored %s" % shown, path=path)
        else:
            store.take_away(path)  # (its bytes now are in the store)
            report.fail("%s changed and its earlier bytes are not kept" % shown)

