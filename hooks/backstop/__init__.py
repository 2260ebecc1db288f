"""The backstop: what git runs on every ref update, push, commit, merge commit and rebase.

``reftx`` (reference-transaction) decides every ref update; ``prepush`` every push; ``branchhooks``
the early, kind refusals of pre-commit, pre-merge-commit and pre-rebase. Each reads the calling
git command through ``..gitmodel`` and returns a ``..rules.Refusal`` or None.
"""

# The git hooks the runtime decides (``..main.run_hook``); install adds post-checkout, which only
# finishes an install (``installer/hookscripts.HOOK_NAMES``).
HOOKS = ("pre-commit", "pre-merge-commit", "pre-rebase", "pre-push", "reference-transaction")
