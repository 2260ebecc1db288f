"""Every harness's install-time module, in the runtime registry's order (``hooks/harness/registry``)."""
from ...hooks.harness.registry import NAMES, PROTOCOLS
from . import (amp, auggie, claude, cline, codex, copilot, crush, cursor, descriptor, droid, gemini, goose,
               gptme, hermes, kilo, kiro, opencode, pi, qwen, windsurf)

_MODULES = {module.HARNESS.name: module.HARNESS
            for module in (pi, hermes, gptme, claude, codex, gemini, opencode, copilot, kilo, amp, goose, crush, kiro,
                           cline, windsurf, cursor, qwen, auggie, droid)}
HARNESSES = {name: _MODULES.get(name) or descriptor.Install(name) for name in NAMES}
# the adapters a plain install always writes: the plugins that run ``check`` themselves
PLUGIN_HARNESSES = tuple(name for name in NAMES if name not in PROTOCOLS)
# the harnesses whose hook is the hook command: in a settings file, or in a whole file of ours
SETTINGS_HARNESSES = tuple(name for name in PROTOCOLS if HARNESSES[name].settings is not None)
WHOLE_FILE_HARNESSES = tuple(name for name in PROTOCOLS if HARNESSES[name].settings is None)


def files(harness):
    """[(path in the work tree, template or function, mode)] of ``harness``'s adapter files."""
    return HARNESSES[harness].files


def first_settings_rel():
    """The settings file of the first settings-file harness (an example in the CLI's help)."""
    return HARNESSES[SETTINGS_HARNESSES[0]].settings.rel


def merged_files():
    """The files in the work tree install merges into besides the settings files."""
    return tuple(rel for h in HARNESSES.values() for rel in h.merged)


def record_keys():
    """The install record's keys the harnesses' own steps write (one worktree's)."""
    return tuple(key for h in HARNESSES.values() for key in h.records)
