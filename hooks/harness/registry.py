"""Every harness agentguard knows, in one order (the order install sets them up and lists them).
Adding a harness: its module next to this one, its name here, and its install-time module in
``installer/harness`` (when it has install-time facts)."""
import os

from . import (amp, auggie, claude, cline, codex, copilot, crush, cursor, droid, gemini, goose, gptme,
               hermes, kilo, kiro, opencode, pi, qwen, windsurf)

HARNESSES = {module.HARNESS.name: module.HARNESS
             for module in (pi, hermes, gptme, claude, codex, gemini, opencode, copilot, kilo, amp, goose, crush, kiro,
                            cline, windsurf, cursor, qwen, auggie, droid)}
NAMES = tuple(HARNESSES)
# the harnesses whose hook runs ``check --hook HARNESS``: name -> descriptor.Protocol
PROTOCOLS = {name: h.protocol for name, h in HARNESSES.items() if h.protocol is not None}


def worktree_files():
    """Every harness's guarded files in the work tree (relative, ``/``-separated)."""
    return tuple(rel for h in HARNESSES.values() for rel in h.worktree_files)


def user_files(environ=None):
    """Every harness's guarded user-level files, where ``environ`` (default: this process's) puts them."""
    env = os.environ if environ is None else environ
    return [path for h in HARNESSES.values() for path in h.user_files(env)]


def not_watched():
    """Names of user-level files the harnesses write themselves all the time."""
    return tuple(name for h in HARNESSES.values() for name in h.not_watched)


def involves():
    """Every harness's regex alternatives for text that names its files."""
    return [part for h in HARNESSES.values() for part in h.involves]


def code_text():
    """Every harness's regex alternatives for code that names its adapter's files."""
    return [part for h in HARNESSES.values() for part in h.code_text]


def read_tools():
    """Every harness's read-only tools."""
    return sorted({t for p in PROTOCOLS.values() for t in p.reads})
