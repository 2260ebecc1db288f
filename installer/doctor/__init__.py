"""``agentguard doctor``: establish by experiment that the protection works and name every gap.
``runner`` walks the check groups (``checks/``, one module per group, each check naming its own repair)
for a working repository, ``serverrunner`` the server's for a bare one; ``probes`` runs the real hooks in
a sandbox; ``report`` prints the results (rich on a terminal, plain when piped, JSON on request)."""
