"""Expected failures: reported as one line, exit status 1, never a traceback."""


class AgentguardError(Exception):
    """A refusal or failure the user can act on; ``str()`` is the one-line reason."""


class UsageError(AgentguardError):
    """A command line agentguard cannot take (an unknown harness, a pattern no branch can have): exit 2."""
