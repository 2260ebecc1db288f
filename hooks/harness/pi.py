"""pi: agentguard's extension in ``.pi/extensions``, which runs ``check`` itself."""
import os

from .descriptor import Harness, home

HARNESS = Harness("pi", "pi", worktree_files=(".pi/extensions", ".pi/settings.json"),
                  involves=(r"\.pi[/\\]",), code_text=(r"\.pi[/\\](extensions|settings)",),
                  user_signs=lambda env: [os.path.join(home(env), ".pi")])
