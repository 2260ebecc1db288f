"""One model of a git invocation, shared by the backstop, the analyser and the pre-commit entries.

- ``options``: which options each command takes and which take a value (git's own answer,
  written at install; a shipped table for the supported gits otherwise)
- ``cli``: a command line parsed the way git parses it: global options, the command, its options
  with their values, its positionals
- ``refnames``: refspecs and how git expands each side of one
- ``remotes``: a remote named by its name or by its URL
- ``procargv``: the argv of the git process that called a hook
"""
