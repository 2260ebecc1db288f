"""``agentguard doctor``: establish by experiment that the protection works; name every gap.

Each check has a stable id and ends as pass, warn or fail, with the exact command that fixes a
problem. Without ``--fix`` nothing in the repository changes (the probes run in a sandbox).
"""
import json
import os
import re
import stat
from dataclasses import asdict, dataclass
from typing import Optional

from ..hooks import audit
from ..hooks.policy import Policy, PolicyError, load_snapshot
from ..hooks.textsafe import safe
from . import adapters
from . import manifest as manifest_mod
from . import probes
from .config import effective_policy
from .errors import AgentguardError
from .fsops import contained, read_regular, sha256_bytes
from .gitenv import git, git_ok
from .hookscripts import CHAINED_SUFFIX, HOOK_NAMES, is_ours
from .repo import discover, is_reftable, remote_head_branches
from .runtime_files import RUNTIME_DIR

MIN_GIT = (2, 28)
FIX_ALL = "agentguard doctor --fix"


@dataclass
class Check:
    id: str
    status: str  # pass | warn | fail
    summary: str
    fix: Optional[str] = None

    @property
    def group(self):
        return self.id.split(".", 1)[0]


class Doctor:
    def __init__(self, path):
        self.info = discover(path)
        self.checks = []
        self.record = manifest_mod.load(self.info.ag_home)
        self.policy = None

    def add(self, id_, status, summary, fix=None):
        self.checks.append(Check(id_, status, safe(summary, 600), fix))

    def run(self, live=True):
        """All checks; ``live=False`` skips the probes (for callers that run inside a hook)."""
        self.live = live and os.environ.get(probes.NESTED) != "1"
        self.checks = []
        self.record = manifest_mod.load(self.info.ag_home)
        self.check_git()
        self.check_install()
        self.check_hooks()
        self.check_runtime()
        self.check_policy()
        self.check_probes()
        self.check_bypasses()
        self.check_branches()
        self.check_adapters()
        self.check_audit()
        return self.checks

    # -- git --------------------------------------------------------------------------------
    def check_git(self):
        text = git(["--version"], cwd=self.info.top)
        match = re.search(r"(\d+)\.(\d+)", text)
        version = tuple(int(x) for x in match.groups()) if match else (0, 0)
        if version < MIN_GIT:
            self.add("git.version", "fail", "%s: reference-transaction needs git 2.28 or newer" % text,
                     "install git 2.28 or newer")
        else:
            self.add("git.version", "pass", text)
        if is_reftable(self.info):
            self.add("git.ref-storage", "warn", "reftable storage: branch renames and copies reach the hook only "
                     "as a HEAD line, so `git branch -m/-M/-c/-C` onto a protected name is not stopped by git",
                     "use the harness adapters, or the files backend (git refs migrate --ref-format=files)")
        else:
            self.add("git.ref-storage", "pass", "files ref storage")

    # -- installation -----------------------------------------------------------------------
    def check_install(self):
        if self.record is None:
            self.add("install.manifest", "fail", "agentguard is not installed in this repository "
                     "(no %s)" % self.info.display(os.path.join(self.info.ag_home, manifest_mod.NAME)),
                     "agentguard install")
            return
        if manifest_mod.interrupted(self.record):
            self.add("install.manifest", "fail", "an install was interrupted before it finished; some files may "
                     "still be the old ones", "agentguard install   # completes it")
        else:
            self.add("install.manifest", "pass", "installed by agentguard %s" % self.record.get("version", "?"))
        recorded = os.path.realpath(self.record.get("hooks_dir", ""))
        if recorded != self.info.hooks_dir:
            self.add("hooks.location", "fail", "git reads hooks from %s but agentguard installed them in %s"
                     % (self.info.display(self.info.hooks_dir), self.info.display(recorded)),
                     "agentguard install   # writes the hooks where git reads them now")
        else:
            self.add("hooks.location", "pass", "git reads hooks from %s" % self.info.display(self.info.hooks_dir))
        self.check_worktrees()

    def check_worktrees(self):
        out = git(["worktree", "list", "--porcelain"], cwd=self.info.top, check=False)
        bad = []
        for line in out.splitlines():
            if not line.startswith("worktree "):
                continue
            wt = line[len("worktree "):]
            if not os.path.isdir(wt) or os.path.realpath(wt) == self.info.top:
                continue
            hooks = git(["rev-parse", "--git-path", "hooks"], cwd=wt, check=False)
            if hooks and os.path.realpath(os.path.join(wt, hooks)) != self.info.hooks_dir:
                bad.append(wt)
        if bad:
            self.add("hooks.worktrees", "fail", "linked worktree %s reads hooks from elsewhere (a relative "
                     "core.hooksPath resolves per worktree)" % safe(bad[0], 200),
                     "agentguard install %s" % safe(bad[0], 200))
        else:
            self.add("hooks.worktrees", "pass", "every worktree reads the same hooks")

    def check_hooks(self):
        if self.record is None:
            return
        recorded = self.record.get("hooks", {})
        for hook in HOOK_NAMES:
            self._check_hook(hook, recorded.get(hook) or {})

    def _check_hook(self, hook, rec):
        path = os.path.join(self.info.hooks_dir, hook)
        cid = "hooks." + hook
        try:
            data = read_regular(path)
        except AgentguardError as exc:
            self.add(cid, "fail", str(exc), FIX_ALL)
            return
        where = self.info.display(path)
        if data is not None and not is_ours(data):
            legacy = read_regular(path + ".legacy") if os.path.lexists(path + ".legacy") else None
            if legacy is not None and is_ours(legacy) and b"pre-commit" in data[:2000]:
                data, path, where = legacy, path + ".legacy", where + ".legacy (run by the pre-commit framework)"
            else:
                self.add(cid, "fail", "%s is not agentguard's hook (something replaced it)" % where,
                         FIX_ALL + "   # chains the new hook and puts agentguard's back")
                return
        if data is None:
            self.add(cid, "fail", "%s is missing" % where, FIX_ALL)
        elif not os.access(path, os.X_OK):
            self.add(cid, "fail", "%s is not executable, so git ignores it" % where, FIX_ALL)
        elif rec.get("sha256") and sha256_bytes(data) != rec["sha256"]:
            self.add(cid, "fail", "%s differs from what agentguard install wrote" % where, FIX_ALL)
        else:
            self.add(cid, "pass", "%s is in place, executable and unmodified" % where)
        if rec.get("chained"):
            chained = os.path.join(self.info.hooks_dir, hook + CHAINED_SUFFIX)
            if not os.path.lexists(chained):
                self.add(cid + ".chained", "fail", "your own %s hook, chained at install, is gone from %s"
                         % (hook, self.info.display(chained)), "restore it there, or: agentguard install")
            else:
                runs = os.access(chained, os.X_OK)
                self.add(cid + ".chained", "pass" if runs else "warn",
                         "your own %s hook runs after agentguard's (%s)%s"
                         % (hook, self.info.display(chained), "" if runs else ", but it is not executable"))

    def check_runtime(self):
        if self.record is None:
            return
        home = os.path.join(self.info.ag_home, RUNTIME_DIR)
        problems = []
        for rel, digest in sorted((self.record.get("runtime") or {}).items()):
            try:
                data = read_regular(os.path.join(home, rel))
            except AgentguardError:
                data = None
            if data is None:
                problems.append("%s is missing" % rel)
            elif sha256_bytes(data) != digest:
                problems.append("%s was modified" % rel)
        python = self.record.get("python", "")
        if not (python and os.path.isfile(python) and os.access(python, os.X_OK)):
            problems.append("the Python the hooks run (%s) is gone" % safe(python, 200))
        if problems:
            self.add("runtime.files", "fail", "runtime in %s: %s" % (self.info.display(home), "; ".join(problems[:3])),
                     FIX_ALL)
        else:
            self.add("runtime.files", "pass", "runtime copy intact; hooks run %s -I -S -B" % safe(python, 200))

    # -- policy -----------------------------------------------------------------------------
    def check_policy(self):
        try:
            self.policy = load_snapshot(self.info.ag_home)
        except PolicyError as exc:
            self.add("policy.snapshot", "fail", str(exc), FIX_ALL if self.record else "agentguard install")
            self.policy = _recorded_policy(self.record)
        else:
            self.add("policy.snapshot", "pass", "protected: %s (from %s)"
                     % (", ".join(self.policy.branches), self.policy.source))
            rec = _recorded_policy(self.record)
            if rec is not None and rec.to_json() != self.policy.to_json():
                self.add("policy.recorded", "fail", "the policy snapshot differs from what install recorded "
                         "(edited by hand?)", FIX_ALL)
        try:
            wanted, _ = effective_policy(self.info, None, remote_head_branches(self.info))
        except AgentguardError as exc:
            self.add("policy.config", "fail", str(exc), "fix .agentguard.toml, then: agentguard install")
            return
        if self.policy is None:
            return
        if wanted.branches != self.policy.branches:
            self.add("policy.config", "warn", "drift: %s says protect %s, the snapshot in force protects %s"
                     % (wanted.source, ", ".join(wanted.branches), ", ".join(self.policy.branches)),
                     "agentguard install   # applies %s" % wanted.source)
        elif self.policy.source == "--protect":
            self.add("policy.config", "pass", "the snapshot comes from --protect at install")
        else:
            self.add("policy.config", "pass", "the snapshot matches %s" % wanted.source)

    # -- live probes -----------------------------------------------------------------------
    def check_probes(self):
        if not self.live:
            self.add("probe.skipped", "warn", "live probes skipped (the doctor runs inside a hook or a probe)",
                     "agentguard doctor")
            return
        policy = self.policy or Policy(["main", "master"])
        branch = probes.protected_probe_name(policy)
        if branch is None:
            self.add("probe.reference-transaction", "warn", "no branch name to probe the policy with")
            return
        harmless = "%s-%d" % (probes.PROBE_PREFIX, os.getpid())
        guard = probes.AuditGuard(os.path.join(self.info.ag_home, audit.LOG_NAME))
        box = probes.Sandbox(self.info)
        try:
            results = [("probe.reference-transaction", probes.reference_transaction(box, branch, True),
                        probes.reference_transaction(box, harmless, False))]
            for hook, fn in (("pre-push", probes.pre_push), ("pre-commit", probes.pre_commit)):
                path = os.path.join(self.info.hooks_dir, hook)
                if not os.access(path, os.X_OK):
                    results.append(("probe." + hook, probes.ProbeResult(False, "%s hook is not there" % hook), None))
                    continue
                results.append(("probe." + hook, fn(box, path, branch, True), fn(box, path, harmless, False)))
            markers = [m for m in (box.commit, "doctor") if m]
        finally:
            box.close()
        guard.restore(markers)
        for cid, refuse, accept in results:
            bad = [r for r in (refuse, accept) if r is not None and not r.ok]
            detail = "; ".join(r.detail for r in (refuse, accept) if r is not None)
            self.add(cid, "fail" if bad else "pass", detail, FIX_ALL if bad else None)

    # -- bypasses ----------------------------------------------------------------------------
    def check_bypasses(self):
        out = git(["config", "-z", "--get-regexp", r"^alias\."], cwd=self.info.top, check=False)
        risky = []
        for item in out.split("\0"):
            key, _, value = item.partition("\n")
            low = value.lower()
            if key and ("--no-verify" in low or "hookspath" in low or re.search(r"(^|\s)-n(\s|$)", low) and
                        "commit" in low):
                risky.append(key)
        if risky:
            self.add("bypass.aliases", "fail", "aliases that skip or redirect hooks: %s"
                     % ", ".join(safe(k, 60) for k in risky[:5]),
                     "git config --unset %s" % safe(risky[0], 60))
        else:
            self.add("bypass.aliases", "pass", "no alias skips or redirects hooks")
        self._check_env()
        scoped = git(["config", "--show-scope", "--get-all", "core.hooksPath"], cwd=self.info.top, check=False)
        foreign = [l for l in scoped.splitlines() if l.split("\t", 1)[0] in ("global", "system")]
        if foreign:
            self.add("bypass.hooks-path", "warn", "core.hooksPath is set in %s config (%s): every repository "
                     "depends on it" % (foreign[0].split("\t")[0], safe(foreign[0].split("\t", 1)[-1], 200)),
                     "git config --%s --unset core.hooksPath   # then: agentguard install"
                     % foreign[0].split("\t")[0])
        else:
            self.add("bypass.hooks-path", "pass", "no global or system core.hooksPath")
        hooks_cfg = git(["config", "--get-regexp", r"^hook\..*\.(command|event)$"], cwd=self.info.top, check=False)
        if hooks_cfg.strip():
            self.add("bypass.config-hooks", "warn", "hooks are also defined in config (git 2.54+ runs them in "
                     "addition): %s" % safe(hooks_cfg.splitlines()[0], 200), "git config --get-regexp '^hook\\.'")
        template = git(["config", "--get", "init.templateDir"], cwd=self.info.top, check=False)
        if template.strip():
            self.add("bypass.template-dir", "warn", "init.templateDir=%s: new clones get those hooks, not "
                     "agentguard's" % safe(template, 200), "agentguard install   # in each new clone")

    def _check_env(self):
        env = os.environ
        names = [k for k in env if k.startswith("GIT_CONFIG_") and k != "GIT_CONFIG_NOSYSTEM"]
        hooks = [k for k in names if "hookspath" in env[k].lower()]
        if hooks:
            self.add("bypass.env", "fail", "%s in this environment redirects git's hooks" % ", ".join(hooks[:3]),
                     "unset %s" % " ".join(hooks[:3]))
        elif env.get("HUSKY") == "0":
            self.add("bypass.env", "warn", "HUSKY=0 is set: husky's hooks are off (agentguard's still run)",
                     "unset HUSKY")
        elif names:
            self.add("bypass.env", "warn", "%s set in this environment" % ", ".join(names[:3]),
                     "unset %s" % " ".join(names[:3]))
        else:
            self.add("bypass.env", "pass", "no GIT_CONFIG_* or HUSKY=0 in this environment")

    # -- branches ----------------------------------------------------------------------------
    def check_branches(self):
        policy = self.policy
        if policy is None:
            return
        out = git(["for-each-ref", "--format=%(refname)%00%(objectname)", "refs/heads/", "refs/remotes/"],
                  cwd=self.info.top)
        local, tracking = {}, {}
        for line in out.splitlines():
            ref, _, oid = line.partition("\0")
            kind = policy.classify(ref)
            if kind and kind[0] == "local":
                local[kind[1]] = oid
            elif kind and kind[0] == "remote":
                tracking.setdefault(kind[2], []).append(oid)
        ahead, alone = [], []
        for branch, oid in sorted(local.items()):
            targets = tracking.get(branch, [])
            if not targets:
                alone.append(branch)
            elif not any(oid == t or git_ok(["merge-base", "--is-ancestor", oid, t], cwd=self.info.top)
                         for t in targets):
                ahead.append(branch)
        if ahead:
            b = safe(ahead[0], 80)
            self.add("branches.ahead", "fail", "protected branch %s holds commits its remote counterpart does not "
                     "have (left by `git branch -C`, a hand-written ref or an earlier bypass)"
                     % ", ".join(safe(a, 80) for a in ahead),
                     "git branch <new-branch> %s && git switch -C %s origin/%s   # keep the work, reset %s" % (b, b, b, b))
        else:
            self.add("branches.ahead", "pass", "no protected branch holds local-only commits")
        if alone and self._has_remotes():
            self.add("branches.counterpart", "warn", "protected branch %s has no remote-tracking counterpart, so "
                     "it cannot move at all" % ", ".join(safe(a, 80) for a in alone), "git fetch")

    def _has_remotes(self):
        return bool(git(["remote"], cwd=self.info.top, check=False).strip())

    # -- harness adapters --------------------------------------------------------------------
    def check_adapters(self):
        if self.record is None:
            return
        recorded = self.record.get("adapters") or {}
        for harness in self.record.get("harnesses") or []:
            problems = []
            for rel, _, _ in adapters.FILES[harness]:
                try:
                    data = read_regular(contained(self.info.top, rel))
                except AgentguardError as exc:
                    problems.append(str(exc))
                    continue
                if data is None:
                    problems.append("%s is missing" % rel)
                elif rel in recorded and sha256_bytes(data) != recorded[rel]:
                    problems.append("%s was modified" % rel)
            if harness == "gptme":
                toml = read_regular(os.path.join(self.info.top, adapters.GPTME_TOML))
                if toml is None or not adapters.gptme_enabled(toml):
                    problems.append("gptme.toml does not enable the plugin ([plugins] paths and enabled)")
                script = os.path.join(self.info.top, ".gptme", "verify-completion.sh")
                if os.path.exists(script) and not os.access(script, os.X_OK):
                    problems.append(".gptme/verify-completion.sh is not executable (gptme skips it)")
            if problems:
                self.add("adapters." + harness, "fail", "; ".join(problems[:3]), FIX_ALL)
            else:
                self.add("adapters." + harness, "pass", "%s adapter in place and unmodified" % harness)
            status, summary, fix_ = getattr(self, "_enabled_" + harness)()
            self.add("adapters.%s.enabled" % harness, status, summary, fix_)

    def _enabled_pi(self):
        settings = read_regular(os.path.join(self.info.top, ".pi", "settings.json"))
        if settings is not None:
            try:
                data = json.loads(settings.decode("utf-8"))
            except (UnicodeDecodeError, ValueError):
                data = {}
            listed = data.get("extensions") if isinstance(data, dict) else None
            if isinstance(listed, list) and any(str(x).lstrip("!").startswith("agentguard") and str(x).startswith("!")
                                                for x in listed):
                return ("fail", ".pi/settings.json switches the agentguard extension off",
                        "remove \"!agentguard.ts\" from extensions in .pi/settings.json")
        return ("pass", "pi loads .pi/extensions/agentguard.ts when started in this directory (pi 1.x: only "
                "once the project is trusted: pi --approve, or defaultProjectTrust: \"always\")", None)

    def _enabled_hermes(self):
        home = os.environ.get("HERMES_HOME") or os.path.expanduser("~/.hermes")
        env_on = os.environ.get("HERMES_ENABLE_PROJECT_PLUGINS") == "1"
        dotenv = _read_text(os.path.join(home, ".env"))
        env_on = env_on or bool(re.search(r"^\s*(export\s+)?HERMES_ENABLE_PROJECT_PLUGINS\s*=\s*['\"]?1", dotenv, re.M))
        config = _read_text(os.path.join(home, "config.yaml"))
        listed = bool(re.search(r"enabled:[^\n]*agentguard|enabled:\s*\n(\s+-\s*\S+\s*\n)*\s+-\s*['\"]?agentguard", config))
        if env_on and listed:
            return ("pass", "Hermes loads the agentguard plugin (project plugins on, listed in plugins.enabled)", None)
        missing = []
        if not env_on:
            missing.append("HERMES_ENABLE_PROJECT_PLUGINS=1 (environment or %s/.env)" % home)
        if not listed:
            missing.append("agentguard in plugins.enabled of %s/config.yaml" % home)
        return ("warn", "Hermes will not load the plugin without %s" % " and ".join(missing),
                "echo HERMES_ENABLE_PROJECT_PLUGINS=1 >> %s/.env; add 'plugins: {enabled: [agentguard]}' to "
                "%s/config.yaml" % (home, home))

    def _enabled_gptme(self):
        if os.environ.get("GPTME_VERIFY_COMPLETION"):
            return ("warn", "GPTME_VERIFY_COMPLETION is set, so gptme runs it instead of "
                    ".gptme/verify-completion.sh", "unset GPTME_VERIFY_COMPLETION")
        return ("pass", "gptme loads the plugin from gptme.toml and verifies completion with "
                ".gptme/verify-completion.sh", None)

    # -- audit -------------------------------------------------------------------------------
    def check_audit(self):
        entries = audit.read(self.info.ag_home)
        if not entries:
            self.add("audit.recent", "pass", "no refusals recorded")
            return
        by_hook = {}
        for e in entries:
            by_hook[str(e.get("hook"))] = by_hook.get(str(e.get("hook")), 0) + 1
        last = ["%s %s %s (%s)" % (safe(e.get("time"), 30), safe(e.get("hook"), 30), safe(e.get("rule"), 40),
                                   safe(e.get("command"), 80)) for e in entries[-3:]]
        self.add("audit.recent", "pass", "%d refusals (%s); last: %s"
                 % (len(entries), ", ".join("%s %d" % (safe(k, 30), v) for k, v in sorted(by_hook.items())),
                    " | ".join(last)))

    def ok(self):
        return not any(c.status == "fail" for c in self.checks)

    def to_json(self):
        return {"ok": self.ok(), "checks": [asdict(c) for c in self.checks]}


def _read_text(path):
    try:
        with open(path, "rb") as fh:
            return fh.read(1 << 20).decode("utf-8", "replace")
    except OSError:
        return ""


def _recorded_policy(record):
    try:
        return Policy.from_json(record["policy"]) if record else None
    except (KeyError, PolicyError):
        return None


FIXABLE = ("install.manifest", "hooks.", "runtime.", "policy.snapshot", "policy.recorded", "probe.", "adapters.")


def fix(doctor):
    """Repair what install owns, with the policy install recorded (never the work tree's word)."""
    from .install import apply_install, plan_install
    if not any(c.status != "pass" and c.id.startswith(FIXABLE) and not c.id.endswith((".chained", ".enabled"))
               for c in doctor.checks):
        return []
    harnesses = (doctor.record or {}).get("harnesses")
    plan = plan_install(doctor.info.top, policy=_recorded_policy(doctor.record), harnesses=harnesses)
    apply_install(plan)
    return plan
