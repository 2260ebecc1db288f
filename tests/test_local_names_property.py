"""The local side of #26's property: odd fetch sources and destinations (a tag and a branch both
named main, `heads/`, full names, a symbolic ref on the remote, letter case, forces, globs), symbolic
and hand-written tracking refs, then the fast-forward an agent would make from origin/main. Each
example runs in a guarded clone and in a clone without agentguard: whatever git does, the guarded
clone's main ends where it was or at the remote's main, and origin/main is the remote's or what it was;
where the control run moved main only to the remote's main by a plain fetch of refs/heads/main, the
guarded run does the same (no false block)."""
import os
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import Git, fresh_home


class World:
    """A remote with main one commit ahead of the clones, feat with the clone's local work, a tag
    named main at feat, `trunk -> main`; a guarded clone and a control clone on feat, copied afresh
    for every example."""

    def __init__(self, base, env):
        self.base, self.env = base, env
        self.remote = Git(str(base / "remote.git"), env)
        subprocess.run(["git", "init", "-q", "--bare", "-b", "main", self.remote.path], env=env, check=True)
        seed = Git(str(base / "seed"), env)
        subprocess.run(["git", "clone", "-q", self.remote.path, seed.path], env=env, check=True, capture_output=True)
        seed.commit("zero")
        seed.run("push", "-q", "origin", "main")
        self.templates = {}
        for name in ("control", "guarded"):
            clone = Git(str(base / ("template-" + name)), env)
            subprocess.run(["git", "clone", "-q", self.remote.path, clone.path], env=env, check=True,
                           capture_output=True)
            clone.run("switch", "-q", "-c", "feat")
            clone.commit("local work")
            if name == "guarded":
                clone.agentguard("install", "--no-adapters")
            self.templates[name] = clone
        # the remote moves on: main one ahead; feat (the local work) pushed; a tag named main at it
        seed.commit("someone else's work")
        seed.run("push", "-q", "origin", "main")
        control = self.templates["control"]
        control.run("push", "-q", "origin", "feat", "feat:refs/tags/main")
        self.remote.run("symbolic-ref", "refs/heads/trunk", "refs/heads/main")
        self.main0 = control.rev("refs/heads/main")
        self.main1 = self.remote.rev("refs/heads/main")
        self.feat = control.rev("refs/heads/feat")
        self.count = 0
        version = control.run("version").stdout.split()[2]
        self.git = tuple(int(part) for part in version.split(".")[:2])

    def fresh(self, name):
        self.count += 1
        path = self.base / ("%s-%d" % (name, self.count))
        shutil.copytree(self.templates[name].path, str(path), symlinks=True)
        return Git(str(path), self.env)


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    return World(*fresh_home(tmp_path_factory, "local-names"))


SRC = ["main", "heads/main", "refs/heads/main", "refs/tags/main", "tags/main", "feat", "trunk", "refs/heads/trunk",
       "MAIN", "refs/heads/*"]
DST = ["main", "heads/main", "refs/heads/main", "refs/remotes/origin/main", "remotes/origin/main", "MAIN",
       "refs/remotes/origin/MAIN", "trunk", "refs/heads/*", "refs/remotes/origin/*"]


def _fetch(force, src, dst):
    if ("*" in src) != ("*" in dst):
        src = src.rstrip("*") + "*" if "*" in dst else src
        dst = dst.rstrip("*") + "*" if "*" in src else dst
    return ["fetch", "-q", "origin", ("+" if force else "") + src + ":" + dst]


STEP = st.one_of(
    st.builds(_fetch, st.booleans(), st.sampled_from(SRC), st.sampled_from(DST)),
    st.just(["fetch", "-q", "origin"]),
    st.sampled_from([["symbolic-ref", "refs/remotes/origin/main", "refs/heads/feat"],
                     ["update-ref", "refs/remotes/origin/main", "feat"],
                     ["update-ref", "refs/heads/MAIN", "feat"],
                     ["branch", "-f", "trunk", "feat"]]))
FINISH = [["switch", "-q", "main"], ["merge", "-q", "--ff-only", "origin/main"]]


def _run(repo, steps):
    for step in steps + FINISH:
        repo.run(*step, check=False)
    out = repo.run("for-each-ref", "--format=%(refname) %(objectname) %(symref)", "refs/heads/main",
                   "refs/remotes/origin/main").stdout
    return {line.split(" ")[0]: tuple(line.split(" ")[1:]) for line in out.splitlines()}


@pytest.mark.slow
@settings(max_examples=30, deadline=None, derandomize=True, database=None)
@given(st.lists(STEP, min_size=1, max_size=3))
def test_property_local_main_moves_only_to_the_remotes_main(world, steps):
    guarded = _run(world.fresh("guarded"), steps)
    control = _run(world.fresh("control"), steps)
    why = (steps, guarded, control)
    main, symref = guarded["refs/heads/main"]
    assert main in (world.main0, world.main1) and not symref, why
    if "refs/remotes/origin/main" in guarded:
        tracking, symref = guarded["refs/remotes/origin/main"]
        # before git 2.46 `git symbolic-ref` passes no hook: the symbolic ref stays, and never counts
        assert (tracking in (world.main0, world.main1) and not symref) or (symref and world.git < (2, 46)), why
    plain = all(s[0] == "fetch" and (len(s) == 3 or s[3].lstrip("+").partition(":")[0] == "refs/heads/main")
                for s in steps)
    if plain and control["refs/heads/main"][0] == world.main1:
        assert main == world.main1, why


def test_the_world_is_what_the_property_assumes(world):
    """The control shows the shapes the property is about: without agentguard, the tag named main
    and a hand-written origin/main move main to the local work."""
    for steps in ([["fetch", "-q", "origin", "main:main"]], [["update-ref", "refs/remotes/origin/main", "feat"]]):
        assert _run(world.fresh("control"), steps)["refs/heads/main"][0] == world.feat, steps
        assert _run(world.fresh("guarded"), steps)["refs/heads/main"][0] in (world.main0, world.main1), steps
    assert os.path.isdir(world.remote.path)
