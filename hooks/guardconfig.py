"""The git config entries that matter to the guard, decided once: the analyser blocks a command
that sets one (``git config``), the after-check (``hooks/outcome``) undoes a tool call that changed
one by any route (an editor, a script, ``sed -i .git/config``).

Keys are in git's canonical form: section and variable lower-case, the subsection as written.
"""
INCLUDE_KEYS = ("include.", "includeif.")
GUARD_ALIAS = "alias.remote-"  # git runs `git remote-<x>` for an <x>:: URL: an alias there replaces the helper
# what says where a remote is fetched from and pushed to (the runtime records the URL with these)
REMOTE_VARS = ("url", "pushurl", "fetch", "uploadpack", "vcs")
UPSTREAM_VARS = ("merge", "remote", "pushremote")
SENDMAIL = ("sendmailcmd", "tocmd", "cccmd", "headercmd")
# What makes git see a work tree as something else (bare, or its work tree elsewhere): git then asks no
# work tree's guard, and the after-check's snapshot names a work tree git no longer answers for.
PLACE_VARS = ("bare", "worktree")
# Settings whose value is a program git runs later, in any git command a person or a script runs:
# outside every tool call, so a program set here could undo the guard where no check looks.
# (section, variable) with None for "any subsection", "" for none.
PROGRAMS = (
    ("core", "", ("fsmonitor", "sshcommand", "askpass", "editor", "pager", "gitproxy", "alternaterefscommand")),
    ("sequence", "", ("editor",)), ("diff", "", ("external",)), ("gpg", "", ("program",)),
    ("gpg", None, ("program", "defaultkeycommand")), ("credential", "", ("helper",)), ("credential", None, ("helper",)),
    ("diff", None, ("command", "textconv")), ("merge", None, ("driver",)),
    ("filter", None, ("clean", "smudge", "process")), ("pager", "", None), ("uploadpack", "", ("packobjectshook",)),
    ("interactive", "", ("difffilter",)), ("mergetool", None, ("cmd", "path")), ("difftool", None, ("cmd", "path")),
    ("remote", None, ("receivepack", "uploadpack")), ("tar", None, ("command",)), ("trailer", None, ("command", "cmd")),
    ("sendemail", "", SENDMAIL), ("sendemail", None, SENDMAIL), ("browser", None, ("cmd", "path")),
    ("man", None, ("cmd", "path")), ("imap", "", ("tunnel",)), ("instaweb", "", ("httpd",)),
    ("guitool", None, ("cmd",)), ("hook", None, ("command",)),
)
# Settings that make git run a program only with some values: (section, subsection as above, variable,
# the test of the value). A `!` alias and `submodule.<name>.update = !cmd` run a shell command; the `ext::`
# transport runs one as soon as `protocol.ext.allow` (or `protocol.allow`) lets it.
# (An alias without `!` is a git command line: it meets the hooks like any other and stays allowed.)
VALUED = (
    ("alias", "", None, lambda v: v.startswith("!")), ("sendemail", "", "smtpserver", lambda v: "/" in v),
    ("sendemail", None, "smtpserver", lambda v: "/" in v),
    ("submodule", None, "update", lambda v: v.startswith("!")),
    ("protocol", "", "allow", lambda v: v.strip().lower() != "never"),
    ("protocol", "ext", "allow", lambda v: v.strip().lower() != "never"),
)


def _pattern(section, sub, names):
    middle = "" if sub == "" else r"\..+" if sub is None else r"\." + sub
    return "%s%s\\.%s" % (section, middle, ".+" if names is None else "(%s)" % "|".join(names))


# One `git config --get-regexp` pattern that finds every key ``rule_for`` may answer for (the tables above
# and the keys that route pushes or switch hooks off); ``watched`` tells the same keys without ``re``.
WATCHED = "^(%s)$" % "|".join(
    [r"core\.(hookspath|bare|worktree)", r"includeif\..+", r"include\..+",
     r"remote\..+\.(url|pushurl|fetch|uploadpack|vcs|receivepack)", r"url\..+\.(insteadof|pushinsteadof)",
     r"branch\..+\.(merge|remote|pushremote)"]
    + [_pattern(sec, sub, names) for sec, sub, names in PROGRAMS]
    + [_pattern(sec, sub, None if var is None else (var,)) for sec, sub, var, _ in VALUED])

# WATCHED as (section, subsection, variables) forms, for ``watched`` (no ``re`` on a tool call's path):
# subsection "" none, None any (one character or more, dots too), variables None any (one character or more)
_WATCHED_FORMS = ((("core", "", ("hookspath",) + PLACE_VARS), ("includeif", "", None), ("include", "", None),
                   ("remote", None, REMOTE_VARS + ("receivepack",)), ("url", None, ("insteadof", "pushinsteadof")),
                   ("branch", None, UPSTREAM_VARS))
                  + PROGRAMS + tuple((sec, sub, None if var is None else (var,)) for sec, sub, var, _ in VALUED))


def watched(key):
    """True when ``key`` (canonical) is one ``WATCHED`` matches, told without a pattern."""
    section, dot, rest = key.partition(".")
    if not dot or not rest or "\n" in key:
        return False
    for sec, sub, names in _WATCHED_FORMS:
        if sec != section:
            continue
        if sub is None:
            inner, dot, var = rest.rpartition(".")
            if names is None:  # section.<any>.<any>: some dot with a character either side
                if "." in rest[1:-1]:
                    return True
            elif any(rest.endswith("." + n) and len(rest) > len(n) + 1 for n in names):
                return True
            continue
        tail = rest if sub == "" else (rest[len(sub) + 1:] if rest.startswith(sub + ".") else None)
        if tail is not None and (tail in names if names is not None else bool(tail)):
            return True
    return False


# One listing of a repository's config at every level, with each entry's scope and file: the analyser's
# view of the config and the snapshot's watched entries both read it (``check``: one git, not two).
LISTING = ["config", "-z", "--show-scope", "--show-origin", "--list"]
_LISTINGS: "dict | None" = None  # {(real top, environment): (rc, output)} once ``share_listings`` ran


def share_listings():
    """From now on, this process lists a repository's config once per environment (``layout.share_answers``:
    ``check``, where nothing changes the config between the analyser and the snapshot)."""
    global _LISTINGS
    _LISTINGS = {}


def listing(top, env=None):
    """(git's exit status, ``LISTING``'s output) of the repository at ``top``, with ``env``."""
    found = listed(top, env)
    if found is None:
        from . import gitio
        found = gitio.run(LISTING, cwd=top, env=env)
        if _LISTINGS is not None:
            _LISTINGS[_key(top, env)] = found
    return found


def listed(top, env=None):
    """``listing``'s answer when this process already has it (shared), else None; handed over once:
    whoever asks after that (the after-check's mechanism, re-reading what it put back) asks git."""
    return None if _LISTINGS is None else _LISTINGS.pop(_key(top, env), None)


def _key(top, env):
    import os
    return os.path.realpath(top), tuple(sorted((os.environ if env is None else env).items()))


def parse_listing(data, cwd):
    """[[scope, file, key, value]] of `git config -z --show-scope --show-origin` output (value None:
    a key without ``=``); ``file`` absolute, or None for the command line."""
    import os
    items = data.split(b"\0")
    out = []
    for i in range(0, len(items) - 2, 3):
        scope, origin, entry = (x.decode("utf-8", "surrogateescape") for x in items[i:i + 3])
        key, newline, value = entry.partition("\n")
        path = os.path.normpath(os.path.join(cwd, origin[len("file:"):])) if origin.startswith("file:") else None
        out.append([scope, path, key, value if newline else None])
    return out

def split(key):
    """(section, subsection, variable) of a config key; section and variable lower-cased."""
    section, _, rest = key.partition(".")
    sub, _, var = rest.rpartition(".")
    return section.lower(), sub, var.lower()


def counterpart_upstream(key, value):
    """``branch.<b>.remote`` (any) or ``branch.<b>.merge=refs/heads/<b>``: the upstream that ``git
    push -u <remote> <b>`` sets, naming the counterpart of ``<b>``. Adding it grants nothing (a
    counterpart counts only on a remote protected branches follow, ``RepoState.follows``), so the
    after-check leaves it; changing or removing an upstream is still undone."""
    section, sub, var = split(key)
    return section == "branch" and bool(sub) and (var == "remote" or (var == "merge" and value == "refs/heads/" + sub))


def rule_for(key, value="", follows=None, protects=None):
    """(rule, detail) when setting or unsetting ``key`` (to ``value``) changes what the guard relies
    on, else None. ``follows(name)``: protected branches follow remote ``name``; ``protects(branch)``:
    ``branch`` is protected (both None when unknown: then no remote and no branch counts)."""
    section, sub, var = split(key)
    low = key.lower()
    if low == "core.hookspath":
        return "hooks-path", "git config core.hooksPath"
    if low == "core.worktree" or (low == "core.bare" and is_true(value)):
        return "hooks-path", "git config %s (the work tree would no longer be one to git: no guard would see it)" % key
    if low.startswith(GUARD_ALIAS) or (section == "remote" and sub and var in ("pushurl", "vcs")):
        return "push-guard", "git config %s, which can take pushes around the push guard in git's transport" % key
    if low.startswith(INCLUDE_KEYS):
        return "hooks-path", "git config %s (an included file can switch hooks off)" % key
    if section == "remote" and sub and var in REMOTE_VARS and follows is not None and follows(sub):
        return "remote-config", "git config %s" % key
    if section == "url" and var in ("insteadof", "pushinsteadof"):
        return "remote-config", "git config %s" % key  # a rewrite can point any recorded remote elsewhere
    if section == "branch" and sub and var in UPSTREAM_VARS and protects is not None and protects(sub):
        return "remote-config", "git config %s (what protected branch %s follows)" % (key, sub)
    if section == "alias" and _skips_hooks(value or ""):
        return "no-verify", "an alias that skips hooks"
    if runs_program(section, sub, var) or _runs_with(section, sub, var, value or ""):
        return "program-config", "git config %s" % key
    return None


def is_true(value):
    """git's reading of a boolean config ``value`` (None: a key written without ``=``, which is true)."""
    if value is None:
        return True
    word = value.strip().lower()
    if word in ("false", "no", "off", ""):
        return False
    try:
        return int(word, 0) != 0
    except ValueError:
        return True


def runs_program(section, sub, var):
    for sec, subsection, names in PROGRAMS:
        if sec != section or (subsection == "" and sub) or (subsection is None and not sub):
            continue
        if names is None or var in names:
            return True
    return False


def _runs_with(section, sub, var, value):
    for sec, subsection, name, test in VALUED:
        if sec == section and (subsection == sub or (subsection is None and sub)) and name in (None, var) \
                and test(value):
            return True
    return False


def _skips_hooks(value):
    from .bypass import alias_skips_hooks  # its option tables load only for an alias
    return alias_skips_hooks(value)


def programs_in(config):
    """[file, key, value] of the entries of ``config`` ([scope, file, key, value], as the snapshot reads
    it: ``outcome.snapshot.parse_config``) that make git run a program: what install records and the
    doctor compares."""
    return sorted([path, key, value] for _, path, key, value in config
                  if path is not None and (rule_for(key, value or "") or ("",))[0] == "program-config")
