"""The analyser's environment rules: variables a command line sets that skip git's hooks, name the
repository git works on (``GIT_DIR``, ``GIT_WORK_TREE``) or change which config files it reads."""
import os

from . import constructs
from .shelltree import DYN, Word
from ..rules import Block

# The environment that decides which config files git reads (and so its hooks directory and aliases).
CONFIG_ENV = {"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS",
              "GIT_CONFIG_COUNT", "HOME", "XDG_CONFIG_HOME"}


class EnvironmentRules:
    """``env_rule``: one assignment (``X=1``, ``export X=1``, ``env X=1``)."""

    def env_rule(self, name, value, state, scoped=False):
        """``scoped``: the assignment is for one command (``X=1 cmd``, ``env X=1 cmd``)."""
        from ..bypass import env_skips_hooks  # here: a command line with no assignment never loads it
        text = value.text if isinstance(value, Word) else value
        found = env_skips_hooks(name, None if DYN in text else text)
        if found:
            raise Block(*found)
        if name in ("GIT_DIR", "GIT_WORK_TREE"):  # the repository git works on
            (state.scoped if scoped else state.git_env)[name] = None if DYN in text else os.path.expanduser(text)
        if name.upper() in CONFIG_ENV or name.upper().startswith(("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_")):
            state.env[name] = None if DYN in text else os.path.expanduser(text)
        constructs.code_variable(self, name, value, state)
