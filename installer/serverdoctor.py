"""``agentguard doctor --server BARE_REPO``: prove the pre-receive guard works; name every gap.

Checks: the install record, where git reads hooks (core.hooksPath), the hook (present, executable:
git skips a hook that is not, with only a warning to the pusher; unmodified), the chained hook, the
runtime copy, the server policy, and live probes: the installed hook run as receive-pack runs it
(in the repository, the probe's objects in a temporary object directory as in receive-pack's
quarantine) on made-up input. Nothing in the repository changes: no ref is written, the probes'
objects are thrown away and their lines are cut from the audit log again.
"""
import os
from dataclasses import asdict

from ..hooks import audit
from ..hooks.gitmodel.refnames import ZERO_OID
from ..hooks.policy import PolicyError
from ..hooks.server import identity, serverpolicy
from ..hooks.textsafe import safe
from . import manifest as manifest_mod
from . import probes
from .doctor import Check, runtime_check
from .errors import AgentguardError
from .fsops import read_regular, sha256_bytes
from .hookscripts import CHAINED_SUFFIX, is_ours
from .server import HOOK, discover_bare, fix_command, hook_file, is_dispatcher


class ServerDoctor:
    def __init__(self, bare):
        self.info = discover_bare(bare)
        self.checks = []
        self.notes: list = []
        self.record: dict = {}

    def add(self, id_, status, summary, fix=None):
        self.checks.append(Check(id_, status, safe(summary, 600), fix))

    def run(self, live=True):
        self.checks = []
        self.fix = fix_command(self.info)
        self.record = manifest_mod.load(self.info.ag_home) or {}
        if not self.record or not self.record.get("server"):
            self.add("install.manifest", "fail", "agentguard's server guard is not installed here (no record in %s)"
                     % self.info.display(os.path.join(self.info.ag_home, manifest_mod.NAME)), self.fix)
            return self.checks
        if manifest_mod.interrupted(self.record):
            self.add("install.manifest", "fail", "the last install --server was interrupted", self.fix)
        else:
            self.add("install.manifest", "pass", "installed by agentguard %s" % safe(self.record.get("version"), 40))
        hook_path = self._check_location(hook_file(self.record))
        runs = self._check_hook(hook_path, (self.record.get("hooks") or {}).get(HOOK) or {})
        self._check_runtime()
        server = self._check_policy()
        if not live or os.environ.get(probes.NESTED) == "1":
            self.add("probe.skipped", "warn", "live probes skipped", "agentguard doctor --server %s" % self.info.top)
        elif server is not None:
            self._probe(hook_path, runs, server)
        return self.checks

    def _check_location(self, hook):
        recorded = self.record.get("hooks_dir")
        try:
            now = discover_bare(self.info.top).hooks_dir
        except AgentguardError as exc:
            self.add("hooks.location", "fail", str(exc), self.fix)
            return os.path.join(recorded or self.info.hooks_dir, hook)
        if recorded and now != recorded:
            self.add("hooks.location", "fail", "git reads hooks from %s (core.hooksPath), not from %s where "
                     "agentguard's hook is: pushes skip it" % (self.info.display(now), self.info.display(recorded)),
                     "git -C %s config --unset core.hooksPath   # or: %s" % (self.info.top, self.fix))
        else:
            self.add("hooks.location", "pass", "git reads hooks from %s" % self.info.display(now))
        return os.path.join(now, hook)

    def _check_dispatcher(self, path):
        """For a hook in pre-receive.d: the dispatcher that runs it is still there."""
        hooks_dir = os.path.dirname(os.path.dirname(path))
        where = self.info.display(os.path.join(hooks_dir, HOOK))
        if is_dispatcher(hooks_dir) and os.access(os.path.join(hooks_dir, HOOK), os.X_OK):
            self.add("hooks.dispatcher", "pass", "%s runs the programs in %s.d, agentguard's among them"
                     % (where, HOOK))
            return True
        self.add("hooks.dispatcher", "fail", "%s no longer runs the programs in %s.d: agentguard's hook there is not "
                 "run" % (where, HOOK), "let Gitea/Forgejo resynchronise its hooks (site administration), then: "
                 + self.fix)
        return False

    def _check_hook(self, path, rec):
        """True when git runs the hook (present, agentguard's, executable)."""
        cid = "hooks.pre-receive"
        if os.path.basename(os.path.dirname(path)).endswith(".d") and not self._check_dispatcher(path):
            return False
        where = self.info.display(path)
        try:
            data = read_regular(path)
        except AgentguardError as exc:
            self.add(cid, "fail", str(exc), self.fix)
            return False
        runs = False
        if data is None:
            self.add(cid, "fail", "%s is missing: pushes are not checked" % where, self.fix)
        elif not is_ours(data):
            self.add(cid, "fail", "%s is not agentguard's hook (something replaced it)" % where,
                     self.fix + "   # chains the new hook and puts agentguard's back")
        elif not os.access(path, os.X_OK):
            self.add(cid, "fail", "%s is not executable: git skips it (with only a hint to the pusher) and "
                     "every push lands" % where, "chmod +x %s   # or: %s" % (path, self.fix))
        elif rec.get("sha256") and sha256_bytes(data) != rec["sha256"]:
            self.add(cid, "fail", "%s differs from what agentguard install wrote" % where, self.fix)
            runs = True
        else:
            self.add(cid, "pass", "%s is in place, executable and unmodified" % where)
            runs = True
        if rec.get("chained"):
            chained = path + CHAINED_SUFFIX
            if not os.path.lexists(chained):
                self.add(cid + ".chained", "fail", "your own pre-receive hook, chained at install, is gone from %s"
                         % self.info.display(chained), "restore it there, or: %s" % self.fix)
            else:
                ok = os.access(chained, os.X_OK)
                self.add(cid + ".chained", "pass" if ok else "warn", "your own pre-receive hook runs after "
                         "agentguard's (%s)%s" % (self.info.display(chained),
                                                  "" if ok else ", but it is not executable"))
        return runs

    def _check_runtime(self):
        runtime_check(self.info, self.record, self.add, self.fix)

    def _check_policy(self):
        try:
            server = serverpolicy.load(self.info.ag_home)
        except PolicyError as exc:
            self.add("policy.snapshot", "fail", str(exc), self.fix)
            return None
        if server.to_json() != self.record.get("server_policy"):
            self.add("policy.snapshot", "fail", "the server policy differs from what install recorded (edited by "
                     "hand?)", self.fix)
        else:
            self.add("policy.snapshot", "pass", "protected: %s (%s); allowed pushers: %s"
                     % (", ".join(server.policy.branches), server.policy.source, ", ".join(server.pushers) or "nobody"))
        return server

    def _probe(self, hook_path, runs, server):
        branch = probes.protected_probe_name(server.policy)
        if branch is None:
            self.add("probe.pre-receive", "warn", "no branch name to probe the policy with")
            return
        guard = probes.AuditGuard(os.path.join(self.info.ag_home, audit.LOG_NAME))
        box = probes.Sandbox(self.info)
        for var in identity.SOURCES:
            box.env.pop(var, None)
        results = []
        try:
            commit = box.probe_commit()
            tip = self._tip(box, branch)
            if commit is None:
                results.append(probes.ProbeResult(False, "could not make a probe commit"))
            elif not runs:
                results.append(probes.ProbeResult(False, "git would not run the hook, so a push to %s by anyone "
                                                   "lands" % branch))
            else:
                zero = ZERO_OID if len(commit) == 40 else "0" * len(commit)
                update = "%s %s refs/heads/%s\n" % (tip or zero, commit, branch)
                results.append(self._run(box, hook_path, update, box.env, "server-push-protected",
                                         "an update of %s by no known pusher" % branch))
                harmless = "%s %s refs/heads/%s-%d\n" % (zero, commit, probes.PROBE_PREFIX, os.getpid())
                results.append(self._run(box, hook_path, harmless, box.env, None, "a new feature branch"))
                if server.pushers and tip:
                    env = dict(box.env, AGENTGUARD_PUSHER=server.pushers[0])
                    child = self._child(box, tip)
                    if child:
                        results.append(self._run(box, hook_path, "%s %s refs/heads/%s\n" % (tip, child, branch), env,
                                                 None, "a fast-forward of %s by %s" % (branch, server.pushers[0])))
                    results.append(self._run(box, hook_path, update, env, "server-rewrite-protected",
                                             "a rewrite of %s by %s" % (branch, server.pushers[0])))
            markers = [m for m in (box.commit,) if m]
        finally:
            box.close()
        guard.restore(markers)
        bad = [r for r in results if not r.ok]
        self.add("probe.pre-receive", "fail" if bad else "pass", "; ".join(r.detail for r in results),
                 self.fix if bad else None)

    def _run(self, box, hook_path, stdin, env, rule, what):
        path, note = (hook_path, "") if rule else probes.own_copy(box, hook_path)
        rc, _, err = probes.run([path], self.info.top, env, stdin.encode())
        result = probes.judge(rc, err, bool(rule), what + note)
        if result.ok and rule and ("[rule: %s]" % rule).encode() not in err:
            return probes.ProbeResult(False, "%s: refused, but not by rule %s" % (what, rule))
        return result

    def _tip(self, box, branch):
        rc, out, _ = probes.run(["git", "rev-parse", "-q", "--verify", "refs/heads/%s^{commit}" % branch],
                                 self.info.top, box.env)
        return out.decode().strip() if rc == 0 else None

    def _child(self, box, tip):
        """A commit on top of ``tip``, in the probe's temporary object directory."""
        rc, out, _ = probes.run(["git", "commit-tree", tip + "^{tree}", "-p", tip, "-m", "agentguard doctor probe"],
                                 self.info.top, box.env)
        return out.decode().strip() if rc == 0 else None

    def ok(self):
        return not any(c.status == "fail" for c in self.checks)

    def to_json(self):
        return {"ok": self.ok(), "repository": self.info.top, "checks": [asdict(c) for c in self.checks]}
