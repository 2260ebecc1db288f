"""`agentguard check --after` (issue #16): whatever a tool call did to the guard, by whatever route the
analyser did not see, the after-check undoes it, and nothing is lost.

Each tampering below is a real shell command run with `sh -c` in the repository, the way an agent's
tool runs it: first `.git/agentguard/check -- <command>` (any decision: it records the snapshot), then
the command for real, a proof that it really did the damage (so the test can fail), then
`.git/agentguard/check --after --json`, which must undo it: files byte for byte, config, protected
branches back where they were, the commits a moved branch held on the rescue branch it names, the
remote untouched, an audit line. Ordinary work must come out "unchanged", with nothing rescued and
nothing logged. The `test_hole_*` tests show what the after-check cannot do (SECURITY.md)."""
import base64
import io
import json
import os
import shutil
import subprocess
import tarfile

import pytest

from helpers import need, snapshot, upstream_advance

CHECK = os.path.join(".git", "agentguard", "check")
NODE = shutil.which("node")
# (the files the guard is made of, or that can switch it off: hashed before and after)
GUARD_ROOTS = (".git/hooks", ".git/agentguard/runtime", ".git/agentguard/check", ".git/agentguard/policy.json",
               ".git/agentguard/manifest.json", ".pi", ".hermes", ".gptme", "gptme.toml", ".claude")
SKIP_HOOKS_OFF = "printf '[core]\\n\\thooksPath = /dev/null\\n'"
HOOKS_OFF = "git -c core.hooksPath=/dev/null"
SYSTEM_CONFIG = "/etc/gitconfig"


@pytest.fixture(autouse=True)
def system_config_untouched():
    """The runtime drops every GIT_* variable, GIT_CONFIG_NOSYSTEM too, so its git reads this machine's
    system config: an after-check that took an entry there for the call's doing would rewrite a file
    outside the test. Put it back and fail the test if that happens."""
    try:
        with open(SYSTEM_CONFIG, "rb") as fh:
            before = fh.read()
    except OSError:
        before = None
    yield
    try:
        with open(SYSTEM_CONFIG, "rb") as fh:
            now = fh.read()
    except OSError:
        now = None
    if now != before:
        if before is not None:
            with open(SYSTEM_CONFIG, "wb") as fh:
                fh.write(before)
        pytest.fail("%s was changed by the test (put back)" % SYSTEM_CONFIG)


# -- driving the runtime copy, as the adapters do -------------------------------------------------
def runtime(repo, *args, cwd=None):
    return subprocess.run([os.path.join(repo.path, CHECK), *args], cwd=cwd or repo.path, env=repo.env,
                          capture_output=True, text=True, timeout=60)


def pre_check(repo, command):
    """The check an adapter runs before the tool call: its decision does not matter here, only that it
    records the snapshot."""
    proc = runtime(repo, "--json", "--", command)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    return json.loads(proc.stdout)["decision"]


def after(repo):
    """(exit status, the JSON report) of `check --after --json`."""
    proc = runtime(repo, "--after", "--json")
    assert proc.stdout.strip(), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def audit(repo):
    path = os.path.join(repo.path, ".git", "agentguard", "audit.jsonl")
    if not os.path.exists(path):
        return []
    with open(path) as fh:
        return [json.loads(line) for line in fh if line.strip()]


def guard_files(repo):
    """{root: snapshot} of every file the guard is made of (hashes and modes)."""
    out = {}
    for rel in GUARD_ROOTS:
        path = os.path.join(repo.path, rel)
        if os.path.isdir(path):
            out[rel] = snapshot(path)
        elif os.path.lexists(path):
            with open(path, "rb") as fh:
                out[rel] = (fh.read(), os.lstat(path).st_mode)
    return out


def config(repo, ignore=()):
    """Every config entry git reads here, at every level, with its file (order aside: a put-back entry
    may come back at the end of its file)."""
    out = repo.run("config", "--list", "--show-origin", "--show-scope", check=False).stdout.splitlines()
    return sorted(line for line in out if not any(line.split("\t")[-1].startswith(p) for p in ignore))


def doctor_fails(repo):
    """The doctor's failing checks (ids), and whether it says ok."""
    proc = repo.agentguard("doctor", "--json", check=False)
    data = json.loads(proc.stdout)
    return [c["id"] for c in data["checks"] if c["status"] == "fail"], data["ok"]


def is_ancestor(repo, a, b):
    return repo.run("merge-base", "--is-ancestor", a, b, check=False).returncode == 0


def probe(repo, kind, target):
    """The current state of what a row tampers with: a file's bytes and mode, the effective config
    entries whose key matches a regex (includes followed), a ref's oid."""
    if kind == "file":
        path = os.path.join(repo.path, target)
        if not os.path.lexists(path):
            return None
        with open(path, "rb") as fh:
            return fh.read(), os.lstat(path).st_mode
    if kind == "config":
        return repo.run("config", "--get-regexp", target, check=False).stdout
    return repo.rev(target)


# -- the tampering table ----------------------------------------------------------------------------
def _tar(repo, bare, tmp_path):
    """A tar archive holding a `pre-push` that lets everything through."""
    path = tmp_path / "hooks.tar"
    data = b"#!/bin/sh\nexit 0\n"
    with tarfile.open(str(path), "w") as tar:
        info = tarfile.TarInfo("pre-push")
        info.size, info.mode = len(data), 0o755
        tar.addfile(info, io.BytesIO(data))
    return {"tar": str(path)}


def _on_feat(repo, bare, tmp_path):
    repo.run("checkout", "-q", "feat")
    return {}


def _packed(repo, bare, tmp_path):
    repo.run("pack-refs", "--all")
    assert not os.path.exists(os.path.join(repo.path, ".git", "refs", "heads", "main"))
    return {}


def _fake_remote(repo, bare, tmp_path):
    """A bare repository like the remote whose main has one more commit."""
    fake = tmp_path / "fake.git"
    subprocess.run(["git", "clone", "-q", "--bare", bare.path, str(fake)], env=repo.env, check=True)
    clone = tmp_path / "fake-clone"
    subprocess.run(["git", "clone", "-q", str(fake), str(clone)], env=repo.env, check=True)
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "forged"], cwd=str(clone), env=repo.env, check=True)
    subprocess.run(["git", "push", "-q", "origin", "main"], cwd=str(clone), env=repo.env, check=True)
    return {"fake": str(fake)}


def _claude(repo, bare, tmp_path):
    repo.agentguard("install", "--harness", "claude")
    assert os.path.exists(os.path.join(repo.path, ".claude", "settings.local.json"))
    return {}


B64 = base64.b64encode(b"printf '#!/bin/sh\\nexit 0\\n' > .git/hooks/pre-commit\n").decode()

# id, command (str.format: {tmp}, {main}, {feat} and what the setup returns), setup, the probe
# (kind, target) that must change and come back, the undone entry (kind, part of its path/key/ref),
# config keys the after-check rightly leaves (a remote that protected branches do not follow)
TAMPERING = [
    ("rm-hooks", "rm .git/hooks/pre-commit .git/hooks/reference-transaction .git/hooks/pre-push", None,
     ("file", ".git/hooks/pre-commit"), ("file", ".git/hooks/reference-transaction")),
    ("rm-hooks-dir", "rm -rf .git/hooks", None, ("file", ".git/hooks/pre-push"), ("file", ".git/hooks/pre-push")),
    ("truncate-hook", ": > .git/hooks/reference-transaction", None, ("file", ".git/hooks/reference-transaction"),
     ("file", ".git/hooks/reference-transaction")),
    ("chmod-x-hooks", "chmod -x .git/hooks/pre-commit .git/hooks/reference-transaction .git/hooks/pre-push", None,
     ("file", ".git/hooks/reference-transaction"), ("file", ".git/hooks/pre-commit")),
    ("replace-hook", "printf '#!/bin/sh\\nexit 0\\n' > .git/hooks/pre-push", None, ("file", ".git/hooks/pre-push"),
     ("file", ".git/hooks/pre-push")),
    ("hook-symlink", "ln -sf /bin/true .git/hooks/pre-commit", None, ("file", ".git/hooks/pre-commit"),
     ("file", ".git/hooks/pre-commit")),
    ("tar-over-hooks", "tar -xf {tar} -C .git/hooks", _tar, ("file", ".git/hooks/pre-push"),
     ("file", ".git/hooks/pre-push")),
    ("awk", "awk 'BEGIN {{ print \"#!/bin/sh\" > \".git/hooks/pre-commit\"; print \"exit 0\" > "
     "\".git/hooks/pre-commit\" }}'", None, ("file", ".git/hooks/pre-commit"), ("file", ".git/hooks/pre-commit")),
    ("perl", "perl -i -pe 's/^/# / if $. > 1' .git/hooks/reference-transaction", None,
     ("file", ".git/hooks/reference-transaction"), ("file", ".git/hooks/reference-transaction")),
    ("node", "node -e 'require(\"fs\").writeFileSync(\".git/hooks/pre-push\", \"#!/bin/sh\\nexit 0\\n\")'", None,
     ("file", ".git/hooks/pre-push"), ("file", ".git/hooks/pre-push")),
    ("base64-script", "echo %s | base64 -d | sh" % B64, None, ("file", ".git/hooks/pre-commit"),
     ("file", ".git/hooks/pre-commit")),
    ("runtime-edit", "printf '\\nALLOW = True\\n' >> .git/agentguard/runtime/hooks/rules.py", None,
     ("file", ".git/agentguard/runtime/hooks/rules.py"), ("file", "runtime/hooks/rules.py")),
    # config written as text (`git config` is blocked by the analyser; the outcome must catch the raw write)
    ("hooks-path", SKIP_HOOKS_OFF + " >> .git/config", None, ("config", r"^core\.hookspath$"),
     ("config", "core.hookspath")),
    ("fsmonitor", "printf '[core]\\n\\tfsmonitor = /bin/true\\n' >> .git/config", None,
     ("config", r"^core\.fsmonitor$"), ("config", "core.fsmonitor")),
    ("include", SKIP_HOOKS_OFF + " > .git/off.cfg && printf '[include]\\n\\tpath = off.cfg\\n' >> .git/config", None,
     ("config", r"^core\.hookspath$"), ("config", "include.path")),
    ("include-if", SKIP_HOOKS_OFF + " > .git/off.cfg && printf '[includeIf \"gitdir:/\"]\\n\\tpath = off.cfg\\n' >> "
     ".git/config", None, ("config", r"^core\.hookspath$"), ("config", "includeif.gitdir:/.path")),
    ("alias-no-verify", "printf '[alias]\\n\\tci = commit --no-verify\\n' >> .git/config", None,
     ("config", r"^alias\.ci$"), ("config", "alias.ci")),
    ("push-guard-removed", "sed -i '/pushinsteadof/Id' .git/config", None, ("config", "pushinsteadof"),
     ("config", "pushinsteadof")),
    ("pushurl", "printf '[remote \"origin\"]\\n\\tpushurl = {tmp}/elsewhere.git\\n' >> .git/config", None,
     ("config", r"^remote\.origin\.pushurl$"), ("config", "remote.origin.pushurl")),
    ("upstream-of-main", "sed -i 's|merge = refs/heads/main|merge = refs/heads/feat|' .git/config", None,
     ("config", r"^branch\.main\.merge$"), ("config", "branch.main.merge")),
    ("global-hooks-path", SKIP_HOOKS_OFF + " >> \"$HOME/.gitconfig\"", None, ("config", r"^core\.hookspath$"),
     ("config", "core.hookspath")),
    ("global-fsmonitor", "printf '[core]\\n\\tfsmonitor = /bin/true\\n' >> \"$HOME/.gitconfig\"", None,
     ("config", r"^core\.fsmonitor$"), ("config", "core.fsmonitor")),
    ("global-include", SKIP_HOOKS_OFF + " > \"$HOME/off.cfg\" && printf '[include]\\n\\tpath = ~/off.cfg\\n' >> "
     "\"$HOME/.gitconfig\"", None, ("config", r"^core\.hookspath$"), ("config", "include.path")),
    ("global-alias-no-verify", "printf '[alias]\\n\\tci = commit --no-verify\\n' >> \"$HOME/.gitconfig\"", None,
     ("config", r"^alias\.ci$"), ("config", "alias.ci")),
    # protected refs moved with hooks off or by hand
    ("branch-copy-onto-main", HOOKS_OFF + " branch -C feat main", _on_feat, ("ref", "refs/heads/main"),
     ("ref", "refs/heads/main")),
    ("delete-main", HOOKS_OFF + " update-ref -d refs/heads/main", _on_feat, ("ref", "refs/heads/main"),
     ("ref", "refs/heads/main")),
    ("ref-file-by-hand", "printf '%s\\n' {feat} > .git/refs/heads/main", None, ("ref", "refs/heads/main"),
     ("ref", "refs/heads/main")),
    ("packed-refs-by-hand", "sed -i 's/^{main} refs\\/heads\\/main$/{feat} refs\\/heads\\/main/' .git/packed-refs "
     "&& rm -f .git/refs/heads/main", _packed, ("ref", "refs/heads/main"), ("ref", "refs/heads/main")),
    ("made-up-remote-url", "git remote set-url origin {fake} && " + HOOKS_OFF + " fetch -q origin && "
     + HOOKS_OFF + " merge -q --ff-only origin/main", _fake_remote, ("ref", "refs/heads/main"),
     ("config", "remote.origin.url")),
    ("made-up-tracking-ref", "git remote add fake {fake} && " + HOOKS_OFF + " fetch -q fake && "
     "git rev-parse fake/main > .git/refs/remotes/origin/main && " + HOOKS_OFF + " merge -q --ff-only origin/main",
     _fake_remote, ("ref", "refs/remotes/origin/main"), ("ref", "refs/remotes/origin/main")),
    # adapters and harness settings
    ("rm-adapter", "rm .pi/extensions/agentguard.ts", None, ("file", ".pi/extensions/agentguard.ts"),
     ("file", ".pi/extensions/agentguard.ts")),
    ("rm-claude-settings", "rm .claude/settings.local.json", _claude, ("file", ".claude/settings.local.json"),
     ("file", ".claude/settings.local.json")),
    ("claude-disable-all-hooks", "printf '{{\"disableAllHooks\": true}}\\n' > .claude/settings.json", _claude,
     ("file", ".claude/settings.json"), ("file", ".claude/settings.json")),
]
# a remote added by the call that protected branches do not follow is left (like `git remote add upstream`),
# and the doctor names it until install routes its pushes through the push guard
LEFT_ALONE = {"made-up-tracking-ref": ("remote.fake.",)}
DOCTOR_NAMES: dict = {}  # a remote added by the call pushes through the guard at once (no push.remotes)


def _rows():
    return [pytest.param(*row[1:], id=row[0]) for row in TAMPERING]


@pytest.mark.parametrize("command,setup,target,expect", _rows())
def test_tampering_is_undone(guarded, tmp_path, request, command, setup, target, expect):
    """The tool call's damage is undone whole: files byte for byte, config, the protected branch (its
    commits kept on the rescue branch the report names), nothing else moved, an audit line, and a
    second after-check finds nothing more."""
    repo, bare = guarded
    row = request.node.callspec.id
    if row == "node":
        need("node", NODE)
    fmt = {"tmp": str(tmp_path), "main": repo.rev("main"), "feat": repo.rev("feat")}
    fmt.update(setup(repo, bare, tmp_path) if setup else {})
    command = command.format(**fmt)
    ignore = LEFT_ALONE.get(row, ())
    files, conf, branches = guard_files(repo), config(repo, ignore), repo.branches()
    main, feat, remote, tracking = repo.rev("main"), repo.rev("feat"), bare.rev("main"), repo.rev("origin/main")
    was = probe(repo, *target)
    logged = len(audit(repo))

    pre_check(repo, command)
    proc = repo.sh(command)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert probe(repo, *target) != was, "the command did no damage: this test would prove nothing"
    moved_to = repo.rev("main")

    rc, report = after(repo)
    assert (rc, report["decision"], report["rule"], report["failed"]) == (3, "repaired", "tool-outcome", []), report
    kind, part = expect
    field = {"file": "path", "config": "key", "ref": "ref"}[kind]
    assert any(u["kind"] == kind and part.lower() in u[field].lower() for u in report["undone"]), report["undone"]
    assert "agentguard" in report["reason"] and "[rule: tool-outcome]" in report["reason"]

    assert probe(repo, *target) == was
    assert guard_files(repo) == files, "the guard's files are not byte for byte what they were"
    assert config(repo, ignore) == conf
    assert repo.rev("main") == main and repo.rev("origin/main") == tracking
    assert bare.rev("main") == remote, "the remote's main must never move"
    assert repo.rev("feat") == feat
    if moved_to not in (main, None):
        assert len(report["rescued"]) == 1 and report["rescued"][0].startswith("agentguard/rescued/main-")
        assert is_ancestor(repo, moved_to, report["rescued"][0]), "the commits main held are lost"
    else:
        assert report["rescued"] == []
    assert sorted(repo.branches()) == sorted(branches + report["rescued"])
    lines = audit(repo)[logged:]
    assert [(line["hook"], line["rule"]) for line in lines] == [("check --after", "tool-outcome")]
    fails, ok = doctor_fails(repo)
    assert fails == DOCTOR_NAMES.get(row, []) and ok == (not fails), fails

    rc, report = after(repo)
    assert (rc, report["decision"], report["undone"], report["rescued"]) == (0, "unchanged", [], []), report


def test_through_the_cli(guarded):
    """`agentguard check --after` (the package, not the runtime copy) does the same, in words without
    --json: what was undone and the right way instead."""
    repo, _ = guarded
    hook = os.path.join(repo.path, ".git", "hooks", "pre-commit")
    with open(hook, "rb") as fh:
        data = fh.read()
    repo.agentguard("check", "--", "rm .git/hooks/pre-commit", check=False)
    os.unlink(hook)
    proc = repo.agentguard("check", "--after", check=False)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "restored .git/hooks/pre-commit" in proc.stdout and "[rule: tool-outcome]" in proc.stdout
    with open(hook, "rb") as fh:
        assert fh.read() == data
    assert os.access(hook, os.X_OK)
    proc = repo.agentguard("check", "--after", "--json", check=False)
    assert proc.returncode == 0 and json.loads(proc.stdout)["decision"] == "unchanged"


# -- ordinary work: nothing to undo -------------------------------------------------------------------
def _advance(repo, bare, tmp_path):
    upstream_advance(bare, repo.env, tmp_path)
    return {}


ORDINARY = [
    ("test-script", "printf 'echo ok\\n' > run_tests.sh && sh run_tests.sh", None, []),
    ("build", "mkdir -p build && printf 'obj\\n' > build/a.o && cat build/a.o > build/app", None, []),
    ("feature-branch-push", "git switch -c f2 && git commit --allow-empty -m x && git push -u origin f2", None,
     ["f2"]),
    ("fetch", "git fetch", _advance, []),
    ("pull-ff-only", "git pull --ff-only", _advance, []),
    ("remote-add", "git remote add upstream {tmp}/upstream.git", None, []),
    ("alias", "git config alias.st status", None, []),
]


@pytest.mark.parametrize("command,setup,new_branches", [pytest.param(*r[1:], id=r[0]) for r in ORDINARY])
def test_ordinary_work_is_unchanged(guarded, tmp_path, command, setup, new_branches):
    """Work that leaves the guard alone comes out "unchanged": exit 0, nothing rescued, no branch but
    the command's own, no audit line, and whatever the command did stays done."""
    repo, bare = guarded
    fmt = {"tmp": str(tmp_path)}
    fmt.update(setup(repo, bare, tmp_path) if setup else {})
    command = command.format(**fmt)
    branches, logged, files = repo.branches(), len(audit(repo)), guard_files(repo)
    pre_check(repo, command)
    proc = repo.sh(command)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    done = (repo.rev("main"), repo.rev("origin/main"), config(repo))
    rc, report = after(repo)
    assert (rc, report["decision"], report["undone"], report["failed"], report["rescued"]) == \
        (0, "unchanged", [], [], []), report
    assert sorted(repo.branches()) == sorted(branches + new_branches)
    assert len(audit(repo)) == logged
    assert guard_files(repo) == files
    assert (repo.rev("main"), repo.rev("origin/main"), config(repo)) == done, "the after-check undid ordinary work"
    if setup is _advance:  # the remote's main moved: the fetch (and the pull) really brought it here
        assert repo.rev("origin/main") == bare.rev("main")
        if command.startswith("git pull"):
            assert repo.rev("main") == bare.rev("main"), "the pull did not happen: this test would prove nothing"


# -- without a snapshot ------------------------------------------------------------------------------
def _drop_snapshots(repo):
    outcome = os.path.join(repo.path, ".git", "agentguard", "outcome")
    gone = [name for name in os.listdir(outcome) if name.endswith(".json")]
    assert gone
    for name in gone:
        os.unlink(os.path.join(outcome, name))


def test_without_a_snapshot_a_deleted_hook_comes_back_from_the_manifest(guarded):
    """With the snapshot gone, the install's manifest is the baseline: a hook install wrote and the call
    deleted comes back, byte for byte with its mode."""
    repo, _ = guarded
    files = guard_files(repo)
    pre_check(repo, "rm .git/hooks/pre-commit")
    _drop_snapshots(repo)
    os.unlink(os.path.join(repo.path, ".git", "hooks", "pre-commit"))
    rc, report = after(repo)
    assert (rc, report["decision"]) == (3, "repaired"), report
    assert any(u["kind"] == "file" and u["path"].endswith(os.path.join("hooks", "pre-commit"))
               for u in report["undone"])
    assert guard_files(repo) == files
    assert after(repo)[0] == 0


def test_without_a_snapshot_main_holding_local_work_is_rescued(guarded):
    """With the snapshot gone there is no record of where main stood: main holding a commit its remote
    does not have goes back to origin/main, and the commit is kept on the rescue branch."""
    repo, bare = guarded
    origin = repo.rev("origin/main")
    pre_check(repo, "git commit --allow-empty -m sneaky")
    _drop_snapshots(repo)
    repo.run("-c", "core.hooksPath=/dev/null", "commit", "-q", "--allow-empty", "-m", "sneaky")
    sneaky = repo.rev("main")
    assert sneaky != origin
    rc, report = after(repo)
    assert (rc, report["decision"]) == (3, "repaired"), report
    assert repo.rev("main") == origin and bare.rev("main") == origin
    [rescued] = report["rescued"]
    assert repo.rev(rescued) == sneaky
    assert repo.run("symbolic-ref", "HEAD").stdout.strip() == "refs/heads/" + rescued, \
        "the work tree was on main: it goes on with the rescue branch"
    assert repo.rev("feat")
    assert after(repo)[0] == 0


# -- could not be undone ----------------------------------------------------------------------------------
def test_what_cannot_be_undone_is_unrepaired_and_the_damage_is_not_the_new_normal(guarded):
    """The call switches hooks off in .git/config and leaves git's own lock on it, so no `git config`
    can write it: the after-check says "unrepaired" (exit 1) and what it could not undo; the next
    pre-check does not take the damage for the new normal, so once the lock is gone the after-check
    undoes it."""
    repo, _ = guarded
    conf = config(repo)
    command = SKIP_HOOKS_OFF + " >> .git/config && : > .git/config.lock"
    pre_check(repo, command)
    assert repo.sh(command).returncode == 0
    assert repo.run("config", "core.hooksPath").stdout.strip() == "/dev/null"
    logged = len(audit(repo))
    rc, report = after(repo)
    assert (rc, report["decision"], report["rule"]) == (1, "unrepaired", "tool-outcome"), report
    assert any("core.hookspath" in f.lower() for f in report["failed"]), report["failed"]
    assert "agentguard doctor --fix" in report["reason"]
    assert len(audit(repo)) == logged + 1
    pre_check(repo, "ls")  # the next tool call: must keep the older snapshot
    os.unlink(os.path.join(repo.path, ".git", "config.lock"))
    rc, report = after(repo)
    assert (rc, report["decision"]) == (3, "repaired"), report
    assert config(repo) == conf
    assert after(repo)[0] == 0


# -- tamperings aimed at the after-check itself ------------------------------------------------------
@pytest.mark.parametrize("policy_edit", ["printf '{{}}' > .git/agentguard/policy.json",
                                         "sed -i 's/\"main\"/\"release\"/' .git/agentguard/policy.json"],
                         ids=["emptied", "protects-another-branch"])
def test_a_tampered_policy_snapshot_does_not_hide_a_moved_main(guarded, policy_edit):
    """The call rewrites the policy snapshot and moves main by hand in one go: one after-check must
    restore the policy, put main back and keep the commit on a rescue branch."""
    repo, bare = guarded
    main, feat = repo.rev("main"), repo.rev("feat")
    command = policy_edit.format() + " && printf '%s\\n' " + feat + " > .git/refs/heads/main"
    pre_check(repo, command)
    assert repo.sh(command).returncode == 0
    assert repo.rev("main") == feat
    rc, report = after(repo)
    assert (rc, report["decision"]) == (3, "repaired"), report
    assert repo.rev("main") == main
    assert len(report["rescued"]) == 1 and repo.rev(report["rescued"][0]) == feat


def test_a_call_that_records_its_own_snapshot_is_still_undone(guarded):
    """The call deletes a hook, then runs the pre-check itself: that check compares with the last
    known-good snapshot and puts the hook back (#29), and the after-check tells it."""
    repo, _ = guarded
    files = guard_files(repo)
    command = "rm .git/hooks/pre-commit && .git/agentguard/check -- ls"
    pre_check(repo, command)
    assert repo.sh(command).returncode == 0
    rc, report = after(repo)
    assert (rc, report["decision"]) == (3, "repaired"), report
    assert [u["what"] for e in report["earlier"] for u in e["undone"]] == \
        ["restored .git/hooks/pre-commit (it was deleted)"], report
    assert guard_files(repo) == files


def test_the_guards_home_deleted_is_not_unchanged(guarded):
    """Nothing can be restored when the store is gone with it, but it must not pass for "unchanged"."""
    repo, _ = guarded
    command = "rm -rf .git/agentguard"
    pre_check(repo, command)
    assert repo.sh(command).returncode == 0
    assert os.path.exists(os.path.join(repo.path, ".git", "hooks", "pre-commit"))
    proc = repo.agentguard("check", "--after", "--json", check=False)
    assert proc.returncode == 1 and json.loads(proc.stdout)["decision"] == "unrepaired", proc.stdout


def test_an_install_under_another_config_view_keeps_the_users_config(guarded, tmp_path):
    """The user re-runs install (here through the harness, as a tool call) with GIT_CONFIG_GLOBAL set:
    the after-check must not take the user's own ~/.gitconfig entries for the call's doing."""
    repo, _ = guarded
    gitconfig = os.path.join(repo.env["HOME"], ".gitconfig")
    with open(gitconfig, "a") as fh:
        fh.write("[core]\n\teditor = vim\n[credential]\n\thelper = store\n")
    with open(gitconfig, "rb") as fh:
        mine = fh.read()
    empty = tmp_path / "empty.gitconfig"
    empty.write_text("")
    # without GIT_CONFIG_NOSYSTEM (the runtime drops it too): only ~/.gitconfig differs between the views
    env = {k: v for k, v in repo.env.items() if k != "GIT_CONFIG_NOSYSTEM"}
    env["GIT_CONFIG_GLOBAL"] = str(empty)
    pre_check(repo, "agentguard install --harness claude")
    repo.agentguard("install", "--harness", "claude", env=env)
    rc, report = after(repo)
    with open(gitconfig, "rb") as fh:
        assert fh.read() == mine, "the user's own config entries were removed"
    assert (rc, report["decision"]) == (0, "unchanged"), report


# -- holes: what the after-check cannot do (SECURITY.md) --------------------------------------------
def test_hole_a_push_that_left_the_machine_stays_on_the_remote(make_repo, tmp_path):
    """Without the push guard in git's transport (`install --no-push-guard`) a push with hooks off
    reaches the remote's main (served by `git daemon`: not on this machine's paths). The after-check runs
    on this machine: it cannot take the commit back from the remote, and since the remote now advertises
    it, origin/main and main standing on it are believed, so it reports "unchanged". Open: anything a push
    already delivered. Closed by: the push guard (install's default) and a server-side branch protection
    rule, the only thing that binds the remote itself. (A remote reached by a local path is put back:
    tests/test_local_remote.py.)"""
    import gitservers
    repo, bare = make_repo(install=False)
    with gitservers.git_daemon(os.path.dirname(bare.path), tmp_path / "daemon") as server:
        repo.run("remote", "set-url", "origin", server.url(os.path.basename(bare.path)))
        repo.agentguard("install", "--no-push-guard")
        remote = bare.rev("main")
        command = "{0} commit -q --allow-empty -m shipped && {0} push -q --no-verify origin HEAD:main".format(HOOKS_OFF)
        pre_check(repo, command)
        proc = repo.sh(command)
        assert proc.returncode == 0, proc.stderr
        shipped = repo.rev("main")
        assert bare.rev("main") == shipped != remote, "the push did not land: this hole test proves nothing"
        rc, report = after(repo)
        assert (rc, report["decision"], report["rescued"]) == (0, "unchanged", []), report
        assert bare.rev("main") == shipped, "the remote still has the commit"
        assert repo.rev("main") == shipped == repo.rev("origin/main")


def test_hole_an_effect_outside_the_repository_is_not_seen(guarded, tmp_path):
    """The after-check compares this repository's guard, its git config and the harness files: a file
    written elsewhere, or a commit on main in another (unguarded) repository, is "unchanged". Open:
    every effect outside those. Closed by: nothing here; a sandbox that confines the agent's writes."""
    repo, _ = guarded
    other = tmp_path / "other"
    subprocess.run(["git", "init", "-q", "-b", "main", str(other)], env=repo.env, check=True)
    outside = tmp_path / "outside.txt"
    command = "printf 'x\\n' > %s && git -C %s commit -q --allow-empty -m elsewhere" % (outside, other)
    pre_check(repo, command)
    assert repo.sh(command).returncode == 0
    assert outside.exists()
    assert subprocess.run(["git", "-C", str(other), "rev-parse", "main"], env=repo.env,
                          capture_output=True).returncode == 0
    rc, report = after(repo)
    assert (rc, report["decision"]) == (0, "unchanged"), report


def test_a_file_install_wrote_is_put_back_even_when_it_was_damaged_between_calls(guarded):
    """A file install wrote whole (a hook, the runtime, an adapter) is recorded as install wrote it,
    whatever it holds when the pre-check runs: damage made between two tool calls is undone too."""
    repo, _ = guarded
    files = guard_files(repo)
    pre_check(repo, "ls")
    assert after(repo)[0] == 0
    os.unlink(os.path.join(repo.path, ".git", "hooks", "pre-commit"))  # by someone else, between calls
    pre_check(repo, "ls")
    rc, report = after(repo)
    assert (rc, report["decision"]) == (3, "repaired"), report
    assert guard_files(repo) == files


def test_a_change_between_two_tool_calls_is_undone_by_the_next_pre_check(guarded):
    """Another process sets core.hooksPath after one after-check and before the next pre-check (#29: it
    was recorded as the state before the call, the new normal). The pre-check compares with the last
    known-good snapshot, undoes it and says since which call; the call's after-check tells the model;
    the doctor passes. (tests/test_outliving.py drives the jobs that do this for real.)"""
    repo, _ = guarded
    pre_check(repo, "ls")
    assert after(repo)[0] == 0
    repo.run("config", "core.hooksPath", "/dev/null")  # by someone else, between calls
    assert repo.run("config", "core.hooksPath").stdout.strip() == "/dev/null"
    pre_check(repo, "ls")
    assert repo.run("config", "core.hooksPath", check=False).stdout.strip() != "/dev/null"
    assert repo.sh("ls").returncode == 0
    rc, report = after(repo)
    assert (rc, report["decision"]) == (3, "repaired"), report
    assert [e["call"] for e in report["earlier"]] == ["ls"] and "since the tool call `ls`" in report["reason"]
    assert "core.hookspath=/dev/null" in report["reason"].lower(), report["reason"]
    assert doctor_fails(repo)[1]
    assert after(repo)[1]["decision"] == "unchanged"


def test_another_home_is_never_taken_for_the_calls_doing(guarded, tmp_path):
    """The snapshot was taken with one HOME, the after-check runs with another that has its own
    harness files: neither home's files are "added" or "deleted" by the call; both stay as they are."""
    repo, _ = guarded
    other = tmp_path / "other-home"
    (other / ".codex").mkdir(parents=True)
    config = other / ".codex" / "config.toml"
    config.write_text("model = \"mine\"\n")
    (tmp_path / "home" / ".claude").mkdir(parents=True, exist_ok=True)
    settings = tmp_path / "home" / ".claude" / "settings.json"
    settings.write_text("{}\n")
    pre_check(repo, "ls")
    proc = subprocess.run([os.path.join(repo.path, ".git", "agentguard", "check"), "--after", "--json"],
                          cwd=repo.path, env=dict(repo.env, HOME=str(other)), capture_output=True, text=True)
    assert (proc.returncode, json.loads(proc.stdout)["decision"]) == (0, "unchanged"), proc.stdout
    assert config.read_text() == "model = \"mine\"\n" and settings.read_text() == "{}\n"


def test_a_work_tree_named_through_a_symlink_keeps_installs_record(guarded, tmp_path):
    """A harness may hand over its cwd through a symlink (macOS: /tmp, /var). Install records real
    paths, so the after-check must too: a hook damaged between two tool calls is still install's
    file, not the new normal, and comes back."""
    repo, bare = guarded
    link = tmp_path / "via-link"
    os.symlink(repo.path, str(link))
    hook = os.path.join(repo.path, ".git", "hooks", "pre-commit")
    with open(hook, "rb") as fh:
        original = fh.read()
    with open(hook, "ab") as fh:
        fh.write(b"\nexit 0\n")  # damaged between two tool calls
    assert runtime(repo, "--json", "--cwd", str(link), "--", "ls", cwd=str(link)).returncode == 0
    proc = runtime(repo, "--after", "--json", "--cwd", str(link), cwd=str(link))
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert json.loads(proc.stdout)["decision"] == "repaired"
    with open(hook, "rb") as fh:
        assert fh.read() == original


# -- agentguard's own writes --------------------------------------------------------------------------
def test_a_worktree_install_during_a_call_is_not_undone_but_a_change_made_before_it_is(make_repo, tmp_path):
    """An agent's `git worktree add` runs install for the new worktree (post-checkout), which writes the
    shared manifest and Codex's user-level trust entries: agentguard's own writes, adopted by every work
    tree's snapshot. A change the same call made to such a file first is still undone."""
    repo, _ = make_repo()
    repo.agentguard("install", "--harness", "all")
    codex = os.path.join(repo.env["HOME"], ".codex", "config.toml")
    pre_check(repo, "git worktree add ../wt -b wt")
    repo.run("worktree", "add", "-q", str(tmp_path / "wt"), "-b", "wt")
    rc, report = after(repo)
    assert (rc, report["decision"]) == (0, "unchanged"), report
    assert str(tmp_path / "wt") in open(codex).read()  # the new worktree's trust entries stayed
    manifest = json.load(open(os.path.join(repo.path, ".git", "agentguard", "manifest.json")))
    assert "wt" in manifest.get("worktrees", {}), sorted(manifest)
    # the same, after the call first wrote a setting of its own into the file install then merges into
    pre_check(repo, "echo ... >> ~/.codex/config.toml && git worktree add ../wt2 -b wt2")
    before = open(codex).read()
    with open(codex, "a") as fh:
        fh.write("\n[agent]\nmine = true\n")
    repo.run("worktree", "add", "-q", str(tmp_path / "wt2"), "-b", "wt2")
    assert "mine = true" in open(codex).read()
    rc, report = after(repo)
    assert rc == 3 and any(u.get("path") == codex for u in report["undone"]), report
    assert open(codex).read() == before
