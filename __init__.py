"""agentguard: git refuses to move protected branches, whoever runs git.

The repository's top-level folders are the subpackages: ``agentguard.hooks`` (the stdlib-only
runtime that git hooks execute), ``agentguard.installer`` (the ``agentguard`` CLI) and
``agentguard.templates`` (files written into target repositories).
"""
# Absolute, not relative: pytest imports this file on its own (the repository root is a package for
# its collection tree), under a name that is not ``agentguard`` when the clone's directory name is
# not an identifier; the absolute import then still finds the installed package.
from agentguard.hooks.version import VERSION as __version__

__all__ = ["__version__"]
