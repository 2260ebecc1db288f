"""The git model (hooks/gitmodel): unit tests per parser, and each one checked against what the
git under test really does."""
import json
import os
import re
import subprocess

import pytest

from agentguard.hooks.gitmodel import cli, options, refnames, remotes
from agentguard.installer.gitaccess import gitoptions

HERE = os.path.dirname(os.path.abspath(__file__))
SHIPPED = os.path.join(HERE, "..", "hooks", "gitmodel", "options.json")


# -- the option table: git's own answer ---------------------------------------------------------
@pytest.fixture(scope="module")
def derived():
    return gitoptions.derive("git")


def test_shipped_table_knows_every_option_of_the_git_under_test(derived):
    """options.json is what the supported gits say; regenerate it with
    `python -m agentguard.installer.gitaccess.gitoptions hooks/gitmodel/options.json git <other git>`."""
    with open(SHIPPED) as fh:
        shipped = json.load(fh)["commands"]
    missing = []
    for cmd, entry in derived["commands"].items():
        have = shipped.get(cmd, {"long": {}, "short": {}})
        varies = set(have.get("varies", ()))  # the supported gits disagree: only the name must be known
        for name, arity in entry["long"].items():
            if have["long"].get(name) != arity and not (name in varies and name in have["long"]):
                missing.append("%s --%s (%s)" % (cmd, name, arity))
        for letter, spec in entry["short"].items():
            if have["short"].get(letter) != spec and not ("-" + letter in varies and letter in have["short"]):
                missing.append("%s -%s %s" % (cmd, letter, spec))
    assert not missing, "options.json is stale for %s: %s" % (derived["git"], missing[:20])


def test_derived_table_reads_values_optional_values_and_negations(derived):
    fetch = derived["commands"]["fetch"]
    assert fetch["long"]["depth"] == "r" and fetch["short"]["j"] == ["jobs", "r"]
    assert fetch["long"]["all"] == "n" and fetch["short"]["o"] == ["server-option", "r"]
    assert derived["commands"]["pull"]["long"]["rebase"] == "o"
    assert derived["commands"]["commit"]["short"]["n"] == ["no-verify", "n"]
    assert derived["commands"]["commit"]["long"]["gpg-sign"] == "o"
    assert derived["commands"]["worktree add"]["short"]["b"] == ["", "r"]
    assert "add" in derived["commands"]["remote"]["subcommands"]


def test_help_parser_on_both_help_styles():
    old = "    -j, --jobs <n>        number\n    --no-tags  x\n    -S, --gpg-sign[=<key-id>]\n    -n  y\n"
    new = "    -j, --[no-]jobs[=<n>] number\n    --[no-]progress  p\n    -b <branch>  create\n"
    a, b = gitoptions.parse_help(old), gitoptions.parse_help(new)
    assert a["long"] == {"jobs": "r", "no-tags": "n", "gpg-sign": "o"}
    assert a["short"] == {"j": ["jobs", "r"], "S": ["gpg-sign", "o"], "n": ["", "n"]}
    assert b["long"] == {"jobs": "o", "no-jobs": "n", "progress": "n", "no-progress": "n"}
    assert b["short"] == {"j": ["jobs", "o"], "b": ["", "r"]}


def test_install_snapshots_the_table_and_the_hooks_read_it(make_repo):
    repo, _ = make_repo()
    path = os.path.join(repo.path, ".git", "agentguard", options.TABLE_FILE)
    with open(path) as fh:
        data = json.load(fh)
    assert data["git"] == repo.run("--version").stdout.strip()
    home = os.path.dirname(path)
    # a snapshot option unknown to the shipped table decides how the hooks read a command line
    data["commands"]["fetch"]["long"]["made-up"] = "r"
    with open(path, "w") as fh:
        json.dump(data, fh)
    options._tables.clear()
    try:
        assert cli.parse(["git", "fetch", "--made-up", "x", "origin"], home).words() == ["origin"]
        assert cli.parse(["git", "fetch", "--made-up", "x", "origin"]).words() == ["x", "origin"]
    finally:
        options._tables.clear()


def test_a_broken_snapshot_falls_back_to_the_shipped_table(tmp_path):
    (tmp_path / options.TABLE_FILE).write_text("{not json")
    options._tables.clear()
    try:
        assert cli.parse(["git", "fetch", "--depth", "1", "origin"], str(tmp_path)).words() == ["origin"]
    finally:
        options._tables.clear()


# -- command lines -------------------------------------------------------------------------------
PARSES = [
    # argv after "git", command, {option: value}, positionals
    ("fetch --depth 1 origin", "fetch", {"depth": "1"}, ["origin"]),
    ("fetch -j 4 origin", "fetch", {"jobs": "4"}, ["origin"]),
    ("fetch -qj4 origin main", "fetch", {"quiet": None, "jobs": "4"}, ["origin", "main"]),
    ("fetch -qj 4 origin", "fetch", {"quiet": None, "jobs": "4"}, ["origin"]),
    ("fetch --dep=2 --filter blob:none origin", "fetch", {"depth": "2", "filter": "blob:none"}, ["origin"]),
    ("fetch origin --upload-pack /x/y -o opt main", "fetch", {"upload-pack": "/x/y", "server-option": "opt"},
     ["origin", "main"]),
    ("fetch --negotiation-tip main --shallow-since 2020-01-01 origin", "fetch",
     {"negotiation-tip": "main", "shallow-since": "2020-01-01"}, ["origin"]),
    ("pull --rebase origin main", "pull", {"rebase": None}, ["origin", "main"]),
    ("pull -j 4", "pull", {"jobs": None}, ["4"]),  # optional value: git reads "4" as the remote
    ("push -o ci.skip --force-with-lease origin HEAD:main", "push", {"push-option": "ci.skip",
                                                                     "force-with-lease": None},
     ["origin", "HEAD:main"]),
    ("commit -am fix", "commit", {"all": None, "message": "fix"}, []),
    ("commit -mn", "commit", {"message": "n"}, []),
    ("-C /tmp -c a.b=c --no-pager log -3 main", "log", {}, ["main"]),
    ("--git-dir=/x --work-tree /y status -s", "status", {"short": None}, []),
    ("worktree add -b feat ../wt main", "worktree", {"-b": "feat"}, ["../wt", "main"]),
]


@pytest.mark.parametrize("line,cmd,opts,words", PARSES, ids=[p[0] for p in PARSES])
def test_command_line_options_and_words_read_as_git_reads_them(line, cmd, opts, words):
    call = cli.parse_after_git(line.split())
    assert call.cmd == cmd
    got = {o.name: o.value for o in call.options if o.name in opts}
    assert got == opts and call.words() == words


def test_negation_and_abbreviation():
    call = cli.parse_after_git("commit -n --verify -m x".split())
    assert not call.has("--no-verify") and not call.has("-n")
    assert cli.parse_after_git("commit --no-verif -m x".split()).has("--no-verify")
    assert cli.parse_after_git("commit -m x -n".split()).has("--no-verify")
    assert cli.parse_after_git("push -n origin".split()).has("--dry-run")  # push's -n is not --no-verify
    assert not cli.parse_after_git("push -n origin".split()).has("--no-verify")
    assert cli.parse_after_git("fetch --no-tags origin".split()).has("--no-tags")


def test_dashdash_and_subcommands():
    call = cli.parse_after_git("fetch --tags -- http://h/r.git +refs/heads/*:refs/remotes/origin/*".split())
    assert call.dashdash == 0 and call.positionals[0] == "http://h/r.git"
    call = cli.parse_after_git("remote -v add -f up /x".split())
    assert (call.cmd, call.sub, call.words()) == ("remote", "add", ["up", "/x"])
    call = cli.parse_after_git("reset --hard -- main".split())
    assert call.dashdash == 0 and call.words() == []


def test_dashed_form_and_exec_a():
    assert cli.parse(["/usr/lib/git-core/git-fetch", "--depth", "1", "origin"]).words() == ["origin"]
    assert cli.parse(["anything", "fetch", "origin"]).cmd == "fetch"


def test_global_options_cover_gits_usage_line(env):
    usage = subprocess.run(["git", "--help"], env=env, capture_output=True, text=True).stdout
    usage = usage.split("\n\n", 1)[0]
    listed = set(re.findall(r"(--?[a-zA-Z][a-zA-Z-]*)", usage))
    known = cli.GLOBAL_VALUE | cli.GLOBAL_EQ_ONLY | cli.GLOBAL_FLAGS | {"-v", "--version", "-h", "--help"}
    assert listed - known == set()


@pytest.mark.parametrize("option", sorted(cli.GLOBAL_VALUE - {"-c", "--config-env", "--attr-source"}))
def test_global_value_options_take_a_separate_word(option, make_repo):
    """What the table says of each global option is what git does: `git <opt> <value> rev-parse`
    runs rev-parse (the value was consumed) rather than failing on an unknown command."""
    repo, _ = make_repo(remote=False, install=False)
    value = {"-C": ".", "--git-dir": ".git", "--work-tree": ".", "--namespace": "ns",
             "--super-prefix": "x/"}[option]
    proc = repo.run(option, value, "rev-parse", "--git-dir", check=False)
    assert "is not a git command" not in proc.stderr, proc.stderr


# -- refspecs and ref names ------------------------------------------------------------------------
def test_refspec_parts():
    spec = refnames.Refspec("+refs/heads/*:refs/remotes/origin/*")
    assert (spec.force, spec.src, spec.dst, spec.is_glob) == (True, "refs/heads/*", "refs/remotes/origin/*", True)
    assert refnames.Refspec("main").dst is None and refnames.Refspec(":main").src == ""
    assert refnames.Refspec("^refs/heads/x").negative


@pytest.mark.parametrize("dst", ["newb", "heads/hb", "remotes/origin/rb", "tags/tb", "refs/other/ob"])
def test_fetch_destination_expands_as_git_does(dst, make_repo):
    repo, _ = make_repo(install=False)
    repo.run("fetch", "-q", "origin", "main:%s" % dst)
    written = refnames.fetch_dst(dst)
    assert repo.run("rev-parse", "--verify", "-q", written, check=False).stdout.strip() == repo.rev("main")
    if dst.startswith("remotes/"):
        assert repo.rev("refs/heads/" + dst) is None


@pytest.mark.parametrize("name", ["main", "heads/main", "origin/main", "remotes/origin/main", "refs/heads/main"])
def test_rev_names_expand_as_git_does(name, make_repo):
    repo, _ = make_repo(install=False)
    full = repo.run("rev-parse", "--symbolic-full-name", name).stdout.strip()
    assert full in refnames.candidates(name)
    # git picks the first candidate that exists
    existing = [c for c in refnames.candidates(name) if repo.rev(c) and c.startswith("refs/")]
    assert existing[0] == full


def test_fetch_sources_and_branch_names():
    tracking = "refs/remotes/origin/main"
    assert refnames.fetch_sources_of(refnames.Refspec("+refs/heads/*:refs/remotes/origin/*"), tracking) == \
        ["refs/heads/main"]
    assert refnames.fetch_sources_of(refnames.Refspec("+feat:remotes/origin/main"), tracking) == ["feat"]
    assert refnames.fetch_sources_of(refnames.Refspec("main"), tracking) == []
    assert refnames.names_branch("heads/main", "main") and refnames.names_branch("main", "main")
    assert not refnames.names_branch("a" * 40, "main") and refnames.is_object_id("abc1234")


def test_remote_named_by_url(tmp_path):
    bare = tmp_path / "r.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    named = {"origin": str(bare), "up": "https://example.com/a/b.git"}
    assert remotes.resolve("origin", named) == ["origin"]
    assert remotes.resolve(str(bare) + "/", named) == ["origin"]
    assert remotes.resolve("file://" + str(bare), named) == ["origin"]
    assert remotes.resolve("https://example.com/a/b.git/", named) == ["up"]
    assert remotes.resolve("https://example.com/a/b", named) == []  # may be another repository there
    assert remotes.resolve("https://example.com/a/c.git", named) == []
