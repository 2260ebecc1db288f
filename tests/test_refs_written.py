"""Refs written without git, and links onto the guard (issue #29): a protected branch turned into a
symbolic ref, written by a program the analyser cannot read, changed only in packed-refs; a hard link
or a symlink onto a guarded file; a directory, FIFO or socket where a guarded file was. Each is run
for real between the pre-check and the after-check (as tests/test_outcome.py drives a tool call),
proved to have done its damage, then undone exactly: the ref itself repaired (never written through a
symref), nothing else moved, nothing lost."""
import base64
import os

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
