"""Print doctor results: rich in a terminal, plain text when piped, JSON on request."""
import json

import typer

PLAIN = {"pass": "PASS", "warn": "WARN", "fail": "FAIL"}
RICH = {"pass": "[green]✓[/green]", "warn": "[yellow]![/yellow]", "fail": "[bold red]✗[/bold red]"}
GROUPS = {"git": "git", "install": "installation", "hooks": "hooks", "runtime": "runtime",
          "policy": "policy", "probe": "live probes", "bypass": "bypass set-ups",
          "refs": "protected refs (their shape)", "branches": "protected branches", "audit": "audit log"}


def emit(doctor, as_json, fixed=None):
    if as_json:
        typer.echo(json.dumps(doctor.to_json(), indent=2))
        return
    import sys
    if sys.stdout.isatty():
        _rich(doctor, fixed)
    else:
        _plain(doctor, fixed)


def _grouped(checks):
    groups = {}
    for check in checks:
        groups.setdefault(check.group, []).append(check)
    return groups


def _tally(doctor):
    counts = {s: sum(1 for c in doctor.checks if c.status == s) for s in ("pass", "warn", "fail")}
    verdict = "protected" if doctor.ok() else "NOT fully protected"
    return "%s: %d passed, %d warnings, %d failed" % (verdict, counts["pass"], counts["warn"], counts["fail"])


def _plain(doctor, fixed):
    typer.echo("agentguard doctor: %s" % doctor.info.top)
    if fixed:
        typer.echo("fixed: rewrote %d file(s) that install owns, then checked again" % len(fixed))
    for note in doctor.notes:
        typer.echo("fixed: %s" % note)
    for group, checks in _grouped(doctor.checks).items():
        typer.echo("%s:" % GROUPS.get(group, group))
        for c in checks:
            typer.echo("  %s %-32s %s" % (PLAIN[c.status], c.id, c.summary))
            if c.fix and c.status != "pass":
                typer.echo("       fix: %s" % c.fix)
    typer.echo(_tally(doctor))


def _rich(doctor, fixed):
    from rich.console import Console
    from rich.markup import escape
    console = Console(highlight=False)
    console.print("[bold]agentguard doctor[/bold]: %s" % escape(doctor.info.top))
    if fixed:
        console.print("fixed: rewrote %d file(s) that install owns, then checked again" % len(fixed))
    for note in doctor.notes:
        console.print("fixed: %s" % note, markup=False)
    for group, checks in _grouped(doctor.checks).items():
        console.print("[bold]%s[/bold]" % GROUPS.get(group, group))
        for c in checks:
            console.print("  %s %s  %s" % (RICH[c.status], escape(c.id), escape(c.summary)))
            if c.fix and c.status != "pass":
                console.print("      [cyan]fix:[/cyan] %s" % escape(c.fix))
    style = "green" if doctor.ok() else "bold red"
    console.print("[%s]%s[/%s]" % (style, _tally(doctor), style))
