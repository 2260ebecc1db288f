"""Refs written without git, and links onto the guard (issue #29): a protected branch turned into a
symbolic ref, written by a program the analyser cannot read, changed only in packed-refs; a hard link
or a symlink onto a guarded file; a directory, FIFO or socket where a guarded file was. Each is run
for real between the pre-check and the after-check (as tests/test_outcome.py drives a tool call),
proved to have done its damage, then undone exactly: the ref itself repaired (never written through a
symref), nothing else moved, nothing lost."""
import base64
import json
import os
import shutil
import signal
import stat
import subprocess

import pytest

from helpers import AGENTGUARD, Git
from test_outcome import after, doctor_fails, guard_files, pre_check

HOOKS_OFF = "git -c core.hooksPath=/dev/null"


def symref(repo, ref):
    """The target ``ref`` points at when it is a symbolic ref, else None."""
    proc = repo.run("symbolic-ref", "-q", ref, check=False)
    return proc.stdout.strip() or None


def drive(repo, command):
    """The tool call for real: the pre-check, then the command with ``sh -c``."""
    pre_check(repo, command)
    proc = repo.sh(command)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def repaired(repo):
    rc, report = after(repo)
    assert (rc, report["decision"], report["failed"]) == (3, "repaired", []), report
    return report


def settled(repo):
    """Nothing more to undo, and the doctor is content."""
    rc, report = after(repo)
    assert (rc, report["decision"], report["undone"]) == (0, "unchanged", []), report
    fails, ok = doctor_fails(repo)
    assert (fails, ok) == ([], True), fails


def test_main_made_a_symref_to_a_branch_is_restored_and_the_branch_untouched(guarded):
    repo, _ = guarded
    main, feat, files = repo.rev("main"), repo.rev("feat"), guard_files(repo)
    repo.run("checkout", "-q", "feat")
    drive(repo, "printf 'ref: refs/heads/feat\\n' > .git/refs/heads/main")
    assert symref(repo, "refs/heads/main") == "refs/heads/feat", "the command did no damage"
    report = repaired(repo)
    assert symref(repo, "refs/heads/main") is None, "main is still a symbolic ref"
    assert repo.rev("main") == main and repo.rev("feat") == feat, "the repair wrote through the symref"
    assert any(u["kind"] == "ref" and u["ref"] == "refs/heads/main" for u in report["undone"]), report
    assert guard_files(repo) == files
    settled(repo)


def test_main_made_a_symref_with_git_while_on_it_is_restored(guarded):
    """`git symbolic-ref` with the hooks off, HEAD on main: HEAD -> main -> feat."""
    repo, _ = guarded
    main, feat = repo.rev("main"), repo.rev("feat")
    drive(repo, HOOKS_OFF + " symbolic-ref refs/heads/main refs/heads/feat")
    assert symref(repo, "refs/heads/main") == "refs/heads/feat"
    repaired(repo)
    assert symref(repo, "refs/heads/main") is None and symref(repo, "HEAD") == "refs/heads/main"
    assert (repo.rev("main"), repo.rev("feat")) == (main, feat)
    settled(repo)


def test_main_made_a_symref_to_a_branch_at_the_same_commit_is_restored(guarded):
    """Nothing moved, so only the shape tells: main -> side, side at main's commit (a later commit on
    side would move main with no transaction on main)."""
    repo, _ = guarded
    main = repo.rev("main")
    repo.run("branch", "side")
    repo.run("checkout", "-q", "feat")
    drive(repo, "printf 'ref: refs/heads/side\\n' > .git/refs/heads/main")
    assert symref(repo, "refs/heads/main") == "refs/heads/side" and repo.rev("main") == main
    repaired(repo)
    assert symref(repo, "refs/heads/main") is None and repo.rev("main") == main == repo.rev("side")
    settled(repo)


def test_main_made_a_dangling_symref_is_restored_and_nothing_created(guarded):
    repo, _ = guarded
    main, branches = repo.rev("main"), sorted(repo.branches())
    repo.run("checkout", "-q", "feat")
    drive(repo, "printf 'ref: refs/heads/nowhere\\n' > .git/refs/heads/main")
    assert repo.rev("main") is None
    repaired(repo)
    assert symref(repo, "refs/heads/main") is None and repo.rev("main") == main
    assert repo.rev("refs/heads/nowhere") is None, "the repair wrote through the dangling symref"
    assert sorted(repo.branches()) == branches
    settled(repo)


def test_a_new_protected_name_made_a_symref_to_main_goes_and_main_stays(guarded):
    """`master` (protected too) created as a symbolic ref to main: taken away with --no-deref (without
    it, `update-ref -d` would delete main itself)."""
    repo, _ = guarded
    main = repo.rev("main")
    drive(repo, "printf 'ref: refs/heads/main\\n' > .git/refs/heads/master")
    assert repo.rev("master") == main
    repaired(repo)
    assert repo.rev("master") is None and repo.rev("main") == main and symref(repo, "refs/heads/main") is None
    settled(repo)


def test_an_ordinary_symref_elsewhere_is_left_alone(guarded):
    """A symbolic ref that is not a protected branch (an alias of a feature branch), and HEAD moved by
    checkout: no repair."""
    repo, _ = guarded
    drive(repo, "git symbolic-ref refs/heads/topic refs/heads/feat && git checkout -q feat")
    rc, report = after(repo)
    assert (rc, report["decision"], report["undone"]) == (0, "unchanged", []), report
    assert symref(repo, "refs/heads/topic") == "refs/heads/feat"


PY_WRITE = "python3 -c \"import base64;open(base64.b64decode('{name}').decode(),'w').write('{oid}\\n')\""


def test_main_written_by_python_behind_an_obfuscated_name_is_put_back_and_kept(guarded):
    repo, _ = guarded
    main, feat = repo.rev("main"), repo.rev("feat")
    name = base64.b64encode(b".git/refs/heads/main").decode()
    drive(repo, PY_WRITE.format(name=name, oid=feat))
    assert repo.rev("main") == feat, "the command did no damage"
    report = repaired(repo)
    assert repo.rev("main") == main and len(report["rescued"]) == 1
    assert repo.rev(report["rescued"][0]) == feat, "the commits main held are lost"
    settled(repo)


def _pack(repo, keep_loose=False):
    main = repo.rev("main")
    repo.run("pack-refs", "--all")
    loose = os.path.join(repo.path, ".git", "refs", "heads", "main")
    if keep_loose:
        with open(loose, "w") as fh:
            fh.write(main + "\n")
    assert os.path.exists(loose) == keep_loose


def test_main_only_in_packed_refs_rewritten_by_python_is_put_back(guarded):
    repo, _ = guarded
    main, feat = repo.rev("main"), repo.rev("feat")
    _pack(repo)
    drive(repo, "python3 -c \"p='.git/packed-refs';s=open(p).read();open(p,'w').write(s.replace('%s refs/heads/main',"
                "'%s refs/heads/main'))\"" % (main, feat))
    assert repo.rev("main") == feat
    report = repaired(repo)
    assert repo.rev("main") == main and repo.rev(report["rescued"][0]) == feat
    settled(repo)


def test_a_stale_packed_main_uncovered_by_deleting_the_loose_ref_is_put_back(guarded):
    """packed-refs holds an older main (rewritten while a loose ref shadowed it: no effect yet), then
    the loose ref is deleted and the stale packed value shows."""
    repo, _ = guarded
    main, feat = repo.rev("main"), repo.rev("feat")
    _pack(repo, keep_loose=True)
    drive(repo, "sed -i 's/^%s refs\\/heads\\/main$/%s refs\\/heads\\/main/' .git/packed-refs" % (main, feat))
    assert repo.rev("main") == main, "the loose ref shadows the packed one"
    rc, report = after(repo)
    assert (rc, report["decision"]) == (0, "unchanged"), report
    drive(repo, "rm .git/refs/heads/main")
    assert repo.rev("main") == feat, "the stale packed value did not show"
    report = repaired(repo)
    assert repo.rev("main") == main and repo.rev(report["rescued"][0]) == feat
    settled(repo)


# -- links onto the guard ----------------------------------------------------------------------------
def _read(path):
    with open(path, "rb") as fh:
        return fh.read()


def test_a_hard_link_to_a_hook_is_broken_so_writing_it_later_changes_nothing(guarded, tmp_path):
    repo, _ = guarded
    hook = os.path.join(repo.path, ".git", "hooks", "reference-transaction")
    link = tmp_path / "later"
    was, files = _read(hook), guard_files(repo)
    drive(repo, "ln .git/hooks/reference-transaction %s" % link)
    assert os.stat(hook).st_nlink == 2, "the command made no link"
    report = repaired(repo)
    assert any(u["kind"] == "file" and u["path"] == hook for u in report["undone"]), report
    assert os.stat(hook).st_nlink == 1
    link.write_bytes(b"#!/bin/sh\nexit 0\n")  # the job that acts after the after-check ran
    assert _read(hook) == was and guard_files(repo) == files
    settled(repo)


def test_a_hard_link_from_outside_into_the_guards_home_is_broken(guarded, tmp_path):
    """A copy of the runtime's `check` put back as a hard link to a file the caller controls: same bytes,
    so only the second name tells."""
    repo, _ = guarded
    check = os.path.join(repo.path, ".git", "agentguard", "check")
    outside = tmp_path / "mine"
    was = _read(check)
    drive(repo, "cp -p .git/agentguard/check %s && ln -f %s .git/agentguard/check" % (outside, outside))
    assert os.stat(check).st_nlink == 2 and os.path.samefile(check, str(outside))
    repaired(repo)
    assert not os.path.samefile(check, str(outside)) and os.stat(check).st_nlink == 1
    outside.write_bytes(b"#!/bin/sh\necho '{}'\n")
    assert _read(check) == was
    settled(repo)


def test_a_hard_link_to_mains_ref_file_is_broken_so_writing_it_later_moves_nothing(guarded, tmp_path):
    repo, _ = guarded
    main, feat = repo.rev("main"), repo.rev("feat")
    link = tmp_path / "main-ref"
    drive(repo, "ln .git/refs/heads/main %s" % link)
    assert os.stat(link).st_nlink == 2
    report = repaired(repo)
    assert any(u["kind"] == "ref" and u["ref"] == "refs/heads/main" for u in report["undone"]), report
    link.write_text(feat + "\n")
    assert repo.rev("main") == main, "writing the other name still moves main"
    settled(repo)


def test_mains_ref_file_made_a_symlink_to_a_file_the_caller_controls_is_written_again(guarded, tmp_path):
    repo, _ = guarded
    main, feat = repo.rev("main"), repo.rev("feat")
    mine = tmp_path / "mine"
    mine.write_text(main + "\n")
    drive(repo, "ln -sf %s .git/refs/heads/main" % mine)
    assert os.path.islink(os.path.join(repo.path, ".git", "refs", "heads", "main")) and repo.rev("main") == main
    repaired(repo)
    mine.write_text(feat + "\n")
    assert repo.rev("main") == main
    settled(repo)


def test_a_hook_replaced_by_a_symlink_to_a_file_the_caller_controls_is_restored(guarded, tmp_path):
    repo, _ = guarded
    hook = os.path.join(repo.path, ".git", "hooks", "pre-push")
    mine = tmp_path / "mine"
    was, files = _read(hook), guard_files(repo)
    mine.write_bytes(was)
    drive(repo, "ln -sf %s .git/hooks/pre-push" % mine)
    assert os.path.islink(hook)
    repaired(repo)
    mine.write_bytes(b"#!/bin/sh\nexit 0\n")
    assert not os.path.islink(hook) and _read(hook) == was and guard_files(repo) == files
    settled(repo)


def test_an_ordinary_hard_link_in_the_work_tree_is_left_alone(guarded):
    repo, _ = guarded
    drive(repo, "echo hi > a.txt && ln a.txt b.txt")
    rc, report = after(repo)
    assert (rc, report["decision"], report["undone"]) == (0, "unchanged", []), report


# -- a FIFO, socket or directory where a guarded file was ---------------------------------------------
def within(argv, repo, seconds=40):
    """Run ``argv`` in its own process group; on a timeout kill the whole group and fail: it hung."""
    proc = subprocess.Popen(argv, cwd=repo.path, env=repo.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail("%s hung on a FIFO" % " ".join(argv[:3]))
    return proc.returncode, out, err


def after_within(repo, cli=False):
    argv = [AGENTGUARD, "check"] if cli else [os.path.join(repo.path, ".git", "agentguard", "check")]
    rc, out, err = within(argv + ["--after", "--json"], repo)
    assert out.strip(), err
    return rc, json.loads(out)


MAKE = {"fifo": "rm -f {p} && mkfifo {p}",
        "socket": "rm -f {p} && python3 -c \"import socket,sys;socket.socket(socket.AF_UNIX).bind(sys.argv[1])\" {p}",
        "directory": "rm -f {p} && mkdir {p} && echo x > {p}/inside"}
WHERE = {"hook": ".git/hooks/pre-push", "check": ".git/agentguard/check", "policy": ".git/agentguard/policy.json",
         "manifest": ".git/agentguard/manifest.json", "main-ref": ".git/refs/heads/main"}


def unmoved(files):
    """``guard_files`` without what the after-check moved aside (kept, never deleted)."""
    return {root: {k: v for k, v in found.items() if ".agentguard-moved-" not in k} if isinstance(found, dict)
            else found for root, found in files.items()}


@pytest.mark.parametrize("kind", sorted(MAKE))
@pytest.mark.parametrize("what", sorted(WHERE))
def test_a_fifo_socket_or_directory_where_a_guarded_file_was_is_repaired_without_hanging(guarded, what, kind):
    repo, _ = guarded
    path = os.path.join(repo.path, WHERE[what])
    main, files, feat = repo.rev("main"), guard_files(repo), repo.rev("feat")
    if what == "main-ref":
        repo.run("checkout", "-q", "feat")
    command = MAKE[kind].format(p=WHERE[what])
    pre_check(repo, command)
    proc = repo.sh(command)
    assert proc.returncode == 0, proc.stderr
    assert not stat.S_ISREG(os.lstat(path).st_mode), "the command did no damage"
    rc, report = after_within(repo, cli=what == "check")
    assert (rc, report["decision"], report["failed"]) == (3, "repaired", []), report
    assert stat.S_ISREG(os.lstat(path).st_mode)
    assert unmoved(guard_files(repo)) == unmoved(files) and (repo.rev("main"), repo.rev("feat")) == (main, feat)
    moved = [n for n in os.listdir(os.path.dirname(path)) if ".agentguard-moved-" in n]
    if kind == "directory" and what != "main-ref":
        assert len(moved) == 1, "the directory was deleted, not moved aside"  # nothing lost
    rc, report = after_within(repo)
    assert (rc, report["decision"], report["undone"]) == (0, "unchanged", []), report


@pytest.mark.parametrize("what", sorted(set(WHERE) - {"main-ref"}))
def test_the_pre_check_and_the_doctor_never_wait_on_a_fifo(guarded, what):
    """Left between two calls (by a job the after-check did not see): the next pre-check, the doctor
    and a git command under the backstop hooks all finish. (A FIFO as main's ref file makes git 2.39
    itself wait, any git command: test_hole_a_fifo_as_a_ref_file_makes_git_239_itself_wait.)"""
    repo, _ = guarded
    path = os.path.join(repo.path, WHERE[what])
    os.unlink(path)
    os.mkfifo(path)
    check = [AGENTGUARD, "check"] if what == "check" else [os.path.join(repo.path, ".git", "agentguard", "check")]
    within(check + ["--json", "--", "git status"], repo)
    within([AGENTGUARD, "doctor", "--json"], repo)
    within(["git", "commit", "-q", "--allow-empty", "-m", "x"], repo)
    within(["git", "push", "-q", "origin", "HEAD:refs/heads/topic"], repo)


# -- doctor --fix on the same states ------------------------------------------------------------------
def _doctor_fix(repo):
    fails, _ = doctor_fails(repo)
    assert "refs.shape" in fails, fails
    proc = repo.agentguard("doctor", "--fix", "--json", check=False)
    return json.loads(proc.stdout)


@pytest.mark.parametrize("snapshot_kept", [True, False])
def test_doctor_fix_makes_a_symref_main_a_ref_of_its_own_never_writing_through(guarded, snapshot_kept):
    """main made a symref to feat (a commit ahead): --fix puts main back (the last snapshot's place,
    else its counterpart's after the rescue), feat untouched; without any record, never deleted."""
    repo, _ = guarded
    main, feat = repo.rev("main"), repo.rev("feat")
    repo.run("checkout", "-q", "feat")
    pre_check(repo, "true")
    if not snapshot_kept:
        shutil.rmtree(os.path.join(repo.path, ".git", "agentguard", "outcome"))
    repo.sh("printf 'ref: refs/heads/feat\\n' > .git/refs/heads/main")
    assert symref(repo, "refs/heads/main") == "refs/heads/feat"
    _doctor_fix(repo)
    assert symref(repo, "refs/heads/main") is None and (repo.rev("main"), repo.rev("feat")) == (main, feat)
    assert doctor_fails(repo) == ([], True)


def test_doctor_fix_on_a_symref_main_where_its_target_is_at_the_same_commit(guarded):
    """Nothing ahead, so only the shape tells: main -> side, side at main's commit."""
    repo, _ = guarded
    main = repo.rev("main")
    repo.run("branch", "side")
    repo.run("checkout", "-q", "feat")
    repo.sh("printf 'ref: refs/heads/side\\n' > .git/refs/heads/main")
    _doctor_fix(repo)
    assert symref(repo, "refs/heads/main") is None and repo.rev("main") == main == repo.rev("side")
    assert doctor_fails(repo) == ([], True)


def test_doctor_fix_on_a_dangling_symref_main_and_a_hard_linked_ref_file(guarded, tmp_path):
    repo, _ = guarded
    main, feat = repo.rev("main"), repo.rev("feat")
    repo.run("checkout", "-q", "feat")
    pre_check(repo, "true")
    repo.sh("printf 'ref: refs/heads/nowhere\\n' > .git/refs/heads/main")
    _doctor_fix(repo)
    assert symref(repo, "refs/heads/main") is None and repo.rev("main") == main
    assert repo.rev("refs/heads/nowhere") is None
    link = tmp_path / "main-ref"
    os.link(os.path.join(repo.path, ".git", "refs", "heads", "main"), str(link))
    _doctor_fix(repo)
    link.write_text(feat + "\n")
    assert repo.rev("main") == main and doctor_fails(repo) == ([], True)


# -- a file tool's path through a symlink in the work tree --------------------------------------------
THROUGH_LINKS = ["hooks-link/../refs/heads/main", "hooks-link/../hooks/pre-push", "git-link/refs/heads/main",
                 "hooks-link/../packed-refs", "hooks-link/../agentguard/check"]


def _links(repo):
    os.symlink(os.path.join(repo.path, ".git", "hooks"), os.path.join(repo.path, "hooks-link"))
    os.symlink(os.path.join(repo.path, ".git"), os.path.join(repo.path, "git-link"))


def _write_decision(repo, path):
    proc = subprocess.run([AGENTGUARD, "check", "--json", "--cwd", repo.path, "--write", path], env=repo.env,
                          capture_output=True, text=True, timeout=60)
    return json.loads(proc.stdout)["decision"]


@pytest.mark.parametrize("path", THROUGH_LINKS)
def test_a_file_tool_write_through_a_symlink_is_judged_where_the_os_puts_it(guarded, path):
    """`hooks-link/../refs/heads/main` with hooks-link -> .git/hooks is .git/refs/heads/main to the OS
    (the symlink first, then ..), not refs/heads/main in the work tree (the text's reading)."""
    repo, _ = guarded
    _links(repo)
    assert os.path.realpath(os.path.join(repo.path, path)).startswith(os.path.join(repo.path, ".git") + os.sep)
    assert _write_decision(repo, path) == "block"


def test_a_write_through_a_symlink_that_ran_anyway_is_repaired(guarded):
    """The harness wrote it without asking (or the refusal was ignored): the after-check puts main back."""
    repo, _ = guarded
    main, feat = repo.rev("main"), repo.rev("feat")
    _links(repo)
    drive(repo, "printf '%s\\n' {} > hooks-link/../refs/heads/main".format(feat))
    assert repo.rev("main") == feat
    report = repaired(repo)
    assert repo.rev("main") == main and repo.rev(report["rescued"][0]) == feat


def test_an_ordinary_write_through_a_symlink_in_the_work_tree_is_allowed(guarded):
    repo, _ = guarded
    os.makedirs(os.path.join(repo.path, "src"))
    os.symlink(os.path.join(repo.path, "src"), os.path.join(repo.path, "src-link"))
    assert _write_decision(repo, "src-link/../notes.txt") == "allow"
    assert _write_decision(repo, "src-link/main.py") == "allow"


def test_hole_a_hard_link_to_a_config_file_is_not_broken(guarded, tmp_path):
    """`.git/config` (like `~/.gitconfig`) is the user's file: a second name made to it is left (a
    dotfile manager may link it), so a write through that name later is seen only as a config change,
    by the next check (SECURITY.md, "Refs written without git, and links onto the guard")."""
    repo, _ = guarded
    link = tmp_path / "config-link"
    drive(repo, "ln .git/config %s" % link)
    rc, report = after(repo)
    assert (rc, report["decision"]) == (0, "unchanged"), report
    assert os.stat(str(link)).st_nlink == 2 and os.path.samefile(str(link), os.path.join(repo.path, ".git", "config"))


def test_a_symref_main_is_repaired_in_reftable_storage(guarded, tmp_path):
    """Reftable storage (`git init --ref-format=reftable`, git 2.45+): the repair asks git, so it holds
    there too. An older git makes no reftable repository (there is nothing to guard)."""
    env = guarded[0].env
    work, bare = tmp_path / "rt", tmp_path / "rt.git"
    proc = subprocess.run(["git", "init", "-q", "-b", "main", "--ref-format=reftable", str(work)], env=env,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        assert "ref-format" in proc.stderr, proc.stderr
        return
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], env=env, check=True)
    repo = Git(str(work), env)
    repo.commit("initial")
    repo.run("remote", "add", "origin", str(bare))
    repo.run("push", "-q", "-u", "origin", "main")
    repo.agentguard("install")
    repo.run("checkout", "-q", "-b", "feat")
    repo.commit("feature work")
    assert repo.run("rev-parse", "--show-ref-format").stdout.strip() == "reftable"
    main, feat = repo.rev("main"), repo.rev("feat")
    drive(repo, HOOKS_OFF + " symbolic-ref refs/heads/main refs/heads/feat")
    assert symref(repo, "refs/heads/main") == "refs/heads/feat"
    repaired(repo)
    assert symref(repo, "refs/heads/main") is None and (repo.rev("main"), repo.rev("feat")) == (main, feat)
