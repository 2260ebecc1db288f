"""gptme at install time: agentguard's plugin in .gptme/plugins (switched on in gptme.toml, which
install merges: ``adapters.merge_gptme_toml``) and its completion verifier."""
import os

from ..fsops import read_regular
from .descriptor import Install


def enabled(ctx):
    if os.environ.get("GPTME_VERIFY_COMPLETION"):
        return ("warn", "GPTME_VERIFY_COMPLETION is set, so gptme runs it instead of "
                ".gptme/verify-completion.sh", "unset GPTME_VERIFY_COMPLETION")
    return ("pass", "gptme loads the plugin from gptme.toml and verifies completion with "
            ".gptme/verify-completion.sh", None)


def problems(top, path, data):
    """gptme.toml must switch the plugin on, and the verifier be executable."""
    from ..adapters import GPTME_TOML, gptme_enabled
    found = []
    toml = read_regular(os.path.join(top, GPTME_TOML))
    if toml is None or not gptme_enabled(toml):
        found.append("gptme.toml does not enable the plugin ([plugins] paths and enabled)")
    script = os.path.join(top, ".gptme", "verify-completion.sh")
    if os.path.exists(script) and not os.access(script, os.X_OK):
        found.append(".gptme/verify-completion.sh is not executable (gptme skips it)")
    return found


HARNESS = Install("gptme", enabled=enabled, problems=problems,
                  files=[(".gptme/plugins/agentguard/__init__.py", "gptme/__init__.py", 0o644),
                         (".gptme/plugins/agentguard/client.py", "client.py", 0o644),
                         (".gptme/plugins/agentguard/hooks/agentguard_confirm.py", "gptme/hooks/agentguard_confirm.py",
                          0o644),
                         (".gptme/verify-completion.sh", "gptme/verify-completion.sh", 0o755)])
