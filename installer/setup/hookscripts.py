"""Render the git hook scripts from ``templates/git-hooks`` for one repository's policy."""
import os
import shutil
from importlib import resources

from ...hooks.backstop import HOOKS
from ...hooks.policy import literal_prefix
from ...hooks.version import VERSION

# Hooks agentguard installs: those the runtime decides (the backstop, reference-transaction; the push
# guard; the early, kinder refusals that stop work before objects or in-progress states are made),
# and post-checkout, which finishes the install in a new worktree or clone (`git worktree add`, `git clone`).
HOOK_NAMES = HOOKS + ("post-checkout",)
CHAINED_SUFFIX = ".agentguard-chained"
MARKER = "# agentguard "  # second line of every script we write
_TEMPLATE_FOR = {"pre-merge-commit": "pre-commit"}
_ZERO40 = "0" * 40
_ERE_SPECIAL = set(".[]()*+?{}|^$\\")


# The programs the hook scripts (and, for git, the runtime they start) run, by the absolute paths
# install found: never looked up through the PATH of the git command that runs a hook, which the
# caller chooses (`PATH=/evil:$PATH git commit`, `GIT_EXEC_PATH=/evil git commit`).
TOOLS = ("git", "cat", "grep")
TOOL_ENV = "AGENTGUARD_%s"  # how a hook hands its own to the install it starts (post-checkout)


def tools():
    """{name: absolute path} of ``TOOLS``: those of the hook that started this install when it says
    (post-checkout runs under the caller's PATH, so it passes the paths install recorded before),
    else as this PATH finds them now; and ``exec_path``, where that git runs its own programs from
    (what git puts in a hook's ``GIT_EXEC_PATH`` when the caller chose none). Raises AgentguardError
    when one is nowhere."""
    from ..errors import AgentguardError
    from ..gitaccess.gitenv import git
    found = {}
    for name in TOOLS:
        given = os.environ.get(TOOL_ENV % name.upper(), "")
        path = given if os.path.isabs(given) and os.access(given, os.X_OK) else shutil.which(name)
        if not path:
            raise AgentguardError("%s is not on PATH: the hooks need it" % name)
        found[name] = os.path.abspath(path)
    if found["git"] not in _EXEC_PATHS:
        try:
            out = git(["--exec-path"], cwd=os.path.sep, program=found["git"])
        except AgentguardError:
            raise AgentguardError("%s does not say where its programs are (git --exec-path)" % found["git"])
        _EXEC_PATHS[found["git"]] = os.path.abspath(out.strip())
    found["exec_path"] = _EXEC_PATHS[found["git"]]
    return found


_EXEC_PATHS: dict = {}  # git -> its exec path, asked once per process


def tool_problems(recorded):
    """[sentence] for each program in ``recorded`` ({name: path}, install's record) that is gone."""
    if not isinstance(recorded, dict):
        return ["install recorded no programs for the hooks (git, cat, grep)"]

    def runs(path):
        return isinstance(path, str) and os.path.isabs(path) and os.access(path, os.X_OK)
    found = ["%s, the %s the hooks run, is gone" % (recorded.get(n), n) for n in TOOLS if not runs(recorded.get(n))]
    exec_path = recorded.get("exec_path")
    if not (isinstance(exec_path, str) and os.path.isdir(exec_path)):
        found.append("%s, where the recorded git keeps its programs, is gone (git upgraded? agentguard install "
                     "records it again)" % exec_path)
    return found


def template(name):
    return resources.files("agentguard.templates").joinpath("git-hooks", name).read_text("utf-8")


def is_ours(data):
    """True for a hook script agentguard wrote (any version)."""
    lines = data.split(b"\n", 2)
    return len(lines) > 1 and lines[1].startswith(MARKER.encode()) and b"agentguard install" in data[:400]


def sh_quote(value):
    return "'" + value.replace("'", "'\\''") + "'"


def _dq(text):
    """``text`` for use inside double quotes in a case pattern (taken literally)."""
    return "".join("\\" + c if c in '"$`\\' else c for c in text)


def _letters_sh(text):
    """``text`` as a case pattern that matches it in any letter case (``[mM]"-"``): on a file system
    that ignores case, ``refs/heads/MAIN`` is main's file, and the runtime decides whether it is."""
    return "".join("[%s%s]" % (c.lower(), c.upper()) if c.isalpha() else '"%s"' % _dq(c) for c in text)


def _letters_ere(text):
    return "".join("[%s%s]" % (c.lower(), c.upper()) if c.isalpha() else "\\" + c if c in _ERE_SPECIAL else c
                   for c in text)


def reftx_prefilter(policy):
    """case patterns, matched against one update line, that catch every line the runtime must
    see (a superset is fine, never less): protected names in any letter case."""
    alts = []
    for pattern in policy.branches:
        prefix = literal_prefix(pattern)
        tail = "" if prefix == pattern else "*"
        alts.append('*" "%s%s' % (_letters_sh("refs/heads/" + prefix), tail))
        alts.append('*" "%s*%s%s' % (_letters_sh("refs/remotes/"), _letters_sh("/" + prefix), tail))
    # any branch deletion: `git branch -M feat main` deletes feat before main is touched
    alts.append('*"%s refs/heads/"*' % _ZERO40)
    # a line that is not "<old> <new> <ref>" (git never sends one): let the runtime refuse on doubt
    alts.append('*" "*" "*" "*')
    alts.append("[!0-9a-f]*")
    return " | ".join(alts)


def reftx_ere(policy):
    """The same superset as one extended regular expression, for grep over a long transaction."""
    names = []
    for pattern in policy.branches:
        names.append(_letters_ere(literal_prefix(pattern)) + ("" if literal_prefix(pattern) == pattern else ".*"))
    alt = "(%s)" % "|".join(names)
    return sh_quote(" %s%s$| %s.+/%s$|%s refs/heads/|^([^ ]* ){3}|^[^0-9a-f]" % (
        _letters_ere("refs/heads/"), alt, _letters_ere("refs/remotes/"), alt, _ZERO40))


def head_prefilter(policy):
    alts = []
    for pattern in policy.branches:
        prefix = _dq(literal_prefix(pattern))
        alts.append('"ref: refs/heads/%s"%s' % (prefix, "" if literal_prefix(pattern) == pattern else "*"))
    return " | ".join(alts)


def render(hook, policy, python, chained_name, chained_is_sh, agentguard_bin="agentguard", programs=None):
    """The script for ``hook``. ``chained_name`` is the file name of the hook we chain, or None.
    ``agentguard_bin``: the command post-checkout runs to finish an install (install's own).
    ``programs``: ``tools()`` (found now when None)."""
    programs = programs or tools()
    lib = template("lib.sh").rstrip("\n")
    chained = '"${0%%/*}/%s"' % chained_name if chained_name else "''"
    for name in TOOLS + ("exec_path",):
        lib = lib.replace("@AG_%s@" % name.upper(), sh_quote(programs[name]))
    lib = (lib.replace("@AG_PY@", sh_quote(python))
              .replace("@AG_CHAINED@", chained)
              .replace("@AG_CHAINED_SH@", "1" if chained_name and chained_is_sh else "''"))
    text = template(_TEMPLATE_FOR.get(hook, hook))
    text = (text.replace("@LIB@", lib)
                .replace("@VERSION@", VERSION)
                .replace("@HOOK@", hook)
                .replace("@PREFILTER@", reftx_prefilter(policy))
                .replace("@ERE@", reftx_ere(policy))
                .replace("@HEAD_PREFILTER@", head_prefilter(policy))
                .replace("@AG_BIN@", sh_quote(agentguard_bin)))
    return text.encode("utf-8")


_SH_SHEBANGS = (b"#!/bin/sh", b"#!/usr/bin/env sh", b"#!/bin/dash", b"#! /bin/sh")


def is_posix_sh(data):
    first = data.split(b"\n", 1)[0].rstrip()
    return first in _SH_SHEBANGS
