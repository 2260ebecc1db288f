"""The doctor's push group (listed in ``checks.groups``): the push guard in git's transport,
installed as written, found by git (no ``git-remote-agw`` on PATH shadowing the alias), every
remote's pushes routed through it (git's own answer), and, live, a push through it refused
for a protected branch and accepted for a harmless one, to a throwaway repository that has a
branch: nothing is sent anywhere, nothing moves."""
import os
import shutil

from ....hooks.pushguard.coverage import covered, push_urls
from ....hooks.pushguard.coverage import PREFIX, SCHEME
from ....hooks.textsafe import safe
from .. import probes
from ...setup import pushguard
from ...fsops import read_regular
from .base import FIX_ALL, REINSTALL
from ...gitaccess.gitenv import clean_env, git_about


def check_push_guard(ctx):
    record = ctx.record or {}
    if not record:
        return
    if record.get("transport") is False:
        ctx.add("push.guard", "warn", "the push guard in git's transport is off (installed with --no-push-guard): "
                "`git push --no-verify` onto a protected branch meets only the harness adapters",
                "agentguard install --push-guard", repair=REINSTALL)
        return
    problems = []
    python = record.get("python") or ""
    tools = record.get("tools") if isinstance(record.get("tools"), dict) else {}
    if read_regular(os.path.join(ctx.info.ag_home, pushguard.LAUNCHER_NAME)) != \
            pushguard.launcher(python, tools.get("git"), ctx.policy, tools.get("cat")):
        problems.append("%s is missing or changed" % ctx.info.display(os.path.join(ctx.info.ag_home,
                                                                                    pushguard.LAUNCHER_NAME)))
    alias = ctx.git(["config", "--get", pushguard.ALIAS_KEY])
    if alias != pushguard.ALIAS:
        problems.append("git config %s is %s" % (pushguard.ALIAS_KEY, "not set" if not alias else
                                                  "%r, not agentguard's" % safe(alias, 120)))
    dashed = "git-remote-" + SCHEME
    shadow = [p for p in (shutil.which(dashed), shutil.which(dashed, path=git_about(["--exec-path"]))) if p]
    if shadow:
        problems.append("%s runs instead of agentguard's helper (git prefers a program to an alias)"
                        % safe(shadow[0], 200))
    if problems:
        ctx.add("push.guard", "fail", "; ".join(problems), FIX_ALL, repair=REINSTALL)
    else:
        ctx.add("push.guard", "pass", "git hands pushes to %s:: URLs to agentguard's helper" % SCHEME)
    # pushguard.coverage, its config question from the one listing (no remote there: git is not asked)
    names = pushguard.remote_urls(ctx.info, ctx.git)
    pushes = (push_urls(ctx.info.top) or {}) if names else {}
    loose = {name: pushes.get(name, []) for name in names if not covered(pushes.get(name, []))}
    if loose:
        pushurls = sorted(n for n, (_, push) in pushguard.remote_urls(ctx.info, ctx.git).items() if push and n in loose)
        why = (" (%s: git applies no pushInsteadOf to a pushurl; install puts agw:: in front of it)"
               % ", ".join("remote.%s.pushurl" % safe(n, 60) for n in pushurls)) if pushurls else ""
        ctx.add("push.remotes", "fail", "pushes to %s go around the push guard (%s)%s"
                % (", ".join(safe(n, 60) for n in sorted(loose)),
                   "; ".join("%s -> %s" % (safe(n, 60), safe(", ".join(u) or "no URL", 200))
                             for n, u in sorted(loose.items())), why), FIX_ALL, repair=REINSTALL)
    else:
        ctx.add("push.remotes", "pass", "every remote pushes through the guard (git remote -v: %s...)" % PREFIX)


def probe_push_guard(ctx, box, branch, harmless):
    """(refuse, accept) ProbeResults: pushes through the helper to a throwaway bare repository."""
    target = os.path.join(box.tmp, "push-probe.git")
    rc, _, err = probes.run(["git", "init", "-q", "--bare", target], box.info.top, clean_env())
    if rc != 0:
        return probes.ProbeResult(False, "could not make a throwaway repository to push to"), None
    commit = box.probe_commit()
    if commit is None:
        return probes.ProbeResult(False, "could not make a probe commit"), None
    # a remote with a branch: to one with none, the first push of a protected branch is allowed
    seed = ["git", "-c", "url.%s.pushInsteadOf=%s" % (target, target), "push", "-q", "--no-verify", target,
            "%s:refs/heads/%s-base" % (commit, harmless)]
    if probes.run(seed, box.info.top, box.env)[0] != 0:
        return probes.ProbeResult(False, "could not push a branch to a throwaway repository"), None
    results = []
    # real pushes, not --dry-run: git sends a dry run's commands nowhere, so the guard, which judges
    # them on git's own connection, never sees one (the throwaway repository is all that can move)
    for name, refuse in ((branch, True), (harmless, False)):
        argv = ["git", "-c", "url.%s%s.pushInsteadOf=%s" % (PREFIX, target, target), "push",
                "--no-verify", "--porcelain", target, "%s:refs/heads/%s" % (commit, name)]
        rc, _, err = probes.run(argv, box.info.top, box.env)
        results.append(probes.judge(rc, err, refuse, "git push --no-verify through the push guard to %s (a "
                                     "throwaway repository)" % name))
    return results
