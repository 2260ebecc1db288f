"""Cline at install time: the hook files .clinerules/hooks/PreToolUse and PostToolUse (executables,
no configuration), and whether another hook file can undo their answers."""
import os

from ...hooks.harness.cline import PROTOCOL, user_hooks
from .descriptor import Install
from .hookcommand import hook_command

HOOKS = ".clinerules/hooks"
EXTENSIONS = ("", ".sh", ".bash", ".zsh", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".py", ".ps1")


def hook_file(event=None):
    """One hook file: the hook command, run by the ``#!`` interpreter Cline reads (it needs no exec bit)."""
    def data():
        return ("#!/bin/sh\n# agentguard: Cline's %s hook, written by agentguard install (uninstall removes it).\n"
                "exec %s\n" % (event or "PreToolUse", hook_command("cline", event))).encode()
    return data


def others(top):
    """The other PreToolUse hook files Cline runs here: the last one's ``overrideInput`` wins."""
    dirs = [os.path.join(top, ".clinerules", "hooks"), os.path.join(top, ".cline", "hooks")] + user_hooks(os.environ)
    ours = os.path.realpath(os.path.join(top, *HOOKS.split("/"), "PreToolUse"))
    found = []
    for folder in dirs:
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for name in names:
            stem, ext = os.path.splitext(name)
            path = os.path.join(folder, name)
            if stem.lower() == "pretooluse" and ext.lower() in EXTENSIONS and os.path.realpath(path) != ours:
                found.append(path)
    return found


def enabled(ctx):
    found = others(ctx.info.top)
    if found:
        return ("warn", "Cline also runs %s before each tool call; where it answers overrideInput, it can undo "
                "agentguard's refusal" % ", ".join(found), "remove or review %s" % ", ".join(found))
    return ("pass", "Cline runs .clinerules/hooks/PreToolUse and PostToolUse before and after each tool call "
            "(no trust step)", None)


HARNESS = Install("cline", enabled=enabled,
                  files=[(HOOKS + "/PreToolUse", hook_file(), 0o755)]
                  + [(HOOKS + "/" + event, hook_file(event), 0o755) for event in PROTOCOL.post])
