"""The committed ``.agentguard.toml``: read once, validated, never trusted to be well-formed."""
import os

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

from ..hooks.policy import DEFAULT_BRANCHES, MAX_REMOTES, Policy, PolicyError, pattern_problem, remote_problem
from ..hooks.repostate import REMOTE_KEYS, config_pairs, fetch_urls
from ..hooks.textsafe import safe
from .errors import AgentguardError
from .gitaccess.gitenv import clean_env, git

CONFIG_NAME = ".agentguard.toml"
MAX_SIZE = 64 * 1024
KNOWN = {"protect": {"branches"}}


def read_config(top):
    """(branches or None, warnings). Raises AgentguardError on a file that cannot be used."""
    path = os.path.join(top, CONFIG_NAME)
    if not os.path.lexists(path):
        return None, []
    if os.path.islink(path) or not os.path.isfile(path):
        raise AgentguardError("%s must be a regular file" % CONFIG_NAME)
    with open(path, "rb") as fh:
        raw = fh.read(MAX_SIZE + 1)
    if len(raw) > MAX_SIZE:
        raise AgentguardError("%s is larger than %d bytes" % (CONFIG_NAME, MAX_SIZE))
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise AgentguardError("%s is not UTF-8 text" % CONFIG_NAME)
    except tomllib.TOMLDecodeError as exc:
        raise AgentguardError("%s is not valid TOML: %s" % (CONFIG_NAME, safe(str(exc), 200)))
    warnings = []
    for key, value in data.items():
        if key not in KNOWN:
            warnings.append("%s: unknown section or key %r ignored" % (CONFIG_NAME, safe(key, 60)))
        elif not isinstance(value, dict):
            raise AgentguardError("%s: [%s] must be a table" % (CONFIG_NAME, key))
        else:
            for sub in value:
                if sub not in KNOWN[key]:
                    warnings.append("%s: unknown key %s.%s ignored" % (CONFIG_NAME, key, safe(sub, 60)))
    branches = data.get("protect", {}).get("branches")
    if branches is None:
        return None, warnings
    if not isinstance(branches, list):
        raise AgentguardError("%s: protect.branches must be a list of branch patterns" % CONFIG_NAME)
    try:
        Policy(branches)
    except PolicyError as exc:
        raise AgentguardError("%s: %s" % (CONFIG_NAME, safe(str(exc), 200)))
    return branches, warnings


def effective_policy(info, protect_option, remote_heads, refs=()):
    """--protect beats the committed config, which beats the default (main, master, remote HEADs).
    ``refs``: the repository's branch and remote-tracking refs, to warn about a pattern that
    matches none of them (a typo protects nothing today)."""
    warnings = []
    if protect_option:
        branches, source = list(protect_option), "--protect"
        _, warnings = _config_or_none(info.top)
    else:
        branches, warnings = read_config(info.top)
        source = CONFIG_NAME
        if branches is None:
            branches, source = list(DEFAULT_BRANCHES), "default"
            for name in remote_heads:
                if pattern_problem(name):
                    warnings.append("the remote's default branch %r cannot be used as a pattern; protect it "
                                    "with --protect" % safe(name, 80))
                elif name not in branches:
                    branches.append(name)
    try:
        policy = Policy(branches, source)
    except PolicyError as exc:
        raise AgentguardError("%s: %s" % (source, safe(str(exc), 200)))
    if source != "default" and refs:
        for pattern in policy.branches:
            alone = Policy([pattern])
            if not any(alone.classify(ref) for ref in refs):
                warnings.append("pattern %r (%s) matches no branch here yet; check its spelling (it will protect "
                                "a branch of that name when one appears)" % (safe(pattern, 80), source))
    unprotected = [h for h in remote_heads if not policy.is_protected(h)]
    for name in unprotected:
        warnings.append("the remote's default branch %r is not protected by %s" % (safe(name, 80), source))
    return policy, warnings


def _config_or_none(top):
    try:
        return read_config(top)
    except AgentguardError as exc:
        return None, ["%s (ignored: --protect given)" % exc]


# which config files git reads: kept, so that install and the doctor see the remotes as git's hooks will
CONFIG_FILE_VARS = ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM")


def configured_remotes(info, ask=None):
    """({name: the URL `git fetch <name>` reads}, warnings): the remotes protected branches will follow,
    by the repository's own config (the runtime's rule: ``repostate.fetch_urls``). ``ask(args)``: how to
    put the config question when none of ``CONFIG_FILE_VARS`` is set (the doctor's one listing, made
    in the environment git is asked in here then); default: git itself."""
    args = ["config", "-z", "--get-regexp", REMOTE_KEYS]
    kept = {k: os.environ[k] for k in CONFIG_FILE_VARS if k in os.environ}
    out = ask(args) if ask is not None and not kept else \
        git(args, cwd=info.top, check=False, env=dict(clean_env(), **kept))
    remotes, warnings = {}, []
    for name, url in sorted(fetch_urls(config_pairs(out)).items()):
        problem = remote_problem(name, url)
        if problem or len(remotes) >= MAX_REMOTES:
            warnings.append("%s: not recorded, so protected branches do not follow it"
                            % safe(problem or "remote %r is one too many" % name, 200))
        else:
            remotes[name] = url
    return remotes, warnings


def remote_changes(before, after):
    """How the remotes ``after`` ({name: fetch URL}) differ from those recorded ``before``, one phrase each."""
    notes = []
    for name in sorted(set(before) | set(after)):
        n = safe(name, 60)
        if name not in after:
            notes.append("remote '%s' is gone" % n)
        elif name not in before:
            notes.append("remote '%s' (%s) was added" % (n, safe(after[name], 200)))
        elif before[name] != after[name]:
            notes.append("remote '%s' fetches from %s, not from %s" % (n, safe(after[name], 200),
                                                                      safe(before[name], 200)))
    return notes
