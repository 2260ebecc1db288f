"""What one after-check found and did: the data every adapter renders (never parsed back)."""
from ..textsafe import safe

RULE = "tool-outcome"
UNCHANGED, REPAIRED, UNREPAIRED = "unchanged", "repaired", "unrepaired"
# exit status of `check --after`: 0 nothing to undo, 3 undone, 1 something could not be undone
STATUS = {UNCHANGED: 0, REPAIRED: 3, UNREPAIRED: 1}


class Report:
    def __init__(self):
        self.undone = []  # [{"kind": "file"|"config"|"ref", "what": one clause, ...}]
        self.failed = []  # [one clause each]: what could not be undone
        self.rescued = []  # [rescue branch names]

    def add(self, kind, what, **fields):
        self.undone.append(dict(fields, kind=kind, what=safe(what, 300)))

    def fail(self, what):
        self.failed.append(safe(what, 300))

    @property
    def decision(self):
        if self.failed:
            return UNREPAIRED
        return REPAIRED if self.undone else UNCHANGED

    @property
    def status(self):
        return STATUS[self.decision]

    def reason(self):
        """One paragraph for the model: what was undone, what could not be, the right path."""
        if self.decision == UNCHANGED:
            return ""
        parts = []
        if self.undone:
            parts.append("agentguard: the last tool call changed the git guard, and agentguard undid it: %s"
                         % "; ".join(u["what"] for u in self.undone))
        if self.failed:
            parts.append("agentguard: the last tool call changed the git guard and agentguard could NOT undo: %s; "
                         "stop and ask the user to run `agentguard doctor --fix`" % "; ".join(self.failed))
        return ". ".join(parts) + " [rule: %s]. Instead: leave the hooks, the runtime, the adapters, git's config " \
            "and protected branches alone; work on a branch, push it and open a pull request." % RULE

    def to_json(self):
        return {"decision": self.decision, "rule": RULE if self.decision != UNCHANGED else "",
                "reason": self.reason(), "undone": self.undone, "failed": self.failed, "rescued": self.rescued}
