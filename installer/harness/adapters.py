"""The harness adapters install writes into the work tree (each harness's files, from
``installer.harness``; the settings entries are merged by ``settingsfile``), rendered from their
templates, and the launcher of ``check`` they run."""
import json
import re
from importlib import resources

from ...hooks.analyser.constructs import INVOLVES
from ...hooks.version import VERSION
from ...hooks.harness.registry import HARNESSES as RUNTIME
from ...hooks.harness.hook import PATCH_FILE, TIMEOUT, UNCHECKED, not_installed
from ..errors import UsageError
from .settingsfile import NAMES
from .hookcommand import HOOK_TIMEOUT, hook_script
from . import registry
from ..setup.hookscripts import sh_quote

PLUGIN_HARNESSES = registry.PLUGIN_HARNESSES  # what a plain install always sets up
HARNESSES = PLUGIN_HARNESSES + NAMES

# harness -> [(path in the work tree, template under templates/adapters or a function, mode)]; the
# settings entries are merged by ``harnesses``
FILES = {harness: registry.files(harness) for harness in HARNESSES}
ALL_PATHS = tuple(rel for harness in HARNESSES for rel, _, _ in FILES[harness])


def parse_harnesses(text):
    """The harnesses ``--harness LIST`` names (``all``: every one), or None for the default."""
    if text is None:
        return None
    names = [n.strip() for n in text.split(",") if n.strip()]
    if names == ["all"]:
        return list(HARNESSES)
    bad = [n for n in names if n not in HARNESSES]
    if bad or not names:
        raise UsageError("unknown harness %r (choose from %s, or all)"
                              % (bad[0] if bad else text, ", ".join(HARNESSES)))
    return list(dict.fromkeys(names))


def _include(template):
    """The template's text, each ``// @INCLUDE other@`` line replaced by that template's text (the
    part two plugin APIs share)."""
    text = resources.files("agentguard.templates").joinpath("adapters", template).read_text("utf-8")
    return re.sub(r"^// @INCLUDE ([\w./-]+)@\n", lambda m: _include(m.group(1)), text, flags=re.M)


def render(template, agentguard_bin, harness=None):
    """``template`` filled in; ``@HARNESS@`` and ``@HARNESS_TITLE@`` name ``harness`` (one template
    serves every harness with the same plugin API)."""
    text = _include(template)
    if harness is not None:
        text = text.replace("@HARNESS_TITLE@", RUNTIME[harness].title).replace("@HARNESS@", harness)
    # Every placeholder sits where the template is still valid source (a string literal, or a
    # shell word), so the templates parse and lint as they are.
    text = (text.replace("@INVOLVES@", INVOLVES.pattern)
                .replace('"@INVOLVES_JSON@"', json.dumps(INVOLVES.pattern))
                .replace("@PATCH_FILE@", PATCH_FILE)
                .replace('"@HOOK_SCRIPT_JSON@"', json.dumps(hook_script()))
                .replace('"@UNCHECKED_JSON@"', json.dumps(UNCHECKED))
                .replace("@UNCHECKED@", UNCHECKED)
                .replace('"@NOT_INSTALLED_JSON@"', json.dumps(not_installed()))
                .replace("@NOT_INSTALLED@", not_installed())
                .replace("@HOOK_TIMEOUT@", str(HOOK_TIMEOUT))
                .replace("@TIMEOUT@", str(TIMEOUT))
                .replace("@VERSION@", VERSION)
                .replace("@AGENTGUARD_BIN@", sh_quote(agentguard_bin)))
    return text.encode("utf-8")


def files_for(harnesses, agentguard_bin):
    """[(relative path, bytes, mode)] of every adapter file for ``harnesses``."""
    out = []
    for harness in harnesses:
        for rel, template, mode in FILES[harness]:
            out.append((rel, template() if callable(template) else render(template, agentguard_bin, harness), mode))
    return out


CHECK_LAUNCHER = """#!/bin/sh
# agentguard decision command (runtime copy), written by agentguard install.
# The harness adapters run it: check [--cwd DIR] [--json] (COMMAND | --write PATH).
# The harness hook (harness-hook) reads it into a subshell of its own, named agentguard, with this
# folder first: one shell start less on every tool call.
d=${0%%/*}
if [ "$0" = agentguard ]; then d=$1; shift; fi
AGENTGUARD_GIT=%s
export AGENTGUARD_GIT
exec %s -I -S -B "$d/runtime/run.py" check "$@"
"""


def check_launcher(python):
    from ..setup.hookscripts import tools
    return (CHECK_LAUNCHER % (sh_quote(tools()["git"]), sh_quote(python))).encode()
