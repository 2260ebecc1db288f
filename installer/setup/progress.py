"""``install --all`` / ``doctor --all``: progress drawn by rich on a terminal, nothing elsewhere.

The bar goes to stderr, and only when stderr is a terminal and the output is the table (not
``--json``): a pipe, a file, a harness reading the output get exactly what they got before. It is
transient: once the table is printed, the bar is gone."""
import sys
from contextlib import contextmanager

from ...hooks.textsafe import safe


class Reporter:
    """Told of each repository done (``advance(row)``); draws nothing until ``start(total)``."""

    def __init__(self, progress, label):
        self.progress = progress
        self.label = label
        self.task = None

    def start(self, total):
        self.task = self.progress.add_task(self.label, total=total, repo="")

    def advance(self, row):
        if self.task is not None:
            name = safe(row.get("path", ""), 200).rsplit("/", 1)[-1]
            self.progress.update(self.task, advance=1, repo=name)


def wanted(as_json, stream=None):
    """True when progress is drawn: the table (not JSON) to a terminal."""
    stream = stream if stream is not None else sys.stderr
    try:
        return not as_json and stream.isatty()
    except (AttributeError, ValueError):
        return False


@contextmanager
def reporting(as_json, label):
    """A Reporter drawing on stderr when ``wanted``, else None."""
    if not wanted(as_json):
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    console = Console(stderr=True)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("{task.fields[repo]}", markup=False))
    with Progress(*columns, console=console, transient=True) as progress:
        yield Reporter(progress, label)
