"""A tool call that makes the work tree read as something else to git (bare, its work tree elsewhere, no
repository at all) and, in the same call, writes a protected branch's ref file directly: the after-check
must not pass silently because git no longer answers for the work tree the snapshot was taken of. It finds
the snapshot without git (the work tree's own ``.git``, checked against what the snapshot recorded), puts
back what git's config had (``core.bare``, ``core.worktree``), then checks the refs as usual; what it
cannot undo (git sees no repository: a broken HEAD) it reports as unrepaired, every call until it is fixed.
Each call is run for real between the pre-check and the after-check (as tests/test_outcome.py drives one)."""
import json
import os

from test_outcome import after, guard_files, pre_check, runtime

PY = "python3 -c "


def drive(repo, command, cwd=None):
    pre_check(repo, command)
    proc = repo.sh(command, cwd=cwd)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def after_in(repo, cwd):
    proc = runtime(repo, "--after", "--json", cwd=cwd)
    assert proc.stdout.strip(), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def python_edit(path, old, new):
    """A python one-liner the analyser cannot read into: replace ``old`` with ``new`` in ``path`` (or append)."""
    code = ("p=%r;s=open(p).read();s=s.replace(%r,%r) if %r in s else s+%r;open(p,'w').write(s)"
            % (path, old, new, old, new))
    return PY + "\"%s\"" % code.replace('"', '\\"')


def write_ref(path, oid):
    return PY + "\"open(%r,'w').write(%r)\"" % (path, oid + "\n")


def rev_parse_bare(repo, cwd=None):
    return repo.run("rev-parse", "--is-bare-repository", cwd=cwd, check=False).stdout.strip()


def moved_back_and_rescued(repo, report, main, feat):
    assert repo.rev("main") == main, report
    assert len(report["rescued"]) == 1 and repo.rev(report["rescued"][0]) == feat, report


def test_the_work_tree_made_bare_and_main_written_is_undone(guarded):
    repo, bare = guarded
    main, feat, files = repo.rev("main"), repo.rev("feat"), guard_files(repo)
    drive(repo, python_edit(".git/config", "bare = false", "bare = true") + " && "
          + write_ref(".git/refs/heads/main", feat))
    assert rev_parse_bare(repo) == "true" and repo.rev("main") == feat, "the call did no damage"
    rc, report = after(repo)
    assert (rc, report["decision"], report["failed"]) == (3, "repaired", []), report
    assert rev_parse_bare(repo) == "false", "the work tree still reads as bare"
    moved_back_and_rescued(repo, report, main, feat)
    assert any(u["kind"] == "config" and u.get("key", "").lower() == "core.bare" for u in report["undone"]), report
    assert bare.rev("main") == main and guard_files(repo) == files
    pre_check(repo, "ls")
    assert after(repo)[:1] == (0,)


def test_the_work_tree_moved_elsewhere_by_core_worktree_and_main_written_is_undone(guarded, tmp_path):
    repo, _ = guarded
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    main, feat = repo.rev("main"), repo.rev("feat")
    drive(repo, python_edit(".git/config", "[core]\n", "[core]\n\tworktree = %s\n" % elsewhere) + " && "
          + write_ref(".git/refs/heads/main", feat))
    assert repo.run("rev-parse", "--show-toplevel").stdout.strip() == str(elsewhere), "the call did no damage"
    rc, report = after(repo)
    assert (rc, report["decision"], report["failed"]) == (3, "repaired", []), report
    assert repo.run("rev-parse", "--show-toplevel").stdout.strip() == os.path.realpath(repo.path)
    moved_back_and_rescued(repo, report, main, feat)
    assert os.listdir(str(elsewhere)) == []
    pre_check(repo, "ls")
    assert after(repo)[:1] == (0,)


def test_a_broken_head_and_main_written_is_unrepaired_every_call_until_fixed(guarded):
    """git sees no repository: nothing can be asked of it, so the after-check says so (unrepaired), and
    keeps saying so; the next pre-check records nothing; once HEAD is fixed, main goes back."""
    repo, _ = guarded
    main, feat = repo.rev("main"), repo.rev("feat")
    drive(repo, write_ref(".git/HEAD", "garbage") + " && " + write_ref(".git/refs/heads/main", feat))
    assert repo.run("status", check=False).returncode != 0, "the call did no damage"
    rc, report = after(repo)
    assert (rc, report["decision"]) == (1, "unrepaired"), report
    assert any("no longer" in f for f in report["failed"]), report["failed"]
    pre_check(repo, "ls")
    rc, report = after(repo)
    assert (rc, report["decision"]) == (1, "unrepaired"), report
    with open(os.path.join(repo.path, ".git", "HEAD"), "w") as fh:
        fh.write("ref: refs/heads/main\n")
    rc, report = after(repo)
    assert (rc, report["decision"]) == (3, "repaired"), report
    moved_back_and_rescued(repo, report, main, feat)


def linked_worktree(repo, tmp_path):
    """A linked worktree on main (the main work tree moved to feat), its snapshot taken by a pre-check there."""
    repo.run("checkout", "-q", "feat")
    wt = str(tmp_path / "wt")
    repo.run("worktree", "add", "-q", wt, "main")
    proc = runtime(repo, "--json", "--", "ls", cwd=wt)
    assert proc.returncode in (0, 1), proc.stderr
    return wt


def test_in_a_linked_worktree_the_repository_made_bare_and_main_written_is_undone(guarded, tmp_path):
    repo, _ = guarded
    wt = linked_worktree(repo, tmp_path)
    main, feat = repo.rev("main"), repo.rev("feat")
    common = os.path.join(repo.path, ".git")
    assert repo.sh(python_edit(os.path.join(common, "config"), "bare = false", "bare = true") + " && "
                   + write_ref(os.path.join(common, "refs", "heads", "main"), feat), cwd=wt).returncode == 0
    assert repo.rev("main") == feat
    rc, report = after_in(repo, wt)
    assert (rc, report["decision"], report["failed"]) == (3, "repaired", []), report
    assert rev_parse_bare(repo) == "false"
    moved_back_and_rescued(repo, report, main, feat)


def test_in_a_linked_worktree_a_broken_head_and_main_written_is_unrepaired(guarded, tmp_path):
    repo, _ = guarded
    wt = linked_worktree(repo, tmp_path)
    feat = repo.rev("feat")
    git_dir = os.path.join(repo.path, ".git", "worktrees", "wt")
    assert repo.sh(write_ref(os.path.join(git_dir, "HEAD"), "garbage") + " && "
                   + write_ref(os.path.join(repo.path, ".git", "refs", "heads", "main"), feat), cwd=wt).returncode == 0
    rc, report = after_in(repo, wt)
    assert (rc, report["decision"]) == (1, "unrepaired"), report


def test_ordinary_core_settings_are_not_repairs(guarded):
    """`git config core.bare false` (what git init writes) and unsetting it in a work tree change nothing."""
    repo, _ = guarded
    for command in ("git config core.bare false", "git config --unset core.bare", "git config core.bare false"):
        assert pre_check(repo, command) == "allow"
        assert repo.sh(command).returncode == 0
        rc, report = after(repo)
        assert (rc, report["decision"], report["undone"]) == (0, "unchanged", []), report


def test_git_config_core_bare_true_in_a_work_tree_is_refused(guarded):
    repo, _ = guarded
    assert pre_check(repo, "git config core.bare true") == "block"
    assert pre_check(repo, "git config core.worktree /tmp") == "block"
    assert rev_parse_bare(repo) == "false"


def test_hole_a_linked_worktrees_gitfile_pointed_at_another_repository_hides_main_written(guarded, tmp_path):
    """Open (SECURITY.md): git follows the linked worktree's ``.git`` file, and so does the search without
    git: pointed at another repository (not guarded), nothing leads back to this one's snapshot, and the
    after-check there says nothing. Limit: the next check in a work tree of this repository puts main back
    (a protected branch moved to a commit no counterpart has is recorded where it was)."""
    repo, _ = guarded
    wt = linked_worktree(repo, tmp_path)
    other = tmp_path / "other"
    repo.run("init", "-q", str(other))
    main, feat = repo.rev("main"), repo.rev("feat")
    assert repo.sh(write_ref(os.path.join(wt, ".git"), "gitdir: %s" % (other / ".git")) + " && "
                   + write_ref(os.path.join(repo.path, ".git", "refs", "heads", "main"), feat), cwd=wt).returncode == 0
    assert repo.rev("main") == feat
    rc, report = after_in(repo, wt)
    assert (rc, report["decision"], report["undone"], report["failed"]) == (0, "unchanged", [], []), report
    assert repo.rev("main") == feat, "closed: update SECURITY.md"
    pre_check(repo, "ls")  # the next call, in the main work tree
    rc, report = after(repo)
    assert rc == 3 and repo.rev("main") == main, report


def test_the_shortcut_sends_each_case_to_the_full_check(guarded, tmp_path):
    """``check --after`` without --json (the shortcut first, as every harness hook runs it) is not quiet."""
    from test_quiet_after import quiet
    repo, _ = guarded
    feat = repo.rev("feat")
    config = os.path.join(repo.path, ".git", "config")
    with open(config) as fh:
        original = fh.read()
    for damage in (python_edit(".git/config", "bare = false", "bare = true"),
                   python_edit(".git/config", "[core]\n", "[core]\n\tworktree = %s\n" % tmp_path),
                   write_ref(".git/HEAD", "garbage")):
        drive(repo, damage + " && " + write_ref(".git/refs/heads/main", feat))
        assert not quiet(repo), damage
        proc = runtime(repo, "--after")
        assert proc.returncode in (1, 3) and "agentguard" in proc.stdout + proc.stderr, (damage, proc)
        with open(config, "w") as fh:
            fh.write(original)
        with open(os.path.join(repo.path, ".git", "HEAD"), "w") as fh:
            fh.write("ref: refs/heads/main\n")
        runtime(repo, "--after")


def test_a_guarded_repository_inside_another_one_is_not_taken_for_the_outer_one(guarded, tmp_path):
    """HEAD broken in a guarded repository that lies inside another repository: git, searching upwards,
    answers for the outer one (not guarded); the after-check must still speak for the inner one."""
    repo, _ = guarded
    repo.run("init", "-q", str(tmp_path), cwd=str(tmp_path))
    feat = repo.rev("feat")
    drive(repo, write_ref(".git/HEAD", "garbage") + " && " + write_ref(".git/refs/heads/main", feat))
    assert repo.run("rev-parse", "--show-toplevel").stdout.strip() == os.path.realpath(str(tmp_path))
    rc, report = after(repo)
    assert (rc, report["decision"]) == (1, "unrepaired"), report


def test_submodules_and_worktrees_are_ordinary_work(guarded, tmp_path):
    """A submodule's git dir carries core.worktree, a linked worktree is another work tree of the same git dir:
    adding them, and work in them (the guard installed in the submodule too), is never repaired."""
    repo, bare = guarded
    sub = tmp_path / "lib"
    repo.run("init", "-q", "-b", "main", str(sub))
    repo.run("commit", "-q", "--allow-empty", "-m", "lib", cwd=str(sub))
    steps = [(repo.path, "git -c protocol.file.allow=always submodule add -q %s lib" % sub),
             (repo.path, "git worktree add -q -b feat2 %s" % (tmp_path / "wt")),
             (os.path.join(repo.path, "lib"),
              "git switch -q -c topic && git commit -q --allow-empty -m 'in the submodule'"),
             (str(tmp_path / "wt"), "git commit -q --allow-empty -m 'in the worktree'")]
    for cwd, command in steps:
        if cwd.endswith("lib"):
            repo.agentguard("install", cwd=cwd)
            assert repo.run("config", "core.worktree", cwd=cwd).stdout.strip(), "a submodule without core.worktree"
        pre = runtime(repo, "--json", "--", command, cwd=cwd)
        assert pre.returncode in (0, 1) and json.loads(pre.stdout)["decision"] == "allow", (command, pre.stdout)
        proc = repo.sh(command, cwd=cwd)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        rc, report = after_in(repo, cwd)
        assert (rc, report["decision"], report["undone"], report["failed"]) == (0, "unchanged", [], []), (command,
                                                                                                         report)
    assert repo.run("log", "-1", "--format=%s", "feat2").stdout.strip() == "in the worktree"
    assert repo.run("log", "-1", "--format=%s", cwd=os.path.join(repo.path, "lib")).stdout.strip() == "in the submodule"
    assert rev_parse_bare(repo) == "false" and bare.rev("main") == repo.rev("main")
