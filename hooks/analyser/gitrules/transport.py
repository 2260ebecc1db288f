"""Programs a git command runs through its config or its transport: an ``ext::`` URL (git runs the
command it names as the transport), ``-c protocol.ext.allow`` (switches that on), and ``-c <key>=<program>``
(or the same in ``GIT_CONFIG_COUNT``/``GIT_CONFIG_PARAMETERS``) for a key ``guardconfig`` lists
(``core.pager``, ``core.sshCommand``, ``remote.<name>.uploadpack``...), which git runs in this very command.
``--upload-pack``/``--receive-pack``/``--exec`` are read in ``programs.py``."""
from ...gitmodel.cli import environment_config
from ...guardconfig import rule_for, split
from ...rules import Block
from ..shelltree import DYN

# commands that take a repository URL (or a remote's name) among their words or options
URL_TAKERS = ("fetch", "pull", "push", "clone", "ls-remote", "archive", "remote", "submodule", "fetch-pack",
              "send-pack", "config")
URL_OPTIONS = ("--remote", "--url", "--reference")
EXT = "ext::"


def check(call, ctx):
    env = {k: v for k, v in (ctx.state.env or {}).items() if v is not None}
    from_env = environment_config(env) if any(k.upper().startswith("GIT_CONFIG_") for k in env) else []
    for key, value in list(call.config) + (from_env or []):
        found = rule_for(key, value or "")
        if found is None or found[0] != "program-config":
            continue
        section, _, var = split(key)
        if section == "protocol":
            raise Block("program-config", "git -c %s, which lets an ext:: URL run a program as git's transport" % key)
        if value is None or DYN in value:
            raise Block("unanalysable", "git -c %s: a program built from variables" % key)
        if section in ("alias", "submodule") and value.startswith("!"):
            value = value[1:]
        ctx.analyser.check_text(value, ctx.state.copy(), "git -c %s" % key)
    if call.cmd in URL_TAKERS:
        for word in call.words() + call.values(*URL_OPTIONS):
            if word.lower().startswith(EXT) or (call.cmd == "config" and EXT in word.lower()):
                raise Block("program-config", "git %s with an ext:: URL, which makes git run a program as its "
                                              "transport" % call.cmd)
