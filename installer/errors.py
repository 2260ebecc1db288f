"""Expected failures: reported as one line, exit status 1, never a traceback."""


class AgentguardError(Exception):
    """A refusal or failure the user can act on; ``str()`` is the one-line reason."""
