"""``install --all`` / ``doctor --all`` over the worker pool: the rows in the order of the repositories,
each repository handed what the run has learnt so far (``doctor.probeshare``), progress told of each."""
from concurrent.futures import FIRST_COMPLETED, wait

from ..doctor.probeshare import Shared


def run(pool, work, args, jobs, share, progress=None, commit=None):
    """[work(arg + (shared,))] for each of ``args``, in their order. With ``share``, the first
    repository runs alone (its full probes teach the others), then ``2 * jobs`` at a time, each given
    the fingerprints known when it starts (and ``commit``, the run's probe commit); without, ``shared``
    is None (every probe everywhere)."""
    rows: list = [None] * len(args)
    known: dict = {}
    pending: dict = {}
    limit = 1 if share else 2 * jobs
    nxt = 0
    while nxt < len(args) or pending:
        while nxt < len(args) and len(pending) < limit:
            pending[pool.submit(work, args[nxt] + (Shared(known, commit) if share else None,))] = nxt
            nxt += 1
        done, _ = wait(pending, return_when=FIRST_COMPLETED)
        for future in done:
            index = pending.pop(future)
            row = future.result()
            for key, path, passed in row.pop("_offer", ()):
                known.setdefault(key, (path, passed))
            rows[index] = row
            if progress is not None:
                progress.advance(row)
        limit = 2 * jobs
    return rows
