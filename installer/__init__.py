"""The ``agentguard`` command line: install, uninstall (and the commands later issues add)."""
