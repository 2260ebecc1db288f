"""Property-based tests (hypothesis) for the parsers and the policy matcher the hooks rely on: the
reference-transaction and pre-push line parsers, refspec helpers, git argv dispatch, branch patterns,
and the soundness of the sh fast path (it must never wave through a line the runtime has to see)."""
import subprocess

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from agentguard.hooks.gitmodel import cli as gitargv, refnames
from agentguard.hooks.policy import Policy, PolicyError, literal_prefix, validate_patterns
from agentguard.hooks.backstop.reflines import Malformed, PushLine, RefUpdate, parse_prepush, parse_reftx
from agentguard.installer.setup.hookscripts import reftx_ere, reftx_prefilter

HEX = "0123456789abcdef"
oid = st.one_of(st.text(HEX, min_size=40, max_size=40), st.text(HEX, min_size=64, max_size=64))
ZERO = "0" * 40
# characters git allows in ref names, plus a few it does not that still reach us as text
REF_CHARS = st.sampled_from(list("abcmainrelsx0123456789-_.") + ["é", "+", "@", "#"])
name_part = st.text(REF_CHARS, min_size=1, max_size=12).filter(lambda s: s.strip(".") and ".." not in s)
branch = st.lists(name_part, min_size=1, max_size=3).map("/".join)
refname = st.one_of(branch.map("refs/heads/".__add__), branch.map("refs/tags/".__add__),
                    st.tuples(name_part, branch).map(lambda t: "refs/remotes/%s/%s" % t),
                    st.sampled_from(["HEAD", "AUTO_MERGE", "ORIG_HEAD", "refs/stash"]))
value = st.one_of(oid, st.just(ZERO), refname.map("ref:".__add__))

# derandomized: CI runs the same examples every time (a new failure shows up here first, not as a flake)
SETTINGS = settings(max_examples=300, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.binary(max_size=2000))
def test_reftx_parser_never_raises_and_keeps_every_line(data):
    items = parse_reftx(data)
    lines = [ln for ln in data.decode("utf-8", "surrogateescape").split("\n") if ln.rstrip("\r").strip()]
    assert len(items) == len(lines)
    assert all(isinstance(i, (RefUpdate, Malformed)) for i in items)


@SETTINGS
@given(st.lists(st.tuples(value, value, refname), max_size=20), st.sampled_from(["\n", "\r\n"]))
def test_reftx_lines_round_trip(updates, eol):
    data = eol.join("%s %s %s" % u for u in updates) + (eol if updates else "")
    assert parse_reftx(data.encode()) == [RefUpdate(*u) for u in updates]


@SETTINGS
@given(st.lists(st.text(st.characters(blacklist_characters="\n\r"), max_size=60), max_size=10))
def test_reftx_a_line_is_an_update_only_when_it_is_exactly_three_valid_words(lines):
    for line, item in zip([ln for ln in lines if ln.strip()], parse_reftx("\n".join(lines))):
        if isinstance(item, RefUpdate):
            assert " ".join(item) == line and len(line.split(" ")) == 3


local_ref = st.text(st.characters(blacklist_characters="\n\r", blacklist_categories=("Cs",)), min_size=1,
                    max_size=30).filter(lambda s: s.strip() and not s.endswith(" "))


@SETTINGS
@given(st.lists(st.tuples(local_ref, oid, refname, oid), max_size=10))
def test_prepush_lines_round_trip_even_with_spaces_in_the_local_ref(pushes):
    data = "".join("%s %s %s %s\n" % p for p in pushes)
    assert parse_prepush(data) == [PushLine(*p) for p in pushes]


@SETTINGS
@given(st.binary(max_size=2000))
def test_prepush_parser_never_raises(data):
    assert all(isinstance(i, (PushLine, Malformed)) for i in parse_prepush(data))


# -- refspecs --------------------------------------------------------------------------------
spec_side = st.one_of(branch.filter(lambda b: not b.startswith("+")), branch.map("refs/heads/".__add__),
                      branch.map("heads/".__add__))


@SETTINGS
@given(st.booleans(), spec_side, st.one_of(st.none(), spec_side))
def test_refspec_split_round_trips(force, src, dst):
    spec = ("+" if force else "") + src + ("" if dst is None else ":" + dst)
    parsed = refnames.Refspec(spec)
    assert (parsed.force, parsed.src, parsed.dst) == (force, src, dst)


@SETTINGS
@given(st.booleans(), spec_side, name_part, branch)
def test_fetch_spec_into_remote_tracking_keeps_the_name_only_from_the_same_branch(force, src, remote, target):
    prefix = "refs/remotes/%s/" % remote
    spec = ("+" if force else "") + src + ":" + prefix + target
    src_branch = src[len("refs/heads/"):] if src.startswith("refs/heads/") else \
        src[len("heads/"):] if src.startswith("heads/") else src
    parsed = refnames.Refspec(spec)
    sources = refnames.fetch_sources_of(parsed, prefix + target)
    assert sources == [src]
    assert refnames.names_branch(sources[0], target) == (src_branch == target)
    assert refnames.fetch_sources_of(parsed, prefix + target + "-other") == []  # writes another name


# -- git argv, parsed as git dispatches --------------------------------------------------------
cmd_word = st.text("abcdefghijklmnopqrstuvwxyz-", min_size=1, max_size=12).filter(lambda s: not s.startswith("-"))
arg = st.text(max_size=20)
global_opt = st.one_of(
    st.tuples(st.sampled_from(sorted(gitargv.GLOBAL_VALUE)), arg).map(list),
    st.sampled_from(sorted(gitargv.GLOBAL_FLAGS)).map(lambda o: [o]),
    arg.map(lambda v: ["-c" + "x.y=" + v]),
    arg.map(lambda v: ["--git-dir=" + v]),
)


@SETTINGS
@given(st.lists(global_opt, max_size=5), cmd_word, st.lists(arg, max_size=6))
def test_git_argv_finds_the_command_after_any_global_options(globals_, cmd, args):
    argv = ["git"] + [w for opt in globals_ for w in opt] + [cmd] + args
    call = gitargv.parse(argv)
    assert call.cmd == cmd and call.args == args


@SETTINGS
@given(arg, cmd_word, st.lists(arg, max_size=6))
def test_argv0_cannot_pose_as_a_command_unless_git_dispatches_on_it(argv0, cmd, args):
    # exec -a: argv[0] is anything. Only the dashed form "git-<cmd>" (which git itself dispatches
    # on) selects a command; any other argv[0] is ignored and the words after it decide.
    call = gitargv.parse([argv0, cmd] + args)
    base = argv0.rsplit("/", 1)[-1]
    if base.startswith("git-") and len(base) > 4:
        assert call.cmd == base[4:]
    else:
        assert call.cmd == cmd and call.args == args


@SETTINGS
@given(st.lists(st.text(max_size=30), max_size=12))
def test_git_argv_parser_never_raises(argv):
    call = gitargv.parse(argv)
    call.words()
    call.has("-f", "--force", "--no-verify")
    call.values("-o", "--depth")


# -- branch patterns ---------------------------------------------------------------------------
pattern = st.one_of(branch, st.tuples(branch, st.sampled_from(["*", "/*", "-*", "?", "[0-9]*"])).map("".join))


@SETTINGS
@given(st.lists(st.one_of(st.text(max_size=30), st.integers(), st.none(), pattern), max_size=6))
def test_validate_patterns_accepts_or_raises_policy_error_only(patterns):
    try:
        result = validate_patterns(patterns)
    except PolicyError:
        return
    assert result and all(isinstance(p, str) for p in result)
    assert sorted(set(result)) == sorted(set(patterns))


def valid_policy(patterns):
    try:
        return Policy(patterns)
    except PolicyError:
        assume(False)


@SETTINGS
@given(st.lists(pattern, min_size=1, max_size=4), branch, branch)
def test_policy_matches_whole_names_and_classifies_consistently(patterns, name, remote):
    policy = valid_policy(patterns)
    protected = policy.is_protected(name)
    if protected:  # the fast path's prefilter looks for a pattern's literal prefix
        assert any(name.startswith(literal_prefix(p)) for p in policy.branches)
    if all(literal_prefix(p) == p for p in policy.branches):
        assert protected == (name in policy.branches)
    assert (policy.classify("refs/heads/" + name) is not None) == protected
    if protected:  # a remote name may contain "/": some split of it is protected (never fewer)
        kind = policy.classify("refs/remotes/%s/%s" % (remote, name))
        assert kind is not None and kind[0] == "remote"
        if "/" not in remote:
            assert kind == ("remote", remote, name)
    assert policy.classify("refs/tags/" + name) is None
    for lookalike in ("x" + name, name + "-docs", "feature/" + name):
        if not any(c in p for p in policy.branches for c in "*?["):
            assert not policy.is_protected(lookalike) or lookalike in policy.branches


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(st.lists(pattern, min_size=1, max_size=3), st.lists(st.tuples(value, value, refname), min_size=1,
                                                           max_size=24))
def test_sh_fast_path_never_skips_a_line_the_runtime_must_see(patterns, updates):
    """The hook's case patterns and its grep -E, run by the real sh and grep, flag every line that
    names a protected branch (local or remote-tracking) or deletes any branch."""
    policy = valid_policy(patterns)
    lines = ["%s %s %s" % u for u in updates]
    must = [bool(policy.classify(u[2])) or (u[1] == ZERO and u[2].startswith("refs/heads/")) for u in updates]
    script = ('while IFS= read -r ag_line; do case "$ag_line" in %s) echo slow ;; *) echo fast ;; esac; done'
              % reftx_prefilter(policy))
    out = subprocess.run(["sh", "-c", script], input="\n".join(lines) + "\n", capture_output=True, text=True,
                         timeout=30, check=True).stdout.split()
    assert len(out) == len(lines)
    for line, need, got in zip(lines, must, out):
        assert got == "slow" or not need, "case prefilter skipped %r" % line
    ere = subprocess.run(["sh", "-c", "grep -E %s" % reftx_ere(policy)], input="\n".join(lines) + "\n",
                         capture_output=True, text=True, timeout=30).stdout.splitlines()
    for line, need in zip(lines, must):
        assert line in ere or not need, "grep prefilter skipped %r" % line
