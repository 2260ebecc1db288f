"""``agentguard doctor --server BARE_REPO``: prove the pre-receive guard works; name every gap.

The runner of the server's checks (``checks.server.SERVER_GROUPS``, in order): with no server
install record, the first check says so and nothing else runs. Nothing in the repository changes
(see ``checks.server``); ``--fix`` does not apply (run install --server again).
"""
import os

from . import probes
from .checks.server import SERVER_GROUPS, ServerContext
from ..setup.server import discover_bare


class ServerDoctor:
    def __init__(self, bare):
        self.info = discover_bare(bare)
        self.checks: list = []
        self.notes: list = []
        self.record: dict = {}

    def run(self, live=True):
        ctx = ServerContext(self.info, live and os.environ.get(probes.NESTED) != "1")
        self.checks, self.record = ctx.checks, ctx.record
        for _, checks in SERVER_GROUPS:
            for check in checks:
                check(ctx)
                if not ctx.installed:
                    return self.checks
        return self.checks

    def ok(self):
        return not any(c.status == "fail" for c in self.checks)

    def to_json(self):
        return {"ok": self.ok(), "repository": self.info.top, "checks": [c.to_json() for c in self.checks]}
