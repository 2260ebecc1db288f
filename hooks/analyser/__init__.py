"""The command analyser: what a shell command an agent is about to run would do to protected
branches, git's hooks and the guard's files, decided before it runs (``agentguard check``).

``shellparse`` reads the shell into a ``shelltree``; ``analyse`` walks it in execution order with one part
per concern (``repolookup``, ``wrappers``, ``interpreters``, ``programtext``, ``writetargets``, ``envrules``,
``constructs``); ``gitrules`` judges each git command on the shared ``..gitmodel``; ``repoview`` is what it
reads of a repository.
"""
