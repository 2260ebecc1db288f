"""agentguard client for Python harness plugins. Written by `agentguard install`; do not edit
(`agentguard doctor` checks it byte for byte).

It asks the decision command of the repository this plugin lives in
(`<git common dir>/agentguard/check`, the runtime copy: no dependency on PATH), with a timeout,
killing the whole process group on timeout. If the decision cannot be had, anything that
involves git or the guard's files is blocked. After a tool call, `after` runs the after-check
(`check --after`), which undoes what the call did to the guard; what it says (or that it could not
run) is for the model.
"""
import json
import os
import re
import signal
import subprocess

INVOLVES = re.compile(r"""@INVOLVES@""", re.I)
UNCHECKED = """@UNCHECKED@"""  # {0}: why the after-check could not run
# {0}: the harness. A clone where agentguard was never installed (the team committed the plugin):
# commands and writes are blocked with this one message, which says how to install it.
NOT_INSTALLED = """@NOT_INSTALLED@"""
HARNESS = "hermes" if os.sep + ".hermes" + os.sep in os.path.abspath(__file__) else "gptme"
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


def _involves(text):
    """INVOLVES on the text without quotes and backslashes, which hide a word from the pattern but
    not from the shell (g''it); an ANSI-C quoted word ($'\\x67it') can spell anything."""
    return bool(text) and (INVOLVES.search(re.sub(r"""["'\\]""", "", text)) is not None or "$'" in text)


def _fallback(subject, why):
    if _involves(subject):
        return True, ("agentguard: blocked this command because agentguard could not check it (%s) "
                      "[rule: guard-error]. Instead: run `agentguard doctor`." % why)
    return False, ""


def _check():
    """The runtime copy's decision command, or None when this plugin is in no repository."""
    rc, out = _run(["git", "rev-parse", "--git-common-dir"], HERE)
    if rc != 0:
        return None
    common = os.path.join(HERE, out.decode("utf-8", "surrogateescape").strip())
    return os.path.join(common, "agentguard", "check")


def _installed(check):
    """agentguard was installed in this clone (its record exists), whatever state the rest is in."""
    return os.path.isfile(os.path.join(os.path.dirname(check), "manifest.json"))


def decide(cwd, command=None, write=None):
    """(block, reason) for a shell command or a file write about to run in ``cwd``."""
    subject = command if command is not None else write
    try:
        cwd = cwd if cwd and os.path.isdir(cwd) else os.getcwd()
        check = _check()
        if check is None:
            return _fallback(subject, "no repository")
        if not os.path.exists(check):
            if not _installed(check):
                return True, NOT_INSTALLED.format(HARNESS)
            return _fallback(subject, "its runtime copy is missing")
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


def after(cwd):
    """(changed, reason) once a tool call ran in ``cwd``: ``changed`` when the after-check undid
    something (or could not undo it, or could not run at all); ``reason`` is then what the model
    must read. (False, "") when the call left the guard alone."""
    try:
        cwd = cwd if cwd and os.path.isdir(cwd) else os.getcwd()
        check = _check()
        if check is not None and not os.path.exists(check) and not _installed(check):
            return False, ""  # never installed here: every command and write was refused before it ran
        if check is None or not os.path.exists(check):
            return True, UNCHECKED.format("its runtime copy is missing" if check else "no repository")
        rc, out = _run([check, "--after", "--cwd", cwd, "--json"], cwd)
        if rc is None:
            return True, UNCHECKED.format("timed out")
        data = json.loads(out.decode("utf-8")) if rc in (0, 1, 3) else {}
        if rc == 0 and data.get("decision") == "unchanged":
            return False, ""
        if rc in (1, 3) and data.get("reason"):
            return True, str(data["reason"])
        return True, UNCHECKED.format("status %s" % rc)
    except Exception as exc:  # never silent: the model must hear that the guard went unchecked
        return True, UNCHECKED.format(type(exc).__name__)
