"""The audit log: one JSON line per refusal in ``<git common dir>/agentguard/audit.jsonl``."""
import os
import time

from . import jsonlite
from .textsafe import safe, safe_argv

LOG_NAME = "audit.jsonl"
MAX_REFS = 20


def refuse(stderr, ag_home, hook, refusal, argv, pusher=None):
    """A hook's refusal: rendered on ``stderr`` and appended to the log. Returns the exit status, 1."""
    try:
        stderr.write(refusal.render())
        stderr.flush()
    except (OSError, ValueError):
        pass
    record(ag_home, hook, refusal.rule, [tuple(r) for r in refusal.refs], argv, pusher)
    return 1


def record(ag_home, hook, rule, refs, argv, pusher=None):
    """Append one refusal (``pusher``: who pushed, on a server). Never raises: the refusal matters
    more than its record."""
    if not ag_home:
        return
    entry = {
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "hook": hook,
        "rule": rule,
        "refs": [{"ref": safe(r, 200), "old": safe(o, 80), "new": safe(n, 80)}
                 for (r, o, n) in refs[:MAX_REFS]],
        "command": safe_argv(argv, 500),
    }
    if pusher is not None:
        entry["pusher"] = safe(pusher, 200)
    line = (jsonlite.dumps_sorted(entry) + "\n").encode("utf-8")
    try:
        fd = os.open(os.path.join(ag_home, LOG_NAME), os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK, 0o644)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)
    except OSError:
        pass


def read(ag_home, limit=1000):
    """The last ``limit`` entries that parse (for the doctor)."""
    from .saferead import read_regular
    lines = (read_regular(os.path.join(ag_home, LOG_NAME), 1 << 30) or b"").splitlines()[-limit:]
    out = []
    for raw in lines:
        try:
            entry = jsonlite.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            continue
        if isinstance(entry, dict):
            out.append(entry)
    return out
