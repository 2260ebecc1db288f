"""``agentguard doctor``: establish by experiment that the protection works; name every gap.

Each check has a stable id and ends as pass, warn or fail, with the exact command that fixes a
problem. Without ``--fix`` nothing in the repository changes (the probes run in a sandbox).

This module is the runner: it walks the groups of ``checks.groups.GROUPS`` in order (one
module per group; each check a plain function ``check(ctx)`` over a ``checks.base.Context``),
reports (``ok``, ``to_json``) and, for ``--fix``, runs the repair each failed check names itself
(``checks.base.Repair``), each once, in their order. Where a check judges a bypass or a
protected branch, it asks the rule the runtime itself decides with (``hooks/bypass.py`` for aliases
and the environment, ``RepoState.on_counterpart`` for "already on a remote counterpart"), so the
analyser, the backstop and the doctor cannot disagree.
"""
import os

from ..setup import manifest
from . import probes
from .checks.base import Context
from .checks.groups import GROUPS
from ..gitaccess.repo import discover


class Doctor:
    def __init__(self, path, info=None):
        """``info``: the repository's ``Layout`` when the caller has just asked git for it (doctor --all's
        search); None: asked here."""
        self.info = info if info is not None else discover(path)
        self.checks = []
        self.record = manifest.load(self.info.ag_home)
        self.policy = None
        self.live = True
        self.notes = []  # what --fix did besides rewriting install's files

    def run(self, live=True, shared=None):
        """All checks; ``live=False`` skips the probes (for callers that run inside a hook). ``shared``:
        doctor --all's ``probeshare.Shared`` (None: every probe runs here)."""
        self.live = live and os.environ.get(probes.NESTED) != "1"
        self.record = manifest.load(self.info.ag_home)
        ctx = Context(self.info, self.record, self.live, shared)
        self.checks = ctx.checks
        for _, checks in GROUPS:
            for check in checks:
                check(ctx)
        self.policy = ctx.policy
        return self.checks

    def ok(self):
        return not any(c.status == "fail" for c in self.checks)

    def to_json(self):
        out = {"ok": self.ok(), "checks": [c.to_json() for c in self.checks]}
        if self.notes:
            out["fixed"] = list(self.notes)
        return out


def fix(doctor):
    """Run the repair every check that did not pass names (``Check.repair``), each once, lowest
    ``order`` first: rewriting what install owns with the policy install recorded (never the work
    tree's word), the adapters of other worktrees, a protected branch holding local-only commits
    moved back to its remote counterpart with its commits kept on a rescue branch (``doctor.notes``
    says what happened). Returns the install plan applied ([] when none was needed)."""
    plan = []
    repairs = {c.repair for c in doctor.checks if c.repair is not None and c.status != "pass"}
    for repair in sorted(repairs, key=lambda r: r.order):
        applied = repair.run(doctor)
        if applied is not None:
            plan = applied
    return plan
