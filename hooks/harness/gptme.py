"""gptme: agentguard's plugin in ``.gptme/plugins`` (switched on in ``gptme.toml``), which runs
``check`` itself, and its completion verifier."""
import os

from .descriptor import Harness, config_home

HARNESS = Harness("gptme", "gptme",
                  worktree_files=("gptme.toml", "gptme.local.toml", ".gptme/plugins", ".gptme/verify-completion.sh"),
                  involves=(r"\.gptme", r"gptme\.toml"),
                  code_text=(r"gptme(\.local)?\.toml", r"\.gptme[/\\](plugins|verify)"),
                  user_signs=lambda env: [os.path.join(config_home(env), "gptme")])
