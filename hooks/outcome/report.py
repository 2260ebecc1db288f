"""What one after-check found and did: the data every adapter renders (never parsed back)."""
import time

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
        self.earlier = []  # [{"call", "at", "undone", "failed", "rescued"}]: what pre-checks undid since a call
        self.running = []  # [{"pid", "command"}]: processes the call left running in the repository (not killed)

    def add(self, kind, what, **fields):
        self.undone.append(dict(fields, kind=kind, what=safe(what, 300)))

    def fail(self, what):
        self.failed.append(safe(what, 300))

    @property
    def decision(self):
        if self.failed or any(e.get("failed") for e in self.earlier):
            return UNREPAIRED
        return REPAIRED if self.undone or self.earlier else UNCHANGED

    def audit_rows(self):
        return [(u.get("ref") or u.get("key") or u.get("path") or "", u.get("old", ""), u.get("new", ""))
                for u in self.undone]

    def earlier_entry(self, call):
        """This (pre-check's) report as one entry of a later report's ``earlier``; ``call``: the snapshot's
        record of the tool call the change happened after (``baseline.call_record``)."""
        at = call.get("at")
        return {"call": safe(call.get("what") or "", 200),
                "at": time.strftime("%H:%M:%S", time.localtime(at)) if isinstance(at, (int, float)) else "",
                "undone": self.undone, "failed": self.failed, "rescued": self.rescued,
                "earlier": self.earlier, "running": self.running}

    def fold(self, earlier):
        """Take in the repairs pre-checks made since the last after-check (``baseline.take_kept``)."""
        for entry in earlier:
            undone = [u for u in entry.get("undone") or [] if isinstance(u, dict) and isinstance(u.get("what"), str)]
            failed = [f for f in entry.get("failed") or [] if isinstance(f, str)]
            rescued = [r for r in entry.get("rescued") or [] if isinstance(r, str)]
            self.earlier.append({"call": safe(entry.get("call") or "", 200), "at": safe(entry.get("at") or "", 8),
                                 "undone": undone, "failed": [safe(f, 300) for f in failed], "rescued": rescued})
            self.rescued.extend(safe(r, 200) for r in rescued)

    @property
    def status(self):
        return STATUS[self.decision]

    def reason(self):
        """One paragraph for the model: what was undone, what could not be, the right path."""
        if self.decision == UNCHANGED:
            return ""
        parts = []
        for e in self.earlier:
            since = "since the tool call `%s`%s (likely a process it left running)" % (
                e["call"] or "?", " at " + e["at"] if e["at"] else "")
            if e["undone"]:
                parts.append("agentguard: %s, the git guard was changed, and agentguard undid it: %s (a change the "
                             "user made on purpose is kept by the user running `agentguard install` in their own "
                             "terminal)" % (since, "; ".join(u["what"] for u in e["undone"])))
            if e["failed"]:
                parts.append("agentguard: %s, the git guard was changed and agentguard could NOT undo: %s; stop and "
                             "ask the user to run `agentguard doctor --fix`" % (since, "; ".join(e["failed"])))
        if self.undone:
            parts.append("agentguard: the last tool call changed the git guard, and agentguard undid it: %s"
                         % "; ".join(u["what"] for u in self.undone))
        if self.failed:
            parts.append("agentguard: the last tool call changed the git guard and agentguard could NOT undo: %s; "
                         "stop and ask the user to run `agentguard doctor --fix`" % "; ".join(self.failed))
        if self.running:
            parts.append("still running in this repository, started by the call: %s (stop what you started and do "
                         "not need)" % "; ".join("pid %d `%s`" % (p["pid"], p["command"]) for p in self.running))
        return ". ".join(parts) + " [rule: %s]. Instead: leave the hooks, the runtime, the adapters, git's config " \
            "and protected branches alone; work on a branch, push it and open a pull request." % RULE

    def to_json(self):
        return {"decision": self.decision, "rule": RULE if self.decision != UNCHANGED else "",
                "reason": self.reason(), "undone": self.undone, "failed": self.failed, "rescued": self.rescued,
                "earlier": self.earlier, "running": self.running}
