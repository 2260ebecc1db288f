"""Bypass set-ups: aliases, environment variables, a global core.hooksPath, included config files,
hooks defined in config and a foreign git template, judged by the rules the runtime itself decides
with (``hooks/bypass.py``). A person mends these; ``doctor --fix`` does not."""
import os

from ....hooks.bypass import alias_skips_hooks, env_skips_hooks
from ....hooks.textsafe import safe


def check_aliases(ctx):
    """Aliases the analyser would block (``hooks/bypass.alias_skips_hooks``)."""
    risky = []
    for item in ctx.git(["config", "-z", "--get-regexp", r"^alias\."]).split("\0"):
        key, _, value = item.partition("\n")
        if key and alias_skips_hooks(value):
            risky.append(key)
    if risky:
        ctx.add("bypass.aliases", "fail", "aliases that skip or redirect hooks: %s"
                % ", ".join(safe(k, 60) for k in risky[:5]), "git config --unset %s" % safe(risky[0], 60))
    else:
        ctx.add("bypass.aliases", "pass", "no alias skips or redirects hooks")


def check_env(ctx):
    """This shell's environment, judged by the analyser's rule (``hooks/bypass.env_skips_hooks``)."""
    env = os.environ
    names = [k for k in env if k.startswith("GIT_CONFIG_") and k != "GIT_CONFIG_NOSYSTEM"]
    found = {k: env_skips_hooks(k, env[k]) for k in env}
    hooks = [k for k, r in found.items() if r and r[0] == "hooks-path"]
    husky = [k for k, r in found.items() if r and r[1] == "HUSKY=0"]
    if hooks:
        ctx.add("bypass.env", "fail", "%s in this environment redirects git's hooks" % ", ".join(hooks[:3]),
                "unset %s" % " ".join(hooks[:3]))
    elif husky:
        ctx.add("bypass.env", "warn", "HUSKY=0 is set: husky's hooks are off (agentguard's still run)",
                "unset HUSKY")
    elif names:
        ctx.add("bypass.env", "warn", "%s set in this environment" % ", ".join(names[:3]),
                "unset %s" % " ".join(names[:3]))
    else:
        ctx.add("bypass.env", "pass", "no GIT_CONFIG_* or HUSKY=0 in this environment")


def check_hooks_path(ctx):
    scoped = ctx.git(["config", "--show-scope", "--get-all", "core.hooksPath"])
    foreign = [line for line in scoped.splitlines() if line.split("\t", 1)[0] in ("global", "system")]
    if foreign:
        scope, _, value = foreign[0].partition("\t")
        ctx.add("bypass.hooks-path", "warn", "core.hooksPath is set in %s config (%s): every repository "
                "depends on it" % (scope, safe(value, 200)),
                "git config --%s --unset core.hooksPath   # then: agentguard install" % scope)
    else:
        ctx.add("bypass.hooks-path", "pass", "no global or system core.hooksPath")


def check_includes(ctx):
    """Config files the repository's own config includes: what they say can switch hooks off later,
    and nothing in .git/config shows it (user- and system-level hooksPath: ``bypass.hooks-path``)."""
    found = ctx.git(["config", "--show-scope", "--get-regexp", r"^include(if\..*)?\.path$"])
    local = [line.split("\t", 1)[1] for line in found.splitlines() if line.startswith("local\t")]
    if local:
        key, _, path = local[0].partition(" ")
        ctx.add("bypass.include", "warn", "the repository's config includes %s (%s): a file outside .git/config "
                "that can switch hooks off" % (safe(path, 200), safe(key, 100)),
                "git config --local --unset-all %s   # if you did not add it" % safe(key, 100))
    else:
        ctx.add("bypass.include", "pass", "the repository's config includes no other file")


def check_config_hooks(ctx):
    hooks_cfg = ctx.git(["config", "--get-regexp", r"^hook\..*\.(command|event)$"])
    if hooks_cfg.strip():
        ctx.add("bypass.config-hooks", "warn", "hooks are also defined in config (git 2.54+ runs them in "
                "addition): %s" % safe(hooks_cfg.splitlines()[0], 200), "git config --get-regexp '^hook\\.'")


def check_programs(ctx):
    """Settings that make git run a program (``guardconfig.PROGRAMS``/``VALUED``), at any scope git reads,
    that install did not see: a person may have set one since (then ``agentguard install`` records it), or
    something else did between the guard's checks."""
    from ...gitaccess.programs import program_settings
    seen = ctx.record.get("programs") if ctx.record is not None else None
    if not isinstance(seen, list):
        return  # not installed, or by an agentguard that recorded none
    seen = [e for e in seen if isinstance(e, list)]
    new = [e for e in program_settings(ctx.info.top, ctx.git) if e not in seen]
    if new:
        path, key, _ = new[0]
        ctx.add("bypass.programs", "warn", "git runs programs set in config that install did not see: %s"
                % ", ".join("%s (%s)" % (safe(k, 60), safe(p, 120)) for p, k, _ in new[:3]),
                "git config --file %s --unset-all %s   # if you did not set it; else: agentguard install"
                % (safe(path, 200), safe(key, 100)))
    else:
        ctx.add("bypass.programs", "pass", "every program-running setting git reads was there at install")


def check_template_dir(ctx):
    """init.templateDir: agentguard's own template (``install --template``) passes when it is what
    this agentguard would write now; any other template gives new clones its hooks, not agentguard's."""
    from ...setup.template import expand, read_mark, template_problem
    template = ctx.git(["config", "--get", "init.templateDir"])
    if not template.strip():
        return
    path = expand(template)
    if read_mark(path) is None:
        ctx.add("bypass.template-dir", "warn", "init.templateDir=%s: new clones get those hooks, not "
                "agentguard's" % safe(template, 200), "agentguard install   # in each new clone")
        return
    problem = template_problem(path)
    if problem:
        ctx.add("bypass.template-dir", "warn", problem + ": new repositories get its old hooks",
                "agentguard install --template   # rewrites it")
    else:
        ctx.add("bypass.template-dir", "pass", "init.templateDir is agentguard's template (%s): every new git init "
                "and git clone starts guarded" % safe(path, 200))


