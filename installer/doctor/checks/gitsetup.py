"""The git on PATH and the platform: git new enough for reference-transaction, the ref storage, the
option table install snapshotted, and whether the hooks can read the argv of the git that runs them."""
import json
import os
import re
import sys

from ....hooks.gitmodel import procargv
from ....hooks.textsafe import safe
from ...gitaccess import gitoptions
from ...errors import AgentguardError
from ...fsops import read_regular
from ...gitaccess.gitenv import git_about
from ...gitaccess.repo import is_reftable
from .base import REINSTALL

MIN_GIT = (2, 28)


def _git_version(ctx):
    return git_about(["--version"]).strip()


def check_version(ctx):
    text = _git_version(ctx)
    match = re.search(r"(\d+)\.(\d+)", text)
    version = tuple(int(x) for x in match.groups()) if match else (0, 0)
    if version < MIN_GIT:
        ctx.add("git.version", "fail", "%s: reference-transaction needs git 2.28 or newer" % text,
                "install git 2.28 or newer")
    else:
        ctx.add("git.version", "pass", text)


def check_ref_storage(ctx):
    if is_reftable(ctx.info, ctx.git):
        ctx.add("git.ref-storage", "warn", "reftable storage: branch renames and copies reach the hook only "
                "as a HEAD line, so `git branch -m/-M/-c/-C` onto a protected name is not stopped by git",
                "use the harness adapters, or the files backend (git refs migrate --ref-format=files)")
    else:
        ctx.add("git.ref-storage", "pass", "files ref storage")


def check_git_options(ctx):
    """The option table install snapshotted (``gitoptions.json``) comes from the git on PATH now."""
    path = os.path.join(ctx.info.ag_home, gitoptions.TABLE_FILE)
    where = ctx.info.display(path)
    try:
        data = read_regular(path)
    except AgentguardError as exc:
        ctx.add("git.options", "fail", str(exc), "agentguard install", repair=REINSTALL)
        return
    if data is None:
        if ctx.record is not None:  # not installed: install.manifest says so
            ctx.add("git.options", "fail", "the snapshot of git's option table (%s) is missing, so the analyser "
                    "reads options with the table agentguard ships" % where, "agentguard install", repair=REINSTALL)
        return
    try:
        snapshot = json.loads(data.decode("utf-8"))
        taken = snapshot["git"]
        if not isinstance(taken, str):
            raise TypeError(taken)
    except (UnicodeDecodeError, ValueError, TypeError, KeyError):
        ctx.add("git.options", "fail", "the snapshot of git's option table (%s) cannot be read" % where,
                "agentguard install", repair=REINSTALL)
        return
    now = _git_version(ctx)
    if taken.strip() == now:
        ctx.add("git.options", "pass", "option table snapshot taken from the git on PATH (%s)" % now)
    else:
        ctx.add("git.options", "warn", "git was upgraded since install (snapshot: %s, now: %s): option tables may "
                "be stale" % (safe(taken, 100), now), "agentguard install", repair=REINSTALL)


def check_caller_argv(ctx):
    """Whether the hooks can read the argv of the git command that runs them on this system."""
    how = procargv.readable()
    if how:
        ctx.add("platform.argv", "pass", "hooks read the calling git command from %s"
                % ("/proc" if how == "proc" else "sysctl (%s)" % sys.platform))
        return
    weaker = "; ".join("[%s] %s" % pair for pair in procargv.WITHOUT_ARGV)
    ctx.add("platform.argv", "warn", "no /proc or sysctl argv here: weaker fallbacks (SECURITY.md): " + weaker,
            "run where /proc is mounted (a container: do not mask /proc), and install the harness adapters")


