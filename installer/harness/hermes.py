"""Hermes Agent at install time: agentguard's plugin in .hermes/plugins, and whether Hermes loads it
(project plugins on, the plugin listed as enabled)."""
import os
import re

from .descriptor import Install, read_text


def enabled(ctx):
    home = os.environ.get("HERMES_HOME") or os.path.expanduser("~/.hermes")
    env_on = os.environ.get("HERMES_ENABLE_PROJECT_PLUGINS") == "1"
    dotenv = read_text(os.path.join(home, ".env"))
    env_on = env_on or bool(re.search(r"^\s*(export\s+)?HERMES_ENABLE_PROJECT_PLUGINS\s*=\s*['\"]?1", dotenv, re.M))
    config = read_text(os.path.join(home, "config.yaml"))
    listed = bool(re.search(r"enabled:[^\n]*agentguard|enabled:\s*\n(\s+-\s*\S+\s*\n)*\s+-\s*['\"]?agentguard", config))
    if env_on and listed:
        return ("pass", "Hermes loads the agentguard plugin (project plugins on, listed in plugins.enabled)", None)
    missing = []
    if not env_on:
        missing.append("HERMES_ENABLE_PROJECT_PLUGINS=1 (environment or %s/.env)" % home)
    if not listed:
        missing.append("agentguard in plugins.enabled of %s/config.yaml" % home)
    return ("warn", "Hermes will not load the plugin without %s" % " and ".join(missing),
            "echo HERMES_ENABLE_PROJECT_PLUGINS=1 >> %s/.env; add 'plugins: {enabled: [agentguard]}' to "
            "%s/config.yaml" % (home, home))


HARNESS = Install("hermes", enabled=enabled,
                  files=[(".hermes/plugins/agentguard/plugin.yaml", "hermes/plugin.yaml", 0o644),
                         (".hermes/plugins/agentguard/__init__.py", "hermes/__init__.py", 0o644),
                         (".hermes/plugins/agentguard/client.py", "client.py", 0o644)])
