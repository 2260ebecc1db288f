"""The ways around git's hooks that live in configuration and the environment, decided once:
the analyser blocks a command that sets them, the doctor reports a repository or a shell that
has them."""
from .gitmodel import cli

SKIPPING_CMDS = ("commit", "merge", "pull", "push", "rebase", "am", "cherry-pick", "revert", "worktree",
                 "switch", "checkout")


def alias_skips_hooks(value):
    """True when the alias ``value`` (what ``alias.<name>`` holds) skips or redirects git's hooks:
    ``--no-verify`` (or ``commit -n``, read with git's own option table) or core.hooksPath."""
    import shlex  # only aliases need it
    low = value.lower()
    if "--no-verify" in low or "hookspath" in low:
        return True
    text = value[1:] if value.startswith("!") else value
    for part in text.replace("&&", ";").replace("||", ";").replace("|", ";").split(";"):
        try:
            words = shlex.split(part)
        except ValueError:
            words = part.split()
        if value.startswith("!"):
            if not words or words[0] != "git":
                continue
            words = words[1:]
        call = cli.parse_after_git(words)
        if call.cmd in SKIPPING_CMDS and call.has("--no-verify"):
            return True
    return False


def env_skips_hooks(name, value):
    """(rule, detail) when the environment variable ``name=value`` turns hooks off, else None.
    ``value`` None: its value cannot be known (a variable)."""
    up = name.upper()
    text = (value or "").strip()
    if up == "HUSKY" and text == "0":
        return "hook-skip-env", "HUSKY=0"
    if up == "SKIP" and text:
        return "hook-skip-env", "SKIP=%s" % text
    if up in ("PRE_COMMIT_ALLOW_NO_CONFIG", "AGENTGUARD_POST_CHECKOUT"):
        # the second is set by agentguard's post-checkout for the install it starts: set by hand,
        # a new worktree or clone gets no harness adapters
        return "hook-skip-env", name
    if up.startswith("GIT_CONFIG_KEY_") or up in ("GIT_CONFIG_PARAMETERS", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"):
        if "hookspath" in text.lower():
            return "hooks-path", name
        if value is None:
            return "unanalysable", "%s from a variable" % name
    return None
