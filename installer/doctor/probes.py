"""Live probes: run the real hooks the way git runs them, and change nothing.

* reference-transaction: ``git update-ref --stdin`` with ``start``, ``update``, ``prepare``,
  ``abort`` (git runs the hook at ``prepare``; ``abort`` undoes everything), the accepted and the
  refused transaction in one session.
* pre-push and pre-commit: the hook files executed directly, with git's arguments and stdin.

Commit objects the probes need are written to a temporary object directory
(``GIT_OBJECT_DIRECTORY`` with the repository's objects as an alternate), HEAD for the pre-commit
probe lives in a temporary git dir whose ``commondir`` is the repository's, and refusals the
probes cause are cut from the audit log again: the repository is byte-for-byte unchanged.
"""
import json
import os
import shutil
import subprocess
import tempfile
from contextlib import contextmanager

from ...hooks.gitio import kill_group
from ...hooks.gitmodel.refnames import ZERO_OID as ZERO
from ...hooks.policy import literal_prefix
from ...hooks.saferead import read_regular
from ..gitaccess.gitenv import clean_env
from ..gitaccess.repo import is_reftable

TIMEOUT = 30
PROBE_PREFIX = "agentguard-doctor-probe"
# Set for everything a probe runs: a hook that calls the doctor again (the pre-commit framework's
# agentguard-doctor hook, a verifier) must not probe again, or the probes would recurse.
NESTED = "AGENTGUARD_DOCTOR_PROBE"


class ProbeResult:
    def __init__(self, ok, detail):
        self.ok = ok
        self.detail = detail


def run(argv, cwd, env, stdin=b""):
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = proc.communicate(stdin, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        return None, b"", b"timed out after %ds" % TIMEOUT
    return proc.returncode, out, err


def _refused(rc, err):
    return rc not in (0, None) and b"agentguard: refused" in err


def protected_probe_name(policy):
    """A branch name the policy protects: the first literal pattern, else one built from a glob."""
    for pattern in policy.branches:
        if literal_prefix(pattern) == pattern:
            return pattern
    for pattern in policy.branches:
        name = pattern.replace("*", PROBE_PREFIX).replace("?", "x")
        if "[" not in name and policy.is_protected(name):
            return name
    return None


AUTHOR = {"GIT_AUTHOR_NAME": "agentguard doctor", "GIT_AUTHOR_EMAIL": "doctor@agentguard.invalid",
          "GIT_COMMITTER_NAME": "agentguard doctor", "GIT_COMMITTER_EMAIL": "doctor@agentguard.invalid"}


class Sandbox:
    """A temporary object directory and git dir; the repository itself is never written. ``commit``:
    (object directory, id) of a probe commit made once for every repository of ``doctor --all``
    (``shared_commit``), read through one more alternate; None: made here."""

    def __init__(self, info, commit=None, ask=None):
        self.info = info
        self.ask = ask  # how the ref storage is asked (the doctor's config listing; default: git)
        self.tmp = tempfile.mkdtemp(prefix="agentguard-doctor-")
        objects = os.path.join(self.tmp, "objects")
        os.makedirs(os.path.join(objects, "info"))
        alternates = [os.path.join(info.common_dir, "objects")]
        self.commit = None
        if commit is not None and os.pathsep not in commit[0]:
            alternates.append(commit[0])
            self.commit = commit[1]
        self.env = clean_env()
        self.env.update({NESTED: "1", "GIT_OBJECT_DIRECTORY": objects,
                         "GIT_ALTERNATE_OBJECT_DIRECTORIES": os.pathsep.join(alternates), **AUTHOR})
        self.reftable = None  # asked of git once, when a probe first needs a HEAD

    def probe_commit(self):
        """A commit object no remote-tracking ref contains (lives in the temporary object dir)."""
        if self.commit is None:
            rc, out, _ = run(["git", "mktree"], self.info.top, self.env, b"")
            if rc != 0:
                return None
            tree = out.decode().strip()
            rc, out, _ = run(["git", "commit-tree", tree, "-m", "agentguard doctor probe"], self.info.top, self.env)
            self.commit = out.decode().strip() if rc == 0 else None
        return self.commit

    def head_env(self, branch):
        """Environment whose HEAD is ``refs/heads/<branch>``, sharing the repository's common dir."""
        gd = os.path.join(self.tmp, "gitdir-" + str(abs(hash(branch))))
        os.makedirs(gd, exist_ok=True)
        with open(os.path.join(gd, "commondir"), "w") as fh:
            fh.write(self.info.common_dir + "\n")
        env = dict(self.env)
        env["GIT_DIR"] = gd
        env["GIT_WORK_TREE"] = self.info.top
        if self.reftable is None:
            self.reftable = is_reftable(self.info, self.ask)
        if self.reftable:
            # per-worktree refs live in <gitdir>/reftable; HEAD is a stub, set through git
            os.makedirs(os.path.join(gd, "reftable"), exist_ok=True)
            os.makedirs(os.path.join(gd, "refs"), exist_ok=True)
            open(os.path.join(gd, "reftable", "tables.list"), "w").close()
            with open(os.path.join(gd, "HEAD"), "w") as fh:
                fh.write("ref: refs/heads/.invalid\n")
            run(["git", "symbolic-ref", "HEAD", "refs/heads/" + branch], self.info.top, env)
        else:
            with open(os.path.join(gd, "HEAD"), "w") as fh:
                fh.write("ref: refs/heads/%s\n" % branch)
        return env

    def close(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


@contextmanager
def shared_commit():
    """(object directory, id) of one probe commit for every repository of a ``doctor --all`` run (an empty
    tree, no parent: no remote-tracking ref of any repository contains it), in a temporary repository
    removed afterwards; None when git could not make it (then each repository makes its own)."""
    tmp = tempfile.mkdtemp(prefix="agentguard-doctor-")
    try:
        repo = os.path.join(tmp, "probe.git")
        env = dict(clean_env(), **AUTHOR)
        rc, _, _ = run(["git", "init", "-q", "--bare", repo], tmp, env)
        rc, out, _ = run(["git", "mktree"], repo, env) if rc == 0 else (rc, b"", b"")
        tree = out.decode().strip()
        rc, out, _ = run(["git", "commit-tree", tree, "-m", "agentguard doctor probe"], repo, env) if rc == 0 \
            else (rc, b"", b"")
        yield (os.path.join(repo, "objects"), out.decode().strip()) if rc == 0 else None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


REFTX_HOOK = "reference-transaction"
SESSION = "git update-ref --stdin (prepare, abort) moving %s"


def reference_transactions(box, refuse, accept, refs=None, trace=False):
    """The reference-transaction probes in ONE ``git update-ref --stdin`` session: first a transaction
    moving ``accept`` (a branch no policy protects: start, update, prepare, abort), then, unless ``refuse``
    is None, one moving ``refuse`` (a protected branch), where the hook must stop the session. ``refs``:
    the doctor's ``Context.refs`` listing, where the branches' values are read (None: asked of git).
    Returns (refusal ProbeResult or None, accept ProbeResult, ran): ``ran`` (only with ``trace``) is True
    when git's own trace says it started the hook file in ``hooks_dir`` at the accepted ``prepare``."""
    commit = box.probe_commit()
    if commit is None:
        bad = ProbeResult(False, "could not make a probe commit")
        return (bad if refuse else None), bad, False
    script = "".join("start\nupdate %s %s %s\nprepare\nabort\n" % (ref, commit, _current(box, ref, refs))
                     for ref in ["refs/heads/" + accept] + (["refs/heads/" + refuse] if refuse else []))
    env = box.env
    tracefile = os.path.join(box.tmp, "trace2.json")
    if trace:
        env = dict(env, GIT_TRACE2_EVENT=tracefile)
    rc, out, err = run(["git", "update-ref", "--stdin"], box.info.top, env, script.encode())
    if rc is None:
        late = judge(rc, err, False, SESSION % accept)
        return (late if refuse else None), late, False
    accepted = out.splitlines()[:3] == [b"start: ok", b"prepare: ok", b"abort: ok"] and (refuse is not None or rc == 0)
    accept_result = judge(0 if accepted else rc or 1, err, False, SESSION % accept)
    if refuse is None:
        refuse_result = None
    elif accepted:
        refuse_result = judge(rc, err, True, SESSION % refuse)
    else:
        refuse_result = ProbeResult(False, "%s: not tried (the session stopped before it)" % (SESSION % refuse))
    return refuse_result, accept_result, bool(trace and accepted and hook_ran(tracefile, box.info))


def _current(box, ref, refs):
    if refs is not None:
        return next((oid for name, oid, _ in refs if name == ref), None) or ZERO
    rc, out, _ = run(["git", "rev-parse", "-q", "--verify", ref], box.info.top, box.env)
    return out.decode().strip() if rc == 0 else ZERO


def hook_ran(tracefile, info):
    """True when git's trace2 event log ``tracefile`` has git starting ``hooks_dir``'s reference-transaction
    hook for ``prepared`` (git runs a hook from the top of the work tree: a relative path is read there)."""
    data = read_regular(tracefile, 1 << 22)
    want = os.path.realpath(os.path.join(info.hooks_dir, REFTX_HOOK))
    for line in (data or b"").splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        argv = event.get("argv") if isinstance(event, dict) else None
        if event.get("event") == "child_start" and event.get("child_class") == "hook" \
                and event.get("hook_name") == REFTX_HOOK and isinstance(argv, list) and len(argv) == 2 \
                and argv[1] == "prepared" and isinstance(argv[0], str) \
                and os.path.realpath(os.path.join(info.top, argv[0])) == want:
            return True
    return False


def own_copy(box, hook_path):
    """For accept probes: agentguard's own script (``.legacy`` when pre-commit moved it) with the
    chained user hook switched off, so a probe never runs the user's hook in a sandbox it was not
    written for. Refusals are probed with the real file: agentguard refuses before any chain."""
    import re
    from ..setup.hookscripts import is_ours
    for path in (hook_path, hook_path + ".legacy"):
        data = read_regular(path, 1 << 24)  # a FIFO where the hook was is never waited on
        if data is None:
            continue
        if is_ours(data):
            if re.search(rb"^ag_chained=''$", data, re.M):
                return path, ""
            data = re.sub(rb"^ag_chained=.*$", b"ag_chained=''", data, flags=re.M)
            copy = os.path.join(box.tmp, "hooks", os.path.basename(hook_path))
            os.makedirs(os.path.dirname(copy), exist_ok=True)
            with open(copy, "wb") as fh:
                fh.write(data)
            os.chmod(copy, 0o755)
            return copy, " (your chained hook not run)"
    return hook_path, ""


def pre_push(box, hook_path, branch, expect_refusal):
    commit = box.probe_commit()
    if commit is None:
        return ProbeResult(False, "could not make a probe commit")
    # an update, not a create: the first push of a protected branch to an empty remote is allowed
    line = "refs/heads/%s %s refs/heads/%s %s\n" % (PROBE_PREFIX, commit, branch, commit)
    path, note = (hook_path, "") if expect_refusal else own_copy(box, hook_path)
    rc, _, err = run([path, "origin", "agentguard-doctor-probe.invalid"], box.info.top, box.env,
                      line.encode())
    return judge(rc, err, expect_refusal, "pre-push to %s%s" % (branch, note))


def pre_commit(box, hook_path, branch, expect_refusal):
    path, note = (hook_path, "") if expect_refusal else own_copy(box, hook_path)
    rc, _, err = run([path], box.info.top, box.head_env(branch))
    return judge(rc, err, expect_refusal, "pre-commit on %s%s" % (branch, note))


def judge(rc, err, expect_refusal, what):
    if rc is None:
        return ProbeResult(False, "%s: the hook did not answer within %ds" % (what, TIMEOUT))
    if expect_refusal:
        if _refused(rc, err):
            return ProbeResult(True, "%s: refused" % what)
        return ProbeResult(False, "%s: NOT refused (exit %d)" % (what, rc))
    if rc == 0:
        return ProbeResult(True, "%s: accepted" % what)
    return ProbeResult(False, "%s: refused, but it should pass (exit %d)" % (what, rc))


class AuditGuard:
    """Cut what the probes append to audit.jsonl, so the doctor leaves no trace."""

    def __init__(self, path):
        self.path = path
        try:
            st = os.stat(path)
            self.size, self.times = st.st_size, (st.st_atime_ns, st.st_mtime_ns)
        except FileNotFoundError:
            self.size = self.times = None

    def restore(self, markers):
        try:
            with open(self.path, "rb") as fh:
                fh.seek(self.size or 0)
                tail = fh.read()
        except FileNotFoundError:
            return
        lines = tail.splitlines()
        if not all(any(m.encode() in line for m in markers) for line in lines):
            return  # somebody else was refused meanwhile: keep the log as it is
        if self.size is None:
            os.unlink(self.path)
            return
        os.truncate(self.path, self.size)
        os.utime(self.path, ns=self.times)
