"""A day with agentguard, every layer on (issue #25): `agentguard install --harness all` (hooks, the push
guard, post-checkout, every adapter), ordinary work driven exactly as the adapters drive it (the
harness's pre-call hook, the command, its post-call hook: the hook commands install wrote, run by sh
with the harness's own payload) and a person's plain git. Each agent step must be allowed, exit 0,
have nothing undone by the after-check, and do what it says; each day ends with the doctor passing
and `git status` clean in every work tree. A defect of the day is a failing step here."""
import itertools
import json
import os
import subprocess

import pytest

from agentguard.hooks.harness.registry import PROTOCOLS
from harnesscalls import CALLS, after_hook, hook
from helpers import Git, _base_env, allow_on_pty

HARNESSES = tuple(PROTOCOLS)  # every harness whose hook runs the hook command, in turn


class Agent:
    """One agent: each call goes through one harness's hooks, in turn, as the harness runs them."""

    def __init__(self, harnesses=HARNESSES):
        self.turn = itertools.cycle(harnesses)

    def pre(self, repo, cwd, command):
        harness = next(self.turn)
        proc = hook(repo, harness, CALLS[harness](command), cwd=cwd)
        assert proc.returncode == 0 and "deny" not in proc.stdout, \
            "%s refused %r: %s%s" % (harness, command, proc.stdout, proc.stderr)
        return harness

    def post(self, repo, cwd, harness, command):
        _, told = after_hook(repo, harness, CALLS[harness](command), cwd=cwd)
        assert told == "", "after %r the model was told: %s" % (command, told)

    def run(self, repo, command, cwd=None):
        """Pre-check, the command (sh, in ``cwd``), after-check: allowed, exit 0, nothing undone."""
        cwd = cwd or repo.path
        harness = self.pre(repo, cwd, command)
        proc = subprocess.run(["sh", "-c", command], cwd=cwd, env=repo.env, capture_output=True, text=True,
                              timeout=120)
        assert proc.returncode == 0, "%r failed (%d): %s%s" % (command, proc.returncode, proc.stdout, proc.stderr)
        self.post(repo, cwd, harness, command)
        return proc


def end_of_day(repo, *worktrees):
    """The doctor passes and every work tree's `git status` is clean."""
    proc = repo.agentguard("doctor", "--json", check=False)
    report = json.loads(proc.stdout)
    failed = [c for c in report["checks"] if c["status"] == "fail"]
    assert proc.returncode == 0 and report["ok"] and not failed, proc.stdout + proc.stderr
    runtime = [c for c in report["checks"] if c["id"] == "runtime.files"]
    assert [c["status"] for c in runtime] == ["pass"], runtime  # the hooks run the compiled runtime
    for path in (repo.path,) + worktrees:
        status = repo.run("status", "--porcelain", "--untracked-files=all", cwd=path).stdout
        assert status == "", "git status in %s is not clean:\n%s" % (path, status)


@pytest.fixture
def world(tmp_path):
    """(env, root): a person's HOME with git set up, and a folder for their projects."""
    home = tmp_path / "home"
    home.mkdir()
    env = _base_env(home)
    return env, tmp_path


def bare(root, env, name):
    path = str(root / name)
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", path], env=env, check=True)
    return Git(path, env)


def write(repo, name, text, cwd=None):
    with open(os.path.join(cwd or repo.path, name), "w") as fh:
        fh.write(text)


def project(world, name="proj", remote=True):
    """An installed project with main on its remote (set up as a person would, before the day)."""
    env, root = world
    path = str(root / name)
    subprocess.run(["git", "init", "-q", "-b", "main", path], env=env, check=True)
    repo = Git(path, env)
    repo.commit("initial")
    origin = None
    if remote:
        origin = bare(root, env, name + ".git")
        repo.run("remote", "add", "origin", origin.path)
        repo.run("push", "-q", "-u", "origin", "main")
    repo.agentguard("install", "--harness", "all")
    return repo, origin


def merge_on_the_remote(root, env, origin, branch, name="forge"):
    """What a pull request's merge button does: main on the remote gains a merge of ``branch``."""
    path = str(root / name)
    subprocess.run(["git", "clone", "-q", origin.path, path], env=env, check=True)
    forge = Git(path, env)
    forge.run("merge", "-q", "--no-ff", "-m", "Merge " + branch, "origin/" + branch)
    forge.run("push", "-q", "origin", "main")
    return forge.rev("HEAD")


# -- the days ----------------------------------------------------------------------------------------

def test_a_new_project_from_git_init_to_its_first_push(world):
    env, root = world
    path = str(root / "proj")
    subprocess.run(["git", "init", "-q", "-b", "main", path], env=env, check=True)
    repo = Git(path, env)
    repo.agentguard("install", "--harness", "all")
    agent = Agent()
    write(repo, "README.md", "# proj\n")
    agent.run(repo, "git add README.md && git commit -q -m 'First commit'")
    first = repo.rev("main")
    assert first and repo.run("symbolic-ref", "HEAD").stdout.strip() == "refs/heads/main"
    origin = bare(root, env, "proj.git")
    agent.run(repo, "git remote add origin %s && git push -q -u origin main" % origin.path)
    assert origin.rev("main") == first
    agent.run(repo, "git switch -q -c feature/login")
    write(repo, "login.py", "def login(): pass\n")
    agent.run(repo, "git add login.py && git commit -q -m 'Add login'")
    agent.run(repo, "git push -q -u origin feature/login")
    merged = merge_on_the_remote(root, env, origin, "feature/login")
    agent.run(repo, "git switch -q main && git pull -q --ff-only")
    assert repo.rev("main") == merged
    agent.run(repo, "git branch -q -d feature/login && git push -q origin --delete feature/login")
    agent.run(repo, "git fetch -q --prune")
    assert origin.rev("refs/heads/feature/login") is None
    end_of_day(repo)


def test_a_branch_a_merge_on_the_remote_pull_and_clean_up(world):
    env, root = world
    repo, origin = project(world)
    agent = Agent()
    agent.run(repo, "git switch -q -c fix/typo")
    write(repo, "initial.txt", "fixed\n")
    agent.run(repo, "git commit -q -am 'Fix typo'")
    agent.run(repo, "git push -q -u origin fix/typo")
    # a person, on main, merges the branch by habit: refused, and index and work tree are as they were
    repo.run("switch", "-q", "main")
    write(repo, "notes.txt", "mine\n")
    before = repo.rev("main")
    proc = repo.run("merge", "fix/typo", check=False)
    assert proc.returncode != 0 and "your index and work tree are as before" in proc.stderr, proc.stderr
    assert repo.rev("main") == before and repo.run("status", "--porcelain").stdout == "?? notes.txt\n"
    os.unlink(os.path.join(repo.path, "notes.txt"))
    merged = merge_on_the_remote(root, env, origin, "fix/typo")
    agent.run(repo, "git fetch -q origin && git switch -q main && git merge -q --ff-only origin/main")
    assert repo.rev("main") == merged
    agent.run(repo, "git branch -q -d fix/typo && git push -q origin :fix/typo && git remote prune origin")
    agent.run(repo, "git log --oneline -3 && git status --short")
    end_of_day(repo)


def test_parallel_agents_in_worktrees(world):
    env, root = world
    repo, origin = project(world)
    one, two = Agent(("claude", "codex")), Agent(("gemini", "copilot"))
    wt1, wt2 = str(root / "wt-one"), str(root / "wt-two")
    one.run(repo, "git worktree add -q %s -b agent/one" % wt1)
    two.run(repo, "git worktree add -q %s -b agent/two" % wt2)
    # at the same time: both pre-checks, both commands, the after-checks in the other order
    h1 = one.pre(repo, wt1, "git add . && git commit -q -m one")
    h2 = two.pre(repo, wt2, "git add . && git commit -q -m two")
    write(repo, "one.txt", "1\n", cwd=wt1)
    write(repo, "two.txt", "2\n", cwd=wt2)
    for cwd in (wt1, wt2):
        repo.run("add", ".", cwd=cwd)
        repo.run("commit", "-q", "-m", os.path.basename(cwd), cwd=cwd)
    two.post(repo, wt2, h2, "git add . && git commit -q -m two")
    one.post(repo, wt1, h1, "git add . && git commit -q -m one")
    # one agent adds a third worktree while the other is in the middle of a call
    h2 = two.pre(repo, wt2, "git push -q -u origin agent/two")
    wt3 = str(root / "wt-three")
    one.run(repo, "git worktree add -q %s -b agent/three" % wt3)
    repo.run("push", "-q", "-u", "origin", "agent/two", cwd=wt2)
    two.post(repo, wt2, h2, "git push -q -u origin agent/two")
    one.run(repo, "git push -q -u origin agent/one", cwd=wt1)
    assert origin.rev("agent/one") and origin.rev("agent/two")
    one.run(repo, "git worktree remove %s" % wt1)
    one.run(repo, "git worktree remove %s" % wt3)
    two.run(repo, "git worktree remove %s && git worktree prune" % wt2)
    assert not os.path.exists(wt1) and not os.path.exists(wt2)
    end_of_day(repo)


def test_remotes_added_later(world):
    env, root = world
    repo, origin = project(world)
    upstream = Git(str(root / "upstream.git"), env)  # the project's upstream, forked from the same history
    subprocess.run(["git", "clone", "-q", "--bare", origin.path, upstream.path], env=env, check=True)
    other = str(root / "upstream-clone")
    subprocess.run(["git", "clone", "-q", upstream.path, other], env=env, check=True)
    Git(other, env).commit("upstream work")
    Git(other, env).run("push", "-q", "origin", "main")
    agent = Agent()
    agent.run(repo, "git remote add upstream %s && git fetch -q upstream" % upstream.path)
    end_of_day(repo)  # the doctor is green without a reinstall
    agent.run(repo, "git switch -q -c feature/sync")
    write(repo, "sync.txt", "sync\n")
    agent.run(repo, "git add sync.txt && git commit -q -m sync")
    agent.run(repo, "git rebase -q upstream/main")
    agent.run(repo, "git push -q -u upstream feature/sync")
    assert upstream.rev("feature/sync") == repo.rev("feature/sync")
    agent.run(repo, "git commit -q --amend -m 'sync, reworded'")
    agent.run(repo, "git push -q --force-with-lease upstream feature/sync")
    assert upstream.rev("feature/sync") == repo.rev("feature/sync")
    agent.run(repo, "git push -q origin feature/sync")
    assert origin.rev("feature/sync") == repo.rev("feature/sync")
    # the remote added after install is guarded in git's transport at once
    before = upstream.rev("main")
    proc = repo.run("push", "--no-verify", "upstream", "feature/sync:main", check=False)
    assert proc.returncode != 0 and "agentguard" in proc.stdout + proc.stderr
    assert upstream.rev("main") == before
    end_of_day(repo)


def test_housekeeping_deletes_caches_cleans_stashes_and_gcs_without_a_refusal(world):
    env, root = world
    repo, origin = project(world)
    agent = Agent()
    os.makedirs(os.path.join(repo.path, "pkg", "__pycache__"))
    write(repo, os.path.join("pkg", "__pycache__", "mod.cpython-311.pyc"), "x")
    write(repo, "build.log", "log\n")
    compiled = os.path.join(repo.path, ".git", "agentguard", "runtime", "hooks.marshal")
    kept = open(compiled, "rb").read()
    agent.run(repo, "find . -name '*.pyc' -delete")
    assert not os.path.exists(os.path.join(repo.path, "pkg", "__pycache__", "mod.cpython-311.pyc"))
    assert open(compiled, "rb").read() == kept  # the runtime keeps no .pyc: nothing of the guard's was taken
    assert agent.run(repo, "git config --get core.bare").stdout == "false\n"  # reading it is ordinary
    agent.run(repo, "git rev-parse --is-bare-repository --show-toplevel")
    agent.run(repo, "find . -name '*.log' -type f -delete")
    assert not os.path.exists(os.path.join(repo.path, "build.log"))
    write(repo, "scratch.txt", "tmp\n")
    agent.run(repo, "git clean -fdq")
    assert not os.path.exists(os.path.join(repo.path, "scratch.txt"))
    write(repo, "wip.txt", "wip\n")
    agent.run(repo, "git stash -q -u")
    assert not os.path.exists(os.path.join(repo.path, "wip.txt"))
    agent.run(repo, "git stash pop -q")
    assert os.path.exists(os.path.join(repo.path, "wip.txt"))
    os.unlink(os.path.join(repo.path, "wip.txt"))
    agent.run(repo, "git gc -q && git pack-refs --all && git prune")
    agent.run(repo, "git switch -q -c chore/x && git switch -q main && git branch -q -D chore/x")
    end_of_day(repo)


def test_a_team_that_tracks_harness_settings(world):
    env, root = world
    path = str(root / "team")
    subprocess.run(["git", "init", "-q", "-b", "main", path], env=env, check=True)
    repo = Git(path, env)
    os.makedirs(os.path.join(path, ".claude"))
    os.makedirs(os.path.join(path, ".gemini"))
    team_claude = {"permissions": {"allow": ["Bash(npm test)"]}}
    team_gemini = {"general": {"vimMode": False}}
    write(repo, os.path.join(".claude", "settings.json"), json.dumps(team_claude, indent=2) + "\n")
    write(repo, os.path.join(".gemini", "settings.json"), json.dumps(team_gemini, indent=2) + "\n")
    repo.commit("initial")
    repo.run("add", ".claude/settings.json", ".gemini/settings.json")
    repo.run("commit", "-q", "-m", "team settings")
    origin = bare(root, env, "team.git")
    repo.run("remote", "add", "origin", origin.path)
    repo.run("push", "-q", "-u", "origin", "main")
    repo.agentguard("install", "--harness", "all")
    assert repo.run("status", "--porcelain").stdout == "", "install left a tracked file modified"
    agent = Agent()
    agent.run(repo, "git switch -q -c feature/team")
    write(repo, "work.txt", "work\n")
    agent.run(repo, "git add -A && git commit -q -m work")
    assert repo.run("show", "--stat", "--format=", "HEAD").stdout.strip().endswith("1 insertion(+)")
    agent.run(repo, "git switch -q main")
    end_of_day(repo)  # switching back kept every adapter


def test_a_release_with_the_break_glass(world):
    """Agents prepare the release on a branch; a person allows one push of main in their own terminal,
    pushes, and local main follows; the next push to main is refused again, nothing lost."""
    env, root = world
    repo, origin = project(world)
    agent = Agent()
    agent.run(repo, "git switch -q -c release/1.0")
    write(repo, "CHANGELOG.md", "## 1.0\n")
    agent.run(repo, "git add CHANGELOG.md && git commit -q -m 'Release 1.0'")
    agent.run(repo, "git push -q -u origin release/1.0")
    status, out = allow_on_pty(repo, "main", "--minutes", "5")
    assert status == 0, out
    agent.run(repo, "git status --short")  # an agent's call in between: the person's grant stands
    repo.run("fetch", "-q", "origin")
    repo.run("push", "-q", "origin", "release/1.0:main")  # the person's push
    assert origin.rev("main") == repo.rev("release/1.0")
    agent.run(repo, "git switch -q main && git pull -q --ff-only && git tag v1.0 && git push -q origin v1.0")
    assert repo.rev("main") == origin.rev("main") == origin.rev("v1.0^{commit}")
    repo.run("switch", "-q", "-c", "after-release")
    repo.commit("after the release")
    before = origin.rev("main")
    proc = repo.run("push", "origin", "after-release:main", check=False)
    assert proc.returncode != 0 and "agentguard" in proc.stderr and origin.rev("main") == before
    repo.run("switch", "-q", "main")
    end_of_day(repo)


def test_uninstall_and_reinstall(world):
    env, root = world
    repo, origin = project(world)
    repo.agentguard("uninstall")
    config = open(os.path.join(repo.path, ".git", "config"), "rb").read()
    assert b"agw" not in config
    assert repo.run("status", "--porcelain").stdout == ""
    repo.agentguard("install", "--harness", "all")
    end_of_day(repo)
    repo.agentguard("uninstall")
    assert open(os.path.join(repo.path, ".git", "config"), "rb").read() == config
    repo.agentguard("install", "--harness", "all")
    for damage in ("missing", "corrupt"):
        manifest = os.path.join(repo.path, ".git", "agentguard", "manifest.json")
        if damage == "missing":
            os.unlink(manifest)
        else:
            with open(manifest, "w") as fh:
                fh.write("{corrupt")
        repo.agentguard("uninstall", check=False)
        listing = repo.run("config", "--list").stdout
        assert "agw" not in listing, (damage, listing)
        repo.run("switch", "-q", "-c", "after/" + damage)
        repo.commit("after " + damage)
        repo.run("push", "-q", "origin", "after/" + damage)  # git keeps working
        assert origin.rev("after/" + damage) == repo.rev("HEAD")
        repo.run("switch", "-q", "main")
        assert repo.run("status", "--porcelain").stdout == ""
        repo.agentguard("install", "--harness", "all")
        end_of_day(repo)


def test_a_day_at_the_guards_edges(world):
    """#29's look-alikes, every layer on: reading `.git` (shell and Python), a script written and then
    run (in one call and two calls apart), a job left running in the repository, a `-c` program that is
    ordinary, the local-path remote read, cloned and pushed to, and a person's own editor set between
    calls (a program setting in ~/.gitconfig: accepted). Nothing refused, nothing undone."""
    env, root = world
    repo, origin = project(world)
    agent = Agent()
    agent.run(repo, "cat .git/HEAD && ls .git/hooks && python3 -c \"import os; print(open('.git/refs/heads/main')"
                    ".read(), sorted(os.listdir('.git/hooks')))\"")
    agent.run(repo, "printf 'echo built > build.out\\n' > build.sh && sh build.sh && test -s build.out "
                    "&& rm build.sh build.out")
    agent.run(repo, "printf '#!/bin/sh\\necho ok\\n' > tool.sh && chmod +x tool.sh")
    assert agent.run(repo, "./tool.sh && rm tool.sh").stdout == "ok\n"
    agent.run(repo, "setsid -f sleep 1")  # a watcher started by the agent: named, never undone
    repo.run("config", "--global", "core.editor", "true")  # the person, between calls
    agent.run(repo, "git -c core.pager=cat log -1 --oneline && git ls-remote origin >/dev/null")
    agent.run(repo, "git clone -q %s %s" % (origin.path, root / "copy"))
    agent.run(repo, "git switch -q -c docs/edges")
    write(repo, "EDGES.md", "edges\n")
    agent.run(repo, "git add EDGES.md && git commit -q -m 'Edges' && git push -q -u origin docs/edges")
    assert origin.rev("refs/heads/docs/edges") == repo.rev("docs/edges")
    agent.run(repo, "git status --short")
    assert repo.run("config", "--global", "core.editor").stdout.strip() == "true"
    end_of_day(repo)


def test_a_day_from_a_subdirectory_with_the_persons_protocol_rules(world):
    """Last round's features in a day: the harness runs its settings command in a subdirectory of the work
    tree (not its top), and the person's own `protocol.file.allow=always` stands over the local-path
    remote the pushes go to. Nothing refused, nothing undone, git status clean."""
    env, root = world
    repo, origin = project(world)
    repo.run("config", "--global", "protocol.file.allow", "always")  # the person's, before the day
    sub = os.path.join(repo.path, "src", "app")
    os.makedirs(sub)
    agent = Agent()
    agent.run(repo, "git switch -q -c feature/app", cwd=sub)
    write(repo, "app.py", "print('app')\n", cwd=sub)
    agent.run(repo, "git add app.py && git commit -q -m 'Add the app'", cwd=sub)
    agent.run(repo, "git push -q -u origin feature/app", cwd=sub)
    assert origin.rev("refs/heads/feature/app") == repo.rev("feature/app")
    write(repo, "app.py", "print('app, v2')\n", cwd=sub)
    agent.run(repo, "git commit -q -am 'App v2' && git push -q && git status --short", cwd=sub)
    agent.run(repo, "git push -q origin feature/app")  # from the top, nothing to send
    assert origin.rev("refs/heads/feature/app") == repo.rev("feature/app")
    assert origin.rev("main") == repo.rev("main")
    agent.run(repo, "git fetch -q origin && git log -1 --oneline origin/feature/app", cwd=sub)
    assert repo.run("config", "--global", "protocol.file.allow").stdout.strip() == "always"
    end_of_day(repo)
