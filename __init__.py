"""agentguard: git refuses to move protected branches, whoever runs git.

The repository's top-level folders are the subpackages: ``agentguard.hooks`` (the stdlib-only
runtime that git hooks execute), ``agentguard.installer`` (the ``agentguard`` CLI) and
``agentguard.templates`` (files written into target repositories).
"""
from .hooks.version import VERSION as __version__

__all__ = ["__version__"]
