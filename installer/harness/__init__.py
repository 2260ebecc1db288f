"""The harness adapters, install side. What install and the doctor know about each harness and the runtime
does not need: one module per harness (the adapter files install writes, the settings file it merges the
hook into, whether the harness will load it: trust, switches that turn hooks off, what else the doctor
checks), found through ``registry``. ``settingsfile`` merges the hook into the harnesses whose hook is a
command in a settings file, ``settingsplan`` plans those merges for install and uninstall, ``adapters``
writes the plugin files, ``hookcommand`` the one hook command they all run. The runtime facts (tool
names, payloads, answers, guarded paths) are in ``hooks/harness``."""
