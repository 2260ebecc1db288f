"""git commands that delete, move or restore files: the guard's files are paths too."""


def paths(call, ctx):
    for path in call.positionals:
        ctx.analyser.check_path(path, ctx.state, "git %s" % call.cmd)
