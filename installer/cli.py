"""The ``agentguard`` command (typer). Exit status: 0 done, 1 refused or failed, 2 usage error."""
import os
import sys
from typing import List, Optional

import typer

from ..hooks.textsafe import safe
from ..hooks.version import VERSION
from .errors import AgentguardError, UsageError
from .harness import registry as harness_registry

app = typer.Typer(
    name="agentguard",
    help="Make git itself refuse commits, moves and pushes onto protected branches.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool):
    if value:
        typer.echo("agentguard %s" % VERSION)
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                 help="Print the version and exit."),
):
    """agentguard: a git backstop so that protected branches only change through pull requests."""


def _fail(exc):
    typer.echo("agentguard: %s" % safe(str(exc), 400), err=True)
    raise typer.Exit(2 if isinstance(exc, UsageError) else 1)


def _patterns(protect):
    """``--protect`` as given, each pattern one a branch can have (else a usage error)."""
    from ..hooks.policy import Policy, PolicyError
    if protect:
        try:
            Policy(list(protect), "--protect")
        except PolicyError as exc:
            raise UsageError("--protect: %s" % exc)
    return protect


def _one_path(paths):
    """The single repository path of a plain install/uninstall/doctor (several only with --all)."""
    if paths and len(paths) > 1:
        raise typer.BadParameter("one repository at a time (several roots only with --all)")
    return paths[0] if paths else None


def _exclusive(**modes):
    chosen = [name for name, on in modes.items() if on]
    if len(chosen) > 1:
        raise typer.BadParameter("%s cannot be combined" % " and ".join("--" + n for n in chosen))


_ALL_HELP = "Find every repository under the given roots (default: here) and do this for each; one table."
_DEPTH_HELP = "With --all: how deep below each root to look for repositories."
# install's flushes and doctor's probes wait on the disk, git and its hooks: two a CPU keep the cores busy
_JOBS_HELP = "With --all: repositories handled at once (default: twice the number of CPUs)."


@app.command()
def install(
    paths: Optional[List[str]] = typer.Argument(None, metavar="PATH",
                                                help="A directory inside the repository (default: here); "
                                                     "with --all, the roots to search."),
    protect: Optional[List[str]] = typer.Option(None, "--protect", metavar="PATTERN",
                                                help="Protect these branch patterns instead of the "
                                                     "configured ones (repeatable)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print every file it would write; write none."),
    harness: Optional[str] = typer.Option(None, "--harness", metavar="LIST",
                                          help="Adapters to write: %s or all (default: %s and each other harness "
                                               "in use here)." % (",".join(harness_registry.NAMES),
                                                                  ", ".join(harness_registry.PLUGIN_HARNESSES))),
    no_adapters: bool = typer.Option(False, "--no-adapters", help="Write the git backstop only."),
    shared: Optional[bool] = typer.Option(None, "--shared/--local",
                                          help="--shared: write the adapters where a team commits them "
                                               "(%s, ...) and do not list them in "
                                               ".git/info/exclude; --local (the default): keep them out of "
                                               "git status (or as the last install had it)."
                                               % harness_registry.FIRST_SETTINGS_REL),
    push_guard: Optional[bool] = typer.Option(None, "--push-guard/--no-push-guard",
                                              help="Route every push of the repository's remotes through the "
                                                   "guard in git's transport, which --no-verify cannot skip "
                                                   "(default: on, or as the last install had it)."),
    server: Optional[str] = typer.Option(None, "--server", metavar="BARE_REPO",
                                         help="Guard a bare repository that people push to: a pre-receive hook "
                                              "refuses updates of protected branches unless the pusher is "
                                              "allowed, and then fast-forwards only."),
    allow_pusher: Optional[List[str]] = typer.Option(None, "--allow-pusher", metavar="NAME",
                                                     help="With --server: a pusher who may fast-forward protected "
                                                          "branches (repeatable; default: nobody)."),
    all_: bool = typer.Option(False, "--all", help=_ALL_HELP),
    depth: int = typer.Option(4, "--depth", min=0, max=20, help=_DEPTH_HELP),
    jobs: Optional[int] = typer.Option(None, "--jobs", min=1, max=256, help=_JOBS_HELP),
    as_json: bool = typer.Option(False, "--json", help="With --all: print the table as JSON."),
    template: bool = typer.Option(False, "--template",
                                  help="Guard every repository git creates from now on (git init, git clone): "
                                       "writes agentguard's git template and points init.templateDir at it."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="List every file written, not only a summary."),
):
    """Install the git backstop (hooks, runtime, policy snapshot) and the harness adapters."""
    from .harness.adapters import parse_harnesses
    from .setup.install import apply_install, describe, plan_install, summary
    _exclusive(server=server is not None, all=all_, template=template)
    if allow_pusher and server is None:
        raise typer.BadParameter("--allow-pusher goes with --server")
    try:
        protect = _patterns(protect)
        if os.name != "posix":
            raise AgentguardError("agentguard runs on Linux and macOS (on Windows: inside WSL); its runtime needs "
                                  "posix_spawn and fcntl, which native Windows Python does not have")
        if server is not None:
            from .setup.server import install_server
            if paths:
                raise typer.BadParameter("--server takes the bare repository as its value, no PATH")
            for line in install_server(server, protect, allow_pusher or [], dry_run=dry_run):
                typer.echo(line)
            return
        harnesses = [] if no_adapters else parse_harnesses(harness)
        if template:
            from .setup.template import install_template
            for line in install_template(protect, dry_run=dry_run):
                typer.echo(line)
            return
        if all_:
            from .setup import fleet
            from .setup.progress import reporting
            with reporting(as_json, "installing") as progress:
                rows = fleet.install_all(paths or ["."], depth=depth, protect=protect, harnesses=harnesses,
                                         transport=push_guard, jobs=jobs, dry_run=dry_run, progress=progress)
            raise typer.Exit(fleet.emit(rows, as_json, "install"))
        path = _one_path(paths)
        plan = plan_install(path, protect, harnesses=harnesses, transport=push_guard, shared=shared)
        for warning in plan.warnings:
            typer.echo("agentguard: warning: %s" % warning, err=True)
        where = safe(plan.info.top, 300)
        branches = ", ".join(safe(b, 80) for b in plan.policy.branches)
        if not plan.actions and dry_run:
            typer.echo("agentguard: already installed in %s; nothing changed" % where)
            typer.echo("  protected branches: %s (%s)" % (branches, plan.policy.source))
            return
        if dry_run:
            typer.echo("agentguard: dry run in %s; would:" % where)
            for line in describe(plan):
                typer.echo("  " + line)
            typer.echo("  protected branches: %s (%s)" % (branches, plan.policy.source))
            return
        plan = apply_install(plan)
        if not plan.actions:
            typer.echo("agentguard: already installed in %s; nothing changed" % where)
            typer.echo("  protected branches: %s (%s)" % (branches, plan.policy.source))
            return
        typer.echo("agentguard: installed in %s" % where)
        if not verbose:
            for line in summary(plan):
                typer.echo("  " + line)
            return
        for line in describe(plan):
            typer.echo("  " + line.replace("write ", "wrote ", 1).replace("keep ", "kept ", 1))
        typer.echo("  protected branches: %s (%s)" % (branches, plan.policy.source))
    except (AgentguardError, OSError) as exc:
        _fail(exc)


@app.command()
def uninstall(
    path: Optional[str] = typer.Argument(None, metavar="PATH",
                                         help="A directory inside the repository (default: here)."),
    server: Optional[str] = typer.Option(None, "--server", metavar="BARE_REPO",
                                         help="Remove agentguard from a bare repository (install --server)."),
    template: bool = typer.Option(False, "--template", help="Undo install --template."),
):
    """Remove what install wrote and put back every hook that was there before, byte for byte."""
    from .setup.uninstall import uninstall as do_uninstall
    _exclusive(server=server is not None, template=template)
    try:
        if server is not None or template:
            if path is not None:
                raise typer.BadParameter("no PATH with --server or --template")
            if server is not None:
                from .setup.server import uninstall_server as undo
                done, warnings = undo(server)
            else:
                from .setup.template import uninstall_template as undo
                done, warnings = undo()
            for warning in warnings:
                typer.echo("agentguard: warning: %s" % warning, err=True)
            for line in done:
                typer.echo(line)
            return
        info, done, warnings = do_uninstall(path)
    except (AgentguardError, OSError) as exc:
        _fail(exc)
    for warning in warnings:
        typer.echo("agentguard: warning: %s" % warning, err=True)
    if not done:
        typer.echo("agentguard: not installed in %s; nothing to remove" % safe(info.top, 300))
        return
    typer.echo("agentguard: uninstalled from %s" % safe(info.top, 300))
    for line in done:
        typer.echo("  " + line)


@app.command()
def doctor(
    paths: Optional[List[str]] = typer.Argument(None, metavar="PATH",
                                                help="A directory inside the repository (default: here); "
                                                     "with --all, the roots to search."),
    as_json: bool = typer.Option(False, "--json", help="Print {ok, checks: [{id, status, summary, fix}]}."),
    fix: bool = typer.Option(False, "--fix", help="Repair what install owns, then check again."),
    server: Optional[str] = typer.Option(None, "--server", metavar="BARE_REPO",
                                         help="Check a bare repository guarded with install --server, "
                                              "with a live push probe that changes nothing."),
    all_: bool = typer.Option(False, "--all", help=_ALL_HELP),
    depth: int = typer.Option(4, "--depth", min=0, max=20, help=_DEPTH_HELP),
    jobs: Optional[int] = typer.Option(None, "--jobs", min=1, max=256, help=_JOBS_HELP),
    no_probes: bool = typer.Option(False, "--no-probes", help="Skip the live probes (faster; proves less)."),
    probe_each: bool = typer.Option(False, "--probe-each",
                                    help="With --all: run every probe in every repository (by default the pre-push, "
                                         "pre-commit and push-guard probes run once per set of repositories whose "
                                         "guard files are byte-identical; reference-transaction runs in each)."),
):
    """Prove, by exercising the real hooks, that the protection works; name every gap."""
    from .doctor import runner
    from .doctor.report import emit
    _exclusive(server=server is not None, all=all_)
    if fix and server is not None:
        raise typer.BadParameter("--fix does not go with --server (run install --server again)")
    try:
        if server is not None:
            if paths:
                raise typer.BadParameter("--server takes the bare repository as its value, no PATH")
            from .doctor.serverrunner import ServerDoctor
            d = ServerDoctor(server)
            d.run(live=not no_probes)
            emit(d, as_json)
            raise typer.Exit(0 if d.ok() else 1)
        if all_:
            from .setup import fleet
            from .setup.progress import reporting
            with reporting(as_json, "checking") as progress:
                rows = fleet.doctor_all(paths or ["."], depth=depth, live=not no_probes, jobs=jobs, fix=fix,
                                        probe_each=probe_each, progress=progress)
            raise typer.Exit(fleet.emit(rows, as_json, "doctor"))
        d = runner.Doctor(_one_path(paths))
        d.run(live=not no_probes)
        fixed = None
        if fix:
            fixed = runner.fix(d)
            if fixed or d.notes:
                d.run(live=not no_probes)
    except (AgentguardError, OSError) as exc:
        typer.echo("agentguard: %s" % safe(str(exc), 400), err=True)
        raise typer.Exit(2)
    emit(d, as_json, fixed.actions if fixed else None)
    raise typer.Exit(0 if d.ok() else 1)


@app.command()
def allow(
    branch: Optional[str] = typer.Argument(None, help="The protected branch to allow one push or move of."),
    minutes: int = typer.Option(10, "--minutes", min=1, max=60, help="How long the grant stays usable."),
    list_: bool = typer.Option(False, "--list", help="List the grants that are usable now."),
    revoke: bool = typer.Option(False, "--revoke", help="Take back the grant for BRANCH."),
):
    """Break-glass for a person: allow ONE push or move of a protected branch (asks you to type its name;
    refused with no terminal on stdin; consumed by its first use; agents are blocked from running it)."""
    from . import allow  # the module, here in the command of the same name
    _exclusive(list=list_, revoke=revoke)
    if list_ != (branch is None):
        raise typer.BadParameter("--list takes no BRANCH" if list_ else "name the BRANCH to allow")
    try:
        if list_:
            lines = allow.listing(None)
        elif revoke:
            lines = allow.revoke(None, branch)
        else:
            lines = allow.grant_branch(None, branch, minutes, prompt=_prompt, answer=_answer)
    except allow.UsageError as exc:
        raise typer.BadParameter(str(exc))
    except (AgentguardError, OSError) as exc:
        _fail(exc)
    for line in lines:
        typer.echo(line)


def _prompt(text):
    sys.stderr.write(text)
    sys.stderr.flush()


def _answer():
    line = sys.stdin.readline()
    return line if line else None


@app.command(context_settings={"allow_interspersed_args": False})
def check(
    command: Optional[List[str]] = typer.Argument(None, metavar="COMMAND",
                                                  help="The shell command to decide (one argument, or its words; "
                                                       "every option goes before it)."),
    cwd: str = typer.Option(".", "--cwd", metavar="DIR", help="Decide as if run in DIR."),
    as_json: bool = typer.Option(False, "--json", help='Print {"decision", "rule", "reason"}.'),
    write: Optional[str] = typer.Option(None, "--write", metavar="PATH",
                                        help="Decide a file write to PATH instead of a COMMAND."),
    after: bool = typer.Option(False, "--after", help="After a tool call: undo what it did to the guard "
                               "(exit 0 nothing to undo, 3 undone, 1 not all undone); no COMMAND."),
    hook: Optional[str] = typer.Option(None, "--hook", metavar="HARNESS",
                                       help="Decide the tool call HARNESS's hook hands over on stdin, answered in "
                                            "its terms (exit 0 allow, 2 block); with --after, its post-call "
                                            "event. Takes no other option."),
):
    """Decide a shell command (or a file write) an agent is about to run: exit 0 allow, 1 block, 2 usage error.

    check [--cwd DIR] [--json] COMMAND: a shell command an agent is about to run.

    check [--cwd DIR] [--json] --write PATH: a file an agent's file tool is about to write.

    check --after [--cwd DIR] [--json]: after a tool call, undo what it did to the guard.

    check [--after] --hook HARNESS: the same for one tool call as HARNESS's hook hands it over (stdin)."""
    from ..hooks.analyser.check import main as check_main
    if hook is not None:
        if command or write is not None or as_json or cwd != ".":
            raise typer.BadParameter("--hook takes one harness name and no other option (--after aside)")
        argv = ["--hook", hook]
    else:
        argv = ["--cwd", cwd] + (["--json"] if as_json else []) + (["--write", write] if write is not None else [])
        argv += ["--"] + list(command) if command else []
    raise typer.Exit(check_main((["--after"] if after else []) + argv))


@app.command(hidden=True, context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def hook(ctx: typer.Context, name: str = typer.Argument(..., help="commit, push or doctor")):
    """Entry points of the pre-commit framework hooks (.pre-commit-hooks.yaml)."""
    from .framework import run
    raise typer.Exit(run(name, list(ctx.args)))


def main():
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)
