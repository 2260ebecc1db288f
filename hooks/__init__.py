"""The agentguard runtime: the code git hooks execute.

Standard library only, relative imports only: the same files run as ``agentguard.hooks`` from the
installed package and as a private copy (``<git common dir>/agentguard/runtime/hooks``) that the
hook scripts start with ``python -I -S``, so the backstop survives an upgrade or removal of the
package and ignores ``PYTHONPATH`` and friends.
"""
