"""The ``agentguard`` command (typer). Exit status: 0 done, 1 refused or failed, 2 usage error."""
import os
import sys
from typing import List, Optional

import typer

from ..hooks.textsafe import safe
from ..hooks.version import VERSION
from .errors import AgentguardError

app = typer.Typer(
    name="agentguard",
    help="Make git itself refuse commits, moves and pushes onto protected branches.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
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
    raise typer.Exit(1)


@app.command()
def install(
    path: Optional[str] = typer.Argument(None, help="A directory inside the repository (default: here)."),
    protect: Optional[List[str]] = typer.Option(None, "--protect", metavar="PATTERN",
                                                help="Protect these branch patterns instead of the "
                                                     "configured ones (repeatable)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print every file it would write; write none."),
    harness: Optional[str] = typer.Option(None, "--harness", metavar="LIST",
                                          help="Adapters to write: pi,hermes,gptme,claude,codex,gemini,opencode,"
                                               "copilot or all (default: pi, hermes, gptme and each other harness "
                                               "in use here)."),
    no_adapters: bool = typer.Option(False, "--no-adapters", help="Write the git backstop only."),
    push_guard: Optional[bool] = typer.Option(None, "--push-guard/--no-push-guard",
                                              help="Route every push of the repository's remotes through the "
                                                   "guard in git's transport, which --no-verify cannot skip "
                                                   "(default: on, or as the last install had it)."),
):
    """Install the git backstop (hooks, runtime, policy snapshot) and the harness adapters."""
    from .adapters import parse_harnesses
    from .install import apply_install, describe, plan_install
    try:
        if os.name != "posix":
            raise AgentguardError("agentguard runs on Linux and macOS (on Windows: inside WSL); its runtime needs "
                                  "posix_spawn and fcntl, which native Windows Python does not have")
        harnesses = [] if no_adapters else parse_harnesses(harness)
        plan = plan_install(path, protect, harnesses=harnesses, transport=push_guard)
        for warning in plan.warnings:
            typer.echo("agentguard: warning: %s" % warning, err=True)
        where = safe(plan.info.top, 300)
        branches = ", ".join(safe(b, 80) for b in plan.policy.branches)
        if not plan.actions:
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
        for line in describe(plan):
            typer.echo("  " + line.replace("write ", "wrote ", 1).replace("keep ", "kept ", 1))
        typer.echo("  protected branches: %s (%s)" % (branches, plan.policy.source))
    except (AgentguardError, OSError) as exc:
        _fail(exc)


@app.command()
def uninstall(
    path: Optional[str] = typer.Argument(None, help="A directory inside the repository (default: here)."),
):
    """Remove what install wrote and put back every hook that was there before, byte for byte."""
    from .install import uninstall as do_uninstall
    try:
        info, done, warnings = do_uninstall(path)
    except (AgentguardError, OSError) as exc:
        _fail(exc)
    for warning in warnings:
        typer.echo("agentguard: warning: %s" % warning, err=True)
    typer.echo("agentguard: uninstalled from %s" % safe(info.top, 300))
    for line in done:
        typer.echo("  " + line)


@app.command()
def doctor(
    path: Optional[str] = typer.Argument(None, help="A directory inside the repository (default: here)."),
    as_json: bool = typer.Option(False, "--json", help="Print {ok, checks: [{id, status, summary, fix}]}."),
    fix: bool = typer.Option(False, "--fix", help="Repair what install owns, then check again."),
):
    """Prove, by exercising the real hooks, that the protection works; name every gap."""
    from . import doctor as doc
    from .report import emit
    try:
        d = doc.Doctor(path)
        d.run()
        fixed = None
        if fix:
            fixed = doc.fix(d)
            if fixed or d.notes:
                d.run()
    except (AgentguardError, OSError) as exc:
        typer.echo("agentguard: %s" % safe(str(exc), 400), err=True)
        raise typer.Exit(2)
    emit(d, as_json, fixed.actions if fixed else None)
    raise typer.Exit(0 if d.ok() else 1)


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def check(
    ctx: typer.Context,
    cwd: str = typer.Option(".", "--cwd", help="Decide as if run in DIR."),
    as_json: bool = typer.Option(False, "--json", help='Print {"decision", "rule", "reason"}.'),
    write: Optional[str] = typer.Option(None, "--write", metavar="PATH", help="Decide a file write instead."),
    after: bool = typer.Option(False, "--after", help="After a tool call: undo what it did to the guard "
                               "(exit 0 nothing to undo, 3 undone, 1 not all undone)."),
):
    """Decide a shell command (or a file write) an agent is about to run: exit 0 allow, 1 block."""
    from ..hooks.analyser.check import main as check_main
    argv = ["--cwd", cwd] + (["--json"] if as_json else []) + (["--write", write] if write is not None else [])
    if after:
        argv = ["--after"] + argv
    raise typer.Exit(check_main(argv + list(ctx.args)))


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
