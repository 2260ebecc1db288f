"""Every linked worktree gets and keeps the harness adapters (post-checkout on `git worktree add`),
the doctor checks every worktree, and uninstall takes the adapters out of every one, byte for byte."""
import json
import os
import re
import stat
import subprocess
import time

from helpers import Git, agentguard, assert_refused_and_kept, refused, state, tree_snapshot, doctor_report

from agentguard.installer.harness import adapters, settingsfile
from agentguard.installer.harness import gptme

ZERO = "0" * 40
SETTINGS = settingsfile.settings_rels()  # every place install may merge a hook into
WRITTEN = tuple(settingsfile.settings_rel(h) for h in settingsfile.SETTINGS)  # where a plain install does
USER_POST_CHECKOUT = b"""#!/bin/sh
# the user's own post-checkout hook (husky and lefthook use this one too)
printf '%s\\n' "args:$*" >> "$(git rev-parse --git-common-dir)/post-checkout.log"
"""


def failures(checks):
    return {cid: c["summary"] for cid, c in checks.items() if c["status"] == "fail"}


def installed_files(top):
    """{relative path: (mode, bytes)} of every adapter and settings file install may write in ``top``."""
    out = {}
    for rel in adapters.ALL_PATHS + (gptme.GPTME_TOML,) + SETTINGS:
        path = os.path.join(top, rel)
        if os.path.lexists(path):
            out[rel] = (stat.S_IMODE(os.lstat(path).st_mode), open(path, "rb").read())
    return out


def work_files(top):
    """The work tree without its .git (a file in a linked worktree, the git dir in the main one)."""
    return {rel: v for rel, v in tree_snapshot(top).items() if rel != ".git" and not rel.startswith(".git" + os.sep)}


def add_worktree(repo, path, *args):
    return repo.run("worktree", "add", str(path), *args, check=False)


def manifest(repo):
    return json.load(open(os.path.join(repo.path, ".git", "agentguard", "manifest.json")))


def test_worktree_add_gets_the_adapters_install_writes(make_repo, tmp_path):
    repo, _ = make_repo(install=False)
    repo.agentguard("install", "--harness", "all")
    main_files = installed_files(repo.path)
    assert set(main_files) >= set(adapters.ALL_PATHS) | set(WRITTEN) | {gptme.GPTME_TOML}
    proc = add_worktree(repo, tmp_path / "wt1", "-b", "agent1")
    assert proc.returncode == 0, proc.stderr
    assert "agentguard" not in proc.stderr  # silent when it works
    wt1 = os.path.realpath(str(tmp_path / "wt1"))
    # byte for byte and mode for mode what install wrote in the main worktree
    assert installed_files(wt1) == main_files
    record = manifest(repo)
    assert set(record["worktrees"]) == {"wt1"} and record["worktrees"]["wt1"]["top"] == wt1
    assert set(record["worktrees"]["wt1"]["adapters"]) == set(record["adapters"])  # the main's record kept
    assert record["top"] == os.path.realpath(repo.path)
    # Codex trusts each worktree's hooks.json: one trust block per worktree
    codex = open(os.path.join(repo.env["HOME"], ".codex", "config.toml")).read()
    assert os.path.join(wt1, ".codex", "hooks.json") in codex and os.path.join(repo.path, ".codex") in codex
    # the doctor passes in both, and each sees the other
    for where in (wt1, repo.path):
        checks, proc = doctor_report(repo, cwd=where)
        assert proc.returncode == 0, failures(checks)
        assert checks["adapters.worktrees"]["status"] == "pass"
        assert checks["hooks.post-checkout"]["status"] == "pass"
        for harness in adapters.HARNESSES:
            assert checks["adapters." + harness]["status"] == "pass", checks["adapters." + harness]
    # install run again in either worktree changes nothing
    for where in (wt1, repo.path):
        assert "nothing changed" in repo.agentguard("install", cwd=where).stdout


def test_a_guarded_commit_on_main_inside_a_worktree_is_refused(make_repo, tmp_path):
    repo, bare = make_repo()
    repo.run("checkout", "-q", "-b", "feat")  # main is free for a worktree
    repo.commit("feature work")
    proc = add_worktree(repo, tmp_path / "wt-main", "main")
    assert proc.returncode == 0, proc.stderr
    wt = Git(str(tmp_path / "wt-main"), repo.env)
    assert os.path.isfile(os.path.join(wt.path, ".pi", "extensions", "agentguard.ts"))
    before = state(repo, bare)
    with open(os.path.join(wt.path, "work.txt"), "w") as fh:
        fh.write("work\n")
    wt.run("add", "work.txt")
    assert_refused_and_kept(wt.run("commit", "-m", "onto main from a worktree", check=False), repo, bare, before)
    assert_refused_and_kept(wt.run("push", "--no-verify", "origin", "feat:main", check=False), repo, bare, before)
    # the decision its adapters ask for refuses it too
    proc = agentguard("check", "--json", "--cwd", wt.path, "git commit -m x", cwd=wt.path, env=repo.env, check=False)
    assert proc.returncode == 1 and json.loads(proc.stdout)["rule"] == "commit-on-protected"
    assert state(repo, bare) == before


def test_the_users_post_checkout_hook_still_runs_with_the_same_arguments(make_repo, tmp_path):
    repo, _ = make_repo(install=False)
    hook = os.path.join(repo.path, ".git", "hooks", "post-checkout")
    with open(hook, "wb") as fh:
        fh.write(USER_POST_CHECKOUT)
    os.chmod(hook, 0o750)
    proc = repo.agentguard("install")
    assert "chained: it still runs" in proc.stdout and os.path.exists(hook + ".agentguard-chained")
    log = os.path.join(repo.path, ".git", "post-checkout.log")
    old = repo.rev("HEAD")
    repo.run("switch", "-q", "-c", "side")
    assert open(log).read() == "args:%s %s 1\n" % (old, old)
    proc = add_worktree(repo, tmp_path / "wt1", "-b", "agent1")
    assert proc.returncode == 0 and "agentguard" not in proc.stderr
    assert open(log).read().splitlines()[-1] == "args:%s %s 1" % (ZERO, old)
    assert os.path.isfile(os.path.join(str(tmp_path / "wt1"), ".pi", "extensions", "agentguard.ts"))
    repo.run("checkout", "-q", "main", "--", ".")  # a file checkout: flag 0
    assert open(log).read().splitlines()[-1] == "args:%s %s 0" % (old, old)
    # a failing user hook still fails the checkout (git exits 1), as it did without agentguard
    with open(hook + ".agentguard-chained", "ab") as fh:
        fh.write(b"exit 3\n")
    assert repo.run("switch", "-q", "main", check=False).returncode == 1
    with open(hook + ".agentguard-chained", "wb") as fh:
        fh.write(USER_POST_CHECKOUT)
    repo.agentguard("uninstall")
    assert open(hook, "rb").read() == USER_POST_CHECKOUT and stat.S_IMODE(os.stat(hook).st_mode) == 0o750
    assert not os.path.exists(hook + ".agentguard-chained")


def _loud(tmp_path, name, body="exit 1"):
    """A stand-in that logs that it ran (and fails): for the Python and the agentguard command."""
    path = tmp_path / name
    path.write_text("#!/bin/sh\necho \"$0 $*\" >> %s\necho 'agentguard: boom' >&2\n%s\n"
                    % (tmp_path / "started.log", body))
    path.chmod(0o755)
    return str(path)


def _point_hooks_at(repo, python, bin_, limit=None):
    hooks = os.path.join(repo.path, ".git", "hooks")
    for name in os.listdir(hooks):
        path = os.path.join(hooks, name)
        text = open(path).read()
        if "agentguard install" not in text:
            continue
        text = re.sub(r"^ag_py=.*$", "ag_py='%s'" % python, text, flags=re.M)
        text = re.sub(r"^ag_bin=.*$", "ag_bin='%s'" % bin_, text, flags=re.M)
        if limit is not None:
            text = re.sub(r"^ag_limit=.*$", "ag_limit=%d" % limit, text, flags=re.M)
        with open(path, "w") as fh:
            fh.write(text)


def test_switch_and_checkout_start_no_python(make_repo, tmp_path):
    repo, _ = make_repo()
    repo.run("branch", "other")
    # every Python start and every agentguard command the hooks could make now logs itself and fails
    _point_hooks_at(repo, _loud(tmp_path, "python"), _loud(tmp_path, "agentguard"))
    log = tmp_path / "started.log"
    for _ in range(3):
        repo.run("switch", "-q", "other")
        repo.run("checkout", "-q", "main")
        repo.run("checkout", "-q", "other", "--", ".")
        repo.run("switch", "-q", "--detach", "HEAD")
        repo.run("switch", "-q", "main")
    assert not log.exists(), log.read_text()
    # control: a new worktree does start it, and its failure is one clear line, not a failed checkout
    proc = add_worktree(repo, tmp_path / "wt1", "-b", "agent1")
    wt1 = os.path.realpath(str(tmp_path / "wt1"))
    assert "agentguard install %s" % wt1 in log.read_text()
    lines = [line for line in proc.stderr.splitlines() if line.startswith("agentguard:")]
    assert lines == ["agentguard: this checkout is not fully guarded (boom); to finish: agentguard install %s" % wt1]
    assert proc.returncode == 0 and os.path.isdir(wt1)
    # ... and the doctor, in either worktree, names the fix
    _point_hooks_at(repo, "/nonexistent", "/nonexistent")
    repo.agentguard("doctor", "--fix", "--no-probes", check=False)  # restores the hooks (and the wt: below)
    checks, proc = doctor_report(repo, "--no-probes", cwd=wt1)
    assert proc.returncode == 0, failures(checks)
    assert os.path.isfile(os.path.join(wt1, ".pi", "extensions", "agentguard.ts"))


def test_a_hanging_install_is_stopped(make_repo, tmp_path):
    repo, _ = make_repo()
    _point_hooks_at(repo, "/nonexistent", _loud(tmp_path, "agentguard", "exec sleep 60"), limit=2)
    start = time.monotonic()
    proc = add_worktree(repo, tmp_path / "wt1", "-b", "agent1")
    assert time.monotonic() - start < 30
    assert "did not finish within 2 s" in proc.stderr and proc.returncode == 0


def test_the_doctor_names_and_fixes_a_worktree_without_adapters(make_repo, tmp_path):
    repo, _ = make_repo(install=False)
    repo.run("worktree", "add", "-q", str(tmp_path / "old"), "-b", "before-install")  # made before install
    repo.agentguard("install", "--harness", "pi,claude")
    old = os.path.realpath(str(tmp_path / "old"))
    add_worktree(repo, tmp_path / "wt1", "-b", "agent1")
    wt1 = os.path.realpath(str(tmp_path / "wt1"))
    checks, proc = doctor_report(repo, "--no-probes")
    assert proc.returncode == 1 and checks["adapters.worktrees"]["status"] == "fail"
    assert old in checks["adapters.worktrees"]["summary"]
    assert checks["adapters.worktrees"]["fix"].startswith("agentguard install %s" % old)
    # the fix it names works
    repo.agentguard("install", old)
    checks, proc = doctor_report(repo, "--no-probes", cwd=wt1)
    assert proc.returncode == 0, failures(checks)
    # an adapter damaged in a linked worktree: named from the main worktree, repaired by --fix
    os.unlink(os.path.join(wt1, ".pi", "extensions", "agentguard.ts"))
    with open(os.path.join(wt1, ".claude", "settings.local.json"), "w") as fh:
        fh.write("{}\n")
    checks, proc = doctor_report(repo, "--no-probes")
    assert proc.returncode == 1 and wt1 in checks["adapters.worktrees"]["summary"]
    repo.agentguard("doctor", "--fix", "--no-probes", check=False)
    checks, proc = doctor_report(repo, "--no-probes")
    assert proc.returncode == 0, failures(checks)
    assert installed_files(wt1) == installed_files(repo.path)


def test_removed_worktrees_then_doctor_and_uninstall(make_repo, tmp_path):
    repo, _ = make_repo(install=False)
    main_before = work_files(repo.path)
    hooks_before = tree_snapshot(os.path.join(repo.path, ".git", "hooks"))
    config_before = open(os.path.join(repo.path, ".git", "config"), "rb").read()
    home_before = tree_snapshot(repo.env["HOME"])
    repo.agentguard("install", "--harness", "all")
    tops = {}
    for name in ("wt1", "wt2", "wt3"):
        assert add_worktree(repo, tmp_path / name, "-b", "agent-" + name).returncode == 0
        tops[name] = os.path.realpath(str(tmp_path / name))
    wt1_before_uninstall = installed_files(tops["wt1"])
    assert wt1_before_uninstall == installed_files(repo.path)
    repo.run("worktree", "remove", "--force", tops["wt2"])  # git's own way
    subprocess.run(["rm", "-rf", tops["wt3"]], check=True)  # gone behind git's back: prunable
    for where in (repo.path, tops["wt1"]):
        checks, proc = doctor_report(repo, "--no-probes", cwd=where)
        assert proc.returncode == 0, failures(checks)
        assert "%s (prunable)" % tops["wt3"] in checks["hooks.worktrees"]["summary"]
    proc = repo.agentguard("uninstall", cwd=tops["wt1"])
    assert "dropped the record of the worktree %s" % tops["wt2"] in proc.stdout
    assert "dropped the record of the worktree %s" % tops["wt3"] in proc.stdout
    # byte for byte: the main worktree as before install, wt1 as git checked it out, and $HOME
    assert work_files(repo.path) == main_before
    assert tree_snapshot(os.path.join(repo.path, ".git", "hooks")) == hooks_before
    assert open(os.path.join(repo.path, ".git", "config"), "rb").read() == config_before
    assert repo.run("status", "--porcelain", "--ignored", "--untracked-files=all", cwd=tops["wt1"]).stdout == ""
    assert tree_snapshot(repo.env["HOME"]) == home_before
    assert not os.path.exists(os.path.join(repo.path, ".git", "agentguard", "manifest.json"))


def test_a_clone_with_no_install_record_gets_a_full_install(make_repo, tmp_path):
    """A repository made from a git template that holds agentguard's post-checkout (and no manifest):
    the clone's checkout runs a full install."""
    repo, bare = make_repo()
    template = tmp_path / "template"
    (template / "hooks").mkdir(parents=True)
    src = os.path.join(repo.path, ".git", "hooks", "post-checkout")
    dst = str(template / "hooks" / "post-checkout")
    with open(src, "rb") as fh, open(dst, "wb") as out:
        out.write(fh.read())
    os.chmod(dst, 0o755)
    clone = tmp_path / "clone"
    proc = subprocess.run(["git", "clone", "-q", "--template", str(template), bare.path, str(clone)],
                          env=repo.env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "agentguard" not in proc.stderr, proc.stderr
    c = Git(str(clone), repo.env)
    assert os.path.isfile(os.path.join(c.path, ".git", "agentguard", "manifest.json"))
    assert os.path.isfile(os.path.join(c.path, ".pi", "extensions", "agentguard.ts"))
    checks, proc = doctor_report(c, "--no-probes")
    assert proc.returncode == 0, failures(checks)
    main = c.rev("main")
    assert refused(c.run("commit", "--allow-empty", "-m", "x", check=False)) and c.rev("main") == main


def test_hole_worktree_add_no_checkout_gets_no_adapters(make_repo, tmp_path):
    """SECURITY.md: `git worktree add --no-checkout` runs no post-checkout hook, so that worktree has no
    harness adapters until `agentguard install` runs there; the doctor names it, and --fix repairs it."""
    repo, _ = make_repo()
    proc = add_worktree(repo, tmp_path / "bare-wt", "--no-checkout", "-b", "agent2")
    assert proc.returncode == 0, proc.stderr
    wt = os.path.realpath(str(tmp_path / "bare-wt"))
    assert "agentguard" not in proc.stderr
    assert not os.path.exists(os.path.join(wt, ".pi", "extensions", "agentguard.ts"))  # still open
    checks, proc = doctor_report(repo)
    assert proc.returncode == 1 and checks["adapters.worktrees"]["status"] == "fail"
    assert "bare-wt" in checks["adapters.worktrees"]["summary"], checks["adapters.worktrees"]
    checks, proc = doctor_report(repo, "--fix")
    assert checks["adapters.worktrees"]["status"] == "pass", failures(checks)
    assert os.path.isfile(os.path.join(wt, ".pi", "extensions", "agentguard.ts"))
