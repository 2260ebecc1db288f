"""What every doctor check uses.

A check is a function ``check(ctx)`` that reads a ``Context`` and records what it found with
``ctx.add(id, status, summary, fix, repair)``: ``fix`` is the command a person runs (printed),
``repair`` the ``Repair`` that ``doctor --fix`` runs for it when its status is not pass (None when
only a person can mend it). The check names its own repair: nothing matches ids afterwards.
"""
from dataclasses import dataclass, field
from typing import Callable, Optional

from ....hooks.textsafe import safe
from ...setup import worktrees
from ...gitaccess.configlist import ConfigList
from ...gitaccess.gitenv import git

FIX_ALL = "agentguard doctor --fix"


@dataclass(frozen=True)
class Repair:
    """What ``doctor --fix`` does for a check. ``run(doctor)`` returns the install plan it applied,
    or None (then what it did is in ``doctor.notes``); ``order``: repairs run lowest first, each once."""
    name: str
    order: int
    run: Callable = field(compare=False)


def _reinstall(doctor):
    """Write what install owns again, with the policy and the harnesses install recorded (never the
    work tree's word)."""
    from ...setup import manifest
    from ...setup.install import apply_install, plan_install
    harnesses = worktrees.view(doctor.record, worktrees.key_of(doctor.info)).get("harnesses")
    return apply_install(plan_install(doctor.info.top, policy=manifest.recorded_policy(doctor.record),
                                      harnesses=harnesses))


REINSTALL = Repair("reinstall", 0, _reinstall)


@dataclass
class Check:
    """One result: a stable id (``group.name``), pass | warn | fail, what was found, the fix to print."""
    id: str
    status: str  # pass | warn | fail
    summary: str
    fix: Optional[str] = None
    repair: Optional[Repair] = field(default=None, repr=False, compare=False)

    @property
    def group(self):
        return self.id.split(".", 1)[0]

    def to_json(self):
        return {"id": self.id, "status": self.status, "summary": self.summary, "fix": self.fix}


class Results:
    """Where checks record what they found (``checks``, in order)."""

    def __init__(self):
        self.checks = []

    def add(self, id_, status, summary, fix=None, repair=None):
        plain = isinstance(summary, str) and len(summary) <= 600 and summary.isascii() \
            and summary.isprintable() and "\\" not in summary  # what safe() returns unchanged
        self.checks.append(Check(id_, status, summary if plain else safe(summary, 600), fix, repair))


class Context(Results):
    """What every check reads, and where it records what it found."""

    def __init__(self, info, record, live, shared=None):
        super().__init__()
        self.info = info  # hooks.layout.Layout: top, hooks_dir, ag_home, ...
        self.record = record  # the install manifest, or None when agentguard is not installed
        self.live = live  # False: no probes (the doctor runs inside a hook or a probe)
        self.shared = shared  # doctor --all: the probe results of byte-identical guards (probeshare.Shared)
        self.policy = None  # the policy in force, set by the policy group (probes and branches read it)
        self._memo = {}

    def git(self, args, check=False):
        """stdout of ``git ARGS`` in the work tree; a config question is answered from the one listing of
        the repository's config (``configlist``)."""
        if not check and args[:1] == ["config"]:
            return self.config().ask(args)
        return git(args, cwd=self.info.top, check=check)

    def config(self):
        """The one listing of the repository's config (``configlist.ConfigList``), read once."""
        return self.memo("config-list", lambda: ConfigList(self.info.top))

    def memo(self, key, fn):
        """``fn()``, asked once per run (for facts two checks share)."""
        if key not in self._memo:
            self._memo[key] = fn()
        return self._memo[key]

    def refs(self):
        """[(ref, object id, symref target or "")] of the local branches and remote-tracking refs: one
        ``for-each-ref`` answers what the probes, the ref-shape and the branch checks ask (a dangling
        symbolic ref is not listed, as git lists none)."""
        def read():
            out = git(["for-each-ref", "--format=%(refname)%00%(objectname)%00%(symref)", "refs/heads/",
                       "refs/remotes/"], cwd=self.info.top)
            return [tuple(line.split("\0")) for line in out.splitlines() if line.count("\0") == 2]
        return self.memo("refs", read)

    def worktrees(self):
        """({key: Layout} of the usable worktrees, [(path, why)] of the skipped ones), asked once."""
        return self.memo("worktrees", lambda: worktrees.live(self.info))
