"""agentguard client for Python harness plugins. Written by `agentguard install`; do not edit
(`agentguard doctor` checks it byte for byte).

It asks the decision command of the repository this plugin lives in
(`<git common dir>/agentguard/check`, the runtime copy: no dependency on PATH), with a timeout,
killing the whole process group on timeout. If the decision cannot be had, anything that
involves git or the guard's files is blocked.
"""
import json
import os
import re
import signal
import subprocess

INVOLVES = re.compile(r"""@INVOLVES@""", re.I)
TIMEOUT = float("@TIMEOUT@")
HERE = os.path.dirname(os.path.abspath(__file__))


def _env():
    return {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}


def _run(argv, cwd):
    proc = subprocess.Popen(argv, cwd=cwd, env=_env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        proc.wait()
        return None, b""
    return proc.returncode, out


def _fallback(subject, why):
    if subject and INVOLVES.search(subject):
        return True, ("agentguard: blocked this command because agentguard could not check it (%s) "
                      "[rule: guard-error]. Instead: run `agentguard doctor`." % why)
    return False, ""


def decide(cwd, command=None, write=None):
    """(block, reason) for a shell command or a file write about to run in ``cwd``."""
    subject = command if command is not None else write
    try:
        cwd = cwd if cwd and os.path.isdir(cwd) else os.getcwd()
        rc, out = _run(["git", "rev-parse", "--git-common-dir"], HERE)
        if rc != 0:
            return _fallback(subject, "no repository")
        common = os.path.join(HERE, out.decode("utf-8", "surrogateescape").strip())
        check = os.path.join(common, "agentguard", "check")
        args = ["--write", write] if write is not None else ["--", command]
        rc, out = _run([check, "--cwd", cwd, "--json"] + args, cwd)
        if rc is None:
            return _fallback(subject, "timed out")
        data = json.loads(out.decode("utf-8"))
        if data.get("decision") == "allow" and rc == 0:
            return False, ""
        return True, str(data.get("reason") or "agentguard: blocked")
    except Exception as exc:  # never fail open on git: see _fallback
        return _fallback(subject, type(exc).__name__)
