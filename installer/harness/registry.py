"""Every harness's install-time module, in the runtime registry's order (``hooks/harness/registry``),
imported when first asked for: ``HARNESSES`` ({name: ``descriptor.Install``}), ``SETTINGS_HARNESSES`` and
``WHOLE_FILE_HARNESSES`` are built on first access, so a command that needs no harness (``--version``,
``--help``, ``check``, ``hook``, ``allow``) imports none of them, nor what they import."""
from ...hooks.harness.registry import NAMES

# What the CLI's help names, known without importing a harness (tests/test_cli_startup.py pins both to
# what the descriptors say): the adapters a plain install always writes (the plugins that run ``check``
# themselves: the harnesses without a hook protocol), and the first settings-file harness's settings file.
PLUGIN_HARNESSES = ("pi", "hermes", "gptme")
FIRST_SETTINGS_REL = ".claude/settings.json"


def _install(name):
    """Harness ``name``'s ``descriptor.Install``: its install-time module's, or the default one."""
    module = "%s.%s" % (__package__, name)
    try:
        return __import__(module, fromlist=["HARNESS"]).HARNESS  # as the runtime registry imports them
    except ModuleNotFoundError as exc:
        if exc.name != module:
            raise
    from .descriptor import Install
    return Install(name)


def __getattr__(attr):
    """``HARNESSES``; ``SETTINGS_HARNESSES`` (the harnesses whose hook is the hook command in a settings
    file) and ``WHOLE_FILE_HARNESSES`` (in a whole file of ours); each built when first asked for (this
    module's functions ask through here too: once built, it is in the module's globals)."""
    if attr in globals():
        return globals()[attr]
    if attr == "HARNESSES":
        value = {name: _install(name) for name in NAMES}
    elif attr in ("SETTINGS_HARNESSES", "WHOLE_FILE_HARNESSES"):
        from ...hooks.harness.registry import PROTOCOLS
        in_settings = attr == "SETTINGS_HARNESSES"
        harnesses = __getattr__("HARNESSES")
        value = tuple(name for name in PROTOCOLS if (harnesses[name].settings is not None) == in_settings)
    else:
        raise AttributeError(attr)
    globals()[attr] = value
    return value


def files(harness):
    """[(path in the work tree, template or function, mode)] of ``harness``'s adapter files."""
    return __getattr__("HARNESSES")[harness].files


def first_settings_rel():
    """The settings file of the first settings-file harness (an example in the CLI's help)."""
    return __getattr__("HARNESSES")[__getattr__("SETTINGS_HARNESSES")[0]].settings.rel


def merged_files():
    """The files in the work tree install merges into besides the settings files."""
    return tuple(rel for h in __getattr__("HARNESSES").values() for rel in h.merged)


def record_keys():
    """The install record's keys the harnesses' own steps write (one worktree's)."""
    return tuple(key for h in __getattr__("HARNESSES").values() for key in h.records)
