"""git config: switching hooks off (core.hooksPath, --edit) and aliases that skip hooks."""
from ...rules import Block
from ...bypass import alias_skips_hooks
from ...guardconfig import INCLUDE_KEYS, rule_for
from ..repoview import follows_remote, user_config_files
from ..shelltree import DYN

_READ = ("--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "--get-color", "--get-colorbool")
_WRITE = ("--unset", "--unset-all", "--add", "--replace-all")


def config(call, ctx):
    words = call.words()
    sub = call.sub
    if sub is None and words and words[0] in ("set", "unset", "get", "list", "edit", "rename-section",
                                              "remove-section"):
        sub, words = words[0], words[1:]  # a git older than the subcommands
    if sub in ("get", "list") or call.has(*_READ):
        return
    if sub == "edit" or call.has("--edit"):
        raise Block("hooks-path", "git config --edit")
    remote = _local_remote(call, ctx)
    if remote is not None and (sub is not None or len(words) > 1
                               or call.has(*_WRITE, "--rename-section", "--remove-section")):
        raise Block("guard-files", "git config in %s, a remote reached by a local path" % remote.common_dir)
    if sub in ("rename-section", "remove-section") or call.has("--rename-section", "--remove-section"):
        if words and words[0].lower() in ("core", "alias"):
            raise Block("hooks-path", "git config section %s" % words[0])
        if words and words[0].lower().startswith("url."):
            raise Block("push-guard", "git config section %s (URL rewrites route pushes through the guard)" % words[0])
        return
    if not words:
        return
    writing = sub in ("set", "unset") or len(words) > 1 or call.has(*_WRITE)
    if not writing:
        return  # `git config KEY` reads it
    key = words[0]
    if DYN in key:
        raise Block("unanalysable", "a variable names a config key")
    value = words[1] if len(words) > 1 else ""
    repo = ctx.repo
    found = rule_for(key, value, follows=(lambda name: follows_remote(repo, name)) if repo is not None else None,
                     protects=repo.policy.is_protected if repo is not None else None)
    if found is not None:
        raise Block(*found)
    if key.lower().startswith("alias."):
        ctx.state.aliases[key.lower()[len("alias."):]] = value


def _local_remote(call, ctx):
    """The remote reached by a local path whose config a ``git config`` call writes (the repository it
    runs in, or the one its ``--file`` is in), else None."""
    import os
    path = call.value("--file", "-f")
    if path is not None and ctx.state.cwd is not None and DYN not in path:
        view = ctx.analyser.repo_at(os.path.dirname(os.path.join(ctx.state.cwd, os.path.expanduser(path))))
    else:
        view = ctx.repo
    return view if view is not None and ctx.analyser.local_remote(view) else None


CONFIG_FILE_ENV = ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG")


def config_sources(call, ctx):
    """An invocation whose ``-c include...`` or environment (``GIT_CONFIG_GLOBAL``, ``HOME``,
    ``GIT_CONFIG_PARAMETERS``...) changes which config git reads: git itself is asked where it would
    then look for hooks and what the alias would run, and a change is blocked."""
    env = ctx.state.env
    includes = [(k, v) for k, v in call.config if k.startswith(INCLUDE_KEYS)]
    if (not env and not includes) or ctx.repo is None or ctx.state.cwd is None:
        return
    import os
    from ... import gitio
    from ...guardpaths import real
    from .commands import READ_ONLY_GIT
    if call.cmd in READ_ONLY_GIT:
        return
    if any(v is None for v in env.values()) or any(v is None or DYN in v for _, v in includes):
        raise Block("unanalysable", "a variable decides which config git reads")
    run_env = dict(os.environ, **{k: v for k, v in env.items() if v is not None})
    named = [env.get(n) for n in CONFIG_FILE_ENV] + [v for _, v in includes] + user_config_files(run_env)
    if any(real(os.path.join(ctx.state.cwd, f)) in ctx.state.written for f in named if f):
        raise Block("hooks-path", "git would read config this command line writes")
    overrides = [a for k, v in includes for a in ("-c", "%s=%s" % (k, v))]
    try:
        rc, out = gitio.run(overrides + ["rev-parse", "--git-path", "hooks"], cwd=ctx.state.cwd, env=run_env)
    except gitio.GitError:
        rc, out = 1, b""
    hooks = out.decode("utf-8", "surrogateescape").strip()
    if rc != 0 or real(os.path.join(ctx.state.cwd, hooks)) != ctx.repo.hooks_dir:
        raise Block("hooks-path", "config git would read here moves its hooks (%s)" % (hooks or "unknown"))
    if call.cmd:
        _, alias = gitio.run(overrides + ["config", "--get", "alias." + call.cmd], cwd=ctx.state.cwd, env=run_env)
        if alias and alias_skips_hooks(alias.decode("utf-8", "replace").strip()):
            raise Block("no-verify", "an alias that skips hooks, from config this command makes git read")
