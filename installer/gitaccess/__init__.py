"""The installer's access to git, through GitPython: a scrubbed environment and timeouts (``gitenv``),
finding the repository to guard (``repo``), and git's own option table (``gitoptions``)."""
