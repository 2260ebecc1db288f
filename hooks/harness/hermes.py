"""Hermes Agent: agentguard's plugin in ``.hermes/plugins``, which runs ``check`` itself."""
import os

from .descriptor import Harness, home

HARNESS = Harness("hermes", "Hermes", worktree_files=(".hermes/plugins",),
                  involves=(r"\.hermes",), code_text=(r"\.hermes[/\\]plugins",),
                  user_signs=lambda env: [env.get("HERMES_HOME") or os.path.join(home(env), ".hermes")])
