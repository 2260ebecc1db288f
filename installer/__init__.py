"""The ``agentguard`` command line (``cli``) and what its commands do: install and uninstall (the runtime
copied from ``hooks/``, the hook scripts, the push guard, harness settings), doctor, allow, check, and the
pre-commit framework's hook entry."""
