"""Harness adapters: each adapter install wrote is in place and unmodified, and its harness will load
it (``ENABLED``: per harness, what that harness itself reads); in every other worktree too (what
post-checkout writes there on ``git worktree add``; ``doctor --fix`` writes them again)."""
import json
import os
import re

from ...hooks.textsafe import safe
from .. import adapters, harnesstrust, manifest, settingsplan, worktrees
from .. import harnesses as harness_mod
from ..errors import AgentguardError
from ..fsops import read_contained, read_regular, sha256_bytes
from .base import FIX_ALL, REINSTALL, Repair


def check_adapters(ctx):
    """Each adapter install wrote is in place and unmodified, and its harness will load it; in every
    other worktree too (what post-checkout writes there on `git worktree add`)."""
    if ctx.record is None:
        return
    own = worktrees.view(ctx.record, worktrees.key_of(ctx.info))
    skipped = own.get("skipped") if isinstance(own.get("skipped"), dict) else {}
    for harness in own.get("harnesses") or []:
        if harness in skipped:
            said, how = settingsplan.left_alone(harness, safe(str(skipped[harness]), 200))
            ctx.add("adapters." + harness, "warn", said, how, repair=REINSTALL)
            continue
        problems = _harness_problems(ctx.info.top, harness, own)
        if problems:
            ctx.add("adapters." + harness, "fail", "; ".join(problems[:3]), FIX_ALL, repair=REINSTALL)
        else:
            ctx.add("adapters." + harness, "pass", "%s adapter in place and unmodified" % harness)
        status, summary, fix_ = ENABLED[harness](ctx)
        if status == "warn" and not harness_mod.in_use_signs(harness, ctx.info.top):
            # a harness nobody runs here (pi, Hermes, gptme: a plain install writes their adapters for
            # everyone): what it would need is said, not warned about
            status, fix_ = "pass", None
            summary = "%s is not in use here (no user configuration, not on PATH); once it is: %s" % (harness, summary)
        ctx.add("adapters.%s.enabled" % harness, status, summary, fix_)
    others = [(k, i) for k, i in ctx.worktrees()[0].items() if i.top != ctx.info.top]
    if not others:
        return
    missing = worktrees_missing_adapters(ctx.record, others)
    if missing:
        top, problems = missing[0]
        more = " (and %d more worktree%s)" % (len(missing) - 1, "" if len(missing) == 2 else "s") \
            if len(missing) > 1 else ""
        ctx.add("adapters.worktrees", "fail", "worktree %s: %s%s" % (safe(top, 200), "; ".join(problems[:2]), more),
                "agentguard install %s   # or: agentguard doctor --fix" % safe(top, 200), repair=WORKTREES)
    else:
        ctx.add("adapters.worktrees", "pass", "the adapters are in place in the other worktree%s (%s)"
                % ("" if len(others) == 1 else "s", ", ".join(safe(i.top, 120) for _, i in others[:3])))


def worktrees_missing_adapters(record, places):
    """[(worktree top, problems)] of the worktrees (``places``: [(key, RepoInfo)]) whose adapters,
    as its record (or, with none yet, the main worktree's harnesses) has them, are not all in place."""
    out = []
    for key, where in places:
        rec = worktrees.view(record, key)
        problems = [p for harness in rec.get("harnesses") or []
                    for p in _harness_problems(where.top, harness, rec)
                    if harness not in (rec.get("skipped") or {})]
        if problems:
            out.append((where.top, problems))
    return out


def _harness_problems(top, harness, rec):
    """What is wrong with ``harness``'s adapter in the work tree ``top`` ([] when nothing); ``rec``:
    that worktree's view of the install record."""
    problems: list = []
    recorded = rec.get("adapters") or {}
    for rel, _, _ in adapters.FILES[harness]:
        found = read_contained(top, rel, problems)
        if found is None:
            continue
        data = found[1]
        if data is None:
            problems.append("%s is missing" % rel)
        elif rel in recorded and sha256_bytes(data) != recorded[rel]:
            problems.append("%s was modified" % rel)
    if harness in harness_mod.SETTINGS:
        rel = settingsplan.recorded_rel(rec, harness)
        path, data = read_contained(top, rel, problems) or (None, None)
        missing = harness_mod.missing_events(data, harness)
        if missing:
            problems.append("%s does not hold agentguard's %s hook as install wrote it"
                            % (rel, "/".join(missing)))
        elif harness == "codex":
            untrusted = harnesstrust.codex_hook_untrusted(path, data)
            if untrusted:
                problems.append(untrusted)
    if harness == "gptme":
        toml = read_regular(os.path.join(top, adapters.GPTME_TOML))
        if toml is None or not adapters.gptme_enabled(toml):
            problems.append("gptme.toml does not enable the plugin ([plugins] paths and enabled)")
        script = os.path.join(top, ".gptme", "verify-completion.sh")
        if os.path.exists(script) and not os.access(script, os.X_OK):
            problems.append(".gptme/verify-completion.sh is not executable (gptme skips it)")
    return problems


def _enabled_pi(ctx):
    settings = read_regular(os.path.join(ctx.info.top, ".pi", "settings.json"))
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


def _enabled_hermes(ctx):
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


def _enabled_gptme(ctx):
    if os.environ.get("GPTME_VERIFY_COMPLETION"):
        return ("warn", "GPTME_VERIFY_COMPLETION is set, so gptme runs it instead of "
                ".gptme/verify-completion.sh", "unset GPTME_VERIFY_COMPLETION")
    return ("pass", "gptme loads the plugin from gptme.toml and verifies completion with "
            ".gptme/verify-completion.sh", None)


ENABLED = dict({"pi": _enabled_pi, "hermes": _enabled_hermes, "gptme": _enabled_gptme}, **harnesstrust.ENABLED)




def _read_text(path):
    try:
        with open(path, "rb") as fh:
            return fh.read(1 << 20).decode("utf-8", "replace")
    except OSError:
        return ""


def _repair_worktrees(doctor):
    """Write the adapters again in every other worktree missing them (as post-checkout would)."""
    from ..install import apply_install, plan_install
    record = manifest.load(doctor.info.ag_home) or {}
    found, _ = worktrees.live(doctor.info)
    others = [(k, i) for k, i in found.items() if i.top != doctor.info.top]
    for top, _ in worktrees_missing_adapters(record, others):
        key = next(k for k, i in others if i.top == top)
        try:
            apply_install(plan_install(top, policy=manifest.recorded_policy(record),
                                       harnesses=worktrees.view(record, key).get("harnesses")))
            doctor.notes.append("wrote the harness adapters again in the worktree %s" % safe(top, 200))
        except (AgentguardError, OSError) as exc:
            doctor.notes.append("could not repair the worktree %s: %s (agentguard install %s)"
                                % (safe(top, 200), safe(str(exc), 200), safe(top, 200)))


WORKTREES = Repair("worktrees", 1, _repair_worktrees)
