"""``agentguard install --template``: every repository git creates from now on starts guarded.

git copies its template directory (``init.templateDir``) into the git dir of every repository that
``git init`` or ``git clone`` creates. agentguard's template holds what install's git side writes
there: the hooks (rendered by ``hookscripts.render``, as install renders them), the runtime copy
(byte-compiled), the recorded policy and the git option table, plus ``agentguard/template.json``,
the mark that says a repository (or a template directory) came from here. So ``git init x`` refuses
a protected branch's second commit with no other step, and ``git clone`` is guarded before its first
checkout (the post-checkout hook, where there is one, completes the clone with a full install).

The recorded policy has no remotes (``remotes`` absent): any remote's tracking refs count as a
protected branch's counterpart until ``agentguard install`` records the remotes of that repository;
an empty table would let no protected branch of a clone ever move.

The global config is changed by ``git config --file``; its bytes before and after are recorded next
to the template (``template-state.json``), so that uninstall writes back exactly what was there
(or, when the file changed since, removes only ``init.templateDir``).
"""
import base64
import json
import os
import shutil

from ...hooks.layout import HOME, home_of
from ...hooks.policy import DEFAULT_BRANCHES, POLICY_FILE, TEMPLATE_MARK, Policy, PolicyError
from ...hooks.textsafe import safe
from ...hooks.version import VERSION
from ..gitaccess import gitoptions
from ..errors import AgentguardError
from ..fsops import atomic_write, file_mode, read_regular, sha256_bytes
from ..gitaccess.gitenv import git, git_ok
from .hookscripts import HOOK_NAMES, render, tools
from .runtime_files import RUNTIME_DIR, runtime_files, write_runtime

KEY = "init.templateDir"
MARK = HOME + "/" + TEMPLATE_MARK  # in the template, and so in every git dir created from it
STATE_NAME = "template-state.json"
FORMAT = 1


def config_home():
    """``$XDG_CONFIG_HOME/agentguard`` (or ``~/.config/agentguard``)."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(os.path.abspath(base), "agentguard")


def template_dir():
    return os.path.join(config_home(), "git-template")


def _state_path():
    return os.path.join(config_home(), STATE_NAME)


def global_config_path():
    """The file ``git config --global`` writes: ``~/.gitconfig``, unless only the XDG file exists."""
    home = os.path.expanduser("~")
    user = os.path.join(home, ".gitconfig")
    xdg = os.path.join(os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config"), "git", "config")
    if not os.access(user, os.R_OK) and os.access(xdg, os.R_OK):
        return xdg
    return user


def configured():
    """[(origin, value)] of every ``init.templateDir`` in the system and global config, in git's order."""
    out = git(["config", "--show-origin", "-z", "--get-all", KEY], cwd="/", check=False)
    found = []
    items = out.split("\0")
    for origin, value in zip(items[0::2], items[1::2]):
        found.append((origin[len("file:"):] if origin.startswith("file:") else origin, value))
    return found


def expand(value):
    """A templateDir value as git reads it (``~/`` expanded), resolved."""
    return os.path.realpath(os.path.expanduser(value))


def read_mark(path):
    """The mark (a dict) of an agentguard template directory or git dir, or None."""
    try:
        data = read_regular(os.path.join(path, MARK), limit=64 * 1024)
        mark = json.loads(data.decode("utf-8")) if data is not None else None
    except (AgentguardError, OSError, ValueError, UnicodeDecodeError):
        return None
    return mark if isinstance(mark, dict) and mark.get("agentguard") == "template" else None


def template_problem(path):
    """None when ``path`` is agentguard's template as this agentguard would write it now; else why not
    (a sentence). Raises nothing."""
    mark = read_mark(path)
    if mark is None:
        return "%s is not agentguard's template" % safe(path, 200)
    try:
        policy = Policy(mark.get("branches") or [], mark.get("source") or "default")
    except PolicyError:
        return "agentguard's template in %s has an unreadable mark" % safe(path, 200)
    from .install import interpreter
    want = _marked_hooks(policy, interpreter())
    for rel in sorted(want):
        try:
            data = read_regular(os.path.join(path, rel))
        except AgentguardError:
            data = None
        if data != want[rel][0] or (data is not None and file_mode(os.path.join(path, rel)) != want[rel][1]):
            return ("agentguard's template in %s is out of date (%s; written by agentguard %s)"
                    % (safe(path, 200), rel, safe(mark.get("version"), 40)))
    return None


def _marked_hooks(policy, python):
    """{path relative to the template: (bytes, mode)} of the hooks and the mark: what the doctor
    compares (the mark names the version, which also stands for the runtime it came with)."""
    from .install import agentguard_bin
    files = {}
    for hook in HOOK_NAMES:
        files["hooks/" + hook] = (render(hook, policy, python, None, False, agentguard_bin()), 0o755)
    mark = {"agentguard": "template", "version": VERSION, "branches": policy.branches, "source": policy.source,
            "python": python, "tools": tools()}
    files[MARK] = ((json.dumps(mark, indent=2, sort_keys=True) + "\n").encode(), 0o644)
    return files


def _files(policy, python):
    """Everything the template holds: what install's git side writes into a git dir, and the mark."""
    files = _marked_hooks(policy, python)
    for rel, data in runtime_files().items():
        files["%s/%s/%s" % (HOME, RUNTIME_DIR, rel)] = (data, 0o644)
    files[HOME + "/" + POLICY_FILE] = (policy.dumps().encode(), 0o644)
    files[HOME + "/" + gitoptions.TABLE_FILE] = (gitoptions.table_bytes(), 0o644)
    return files


def _load_state():
    try:
        data = read_regular(_state_path(), limit=1 << 20)
        state = json.loads(data.decode("utf-8")) if data is not None else None
    except (AgentguardError, ValueError, UnicodeDecodeError):
        return None
    return state if isinstance(state, dict) and state.get("format") == FORMAT else None


def _foreign(found, target):
    """The first configured template that is not ``target`` (origin, value), or None."""
    for origin, value in found:
        if expand(value) != os.path.realpath(target):
            return origin, value
    return None


def install_template(protect, dry_run=False):
    """Write the template and point the global ``init.templateDir`` at it. Returns lines to print."""
    from .install import interpreter
    try:
        policy = Policy(protect or list(DEFAULT_BRANCHES), "--protect" if protect else "default")
    except PolicyError as exc:
        raise AgentguardError(str(exc))
    target = template_dir()
    found = configured()
    other = _foreign(found, target)
    if other is not None:
        raise AgentguardError("%s already sets init.templateDir = %s; agentguard will not replace another "
                              "template. Remove that setting (git config --global --unset init.templateDir) or "
                              "merge it by hand, then run install --template again"
                              % (safe(other[0], 200), safe(other[1], 200)))
    if os.path.lexists(target) and read_mark(target) is None:
        raise AgentguardError("%s exists and is not agentguard's template; move it away first" % safe(target, 200))
    files = _files(policy, interpreter())
    config = global_config_path()
    already = bool(found)
    branches = ", ".join(safe(b, 80) for b in policy.branches)
    if dry_run:
        lines = ["agentguard: dry run; would:", "  write %s (%d files: hooks %s; the runtime, the policy snapshot "
                 "and the git option table under agentguard/)" % (safe(target, 300), len(files), ", ".join(HOOK_NAMES))]
        if not already:
            lines.append("  set %s = %s in %s" % (KEY, safe(target, 300), safe(config, 300)))
        return lines + ["  protected branches: %s (%s)" % (branches, policy.source)]
    _write_tree(target, files)
    lines = ["agentguard: template written to %s" % safe(target, 300)]
    if already:
        lines.append("  %s already points at it; config unchanged" % KEY)
    else:
        before = read_regular(config)
        mode = file_mode(config) if before is not None else None
        git(["config", "--file", config, KEY, target], cwd="/")
        after = read_regular(config) or b""
        state = {"format": FORMAT, "config": config, "template": target, "mode": mode,
                 "before": base64.b64encode(before).decode() if before is not None else None,
                 "after_sha256": sha256_bytes(after)}
        atomic_write(_state_path(), (json.dumps(state, indent=2, sort_keys=True) + "\n").encode())
        lines.append("  set %s in %s (it was not set; uninstall --template puts the file back as it was)"
                     % (KEY, safe(config, 300)))
    lines.append("  every git init and git clone from now on starts with agentguard's hooks, runtime and policy")
    lines.append("  a clone is completed by a full agentguard install (adapters, push guard) on its checkout")
    if os.environ.get("GIT_TEMPLATE_DIR"):
        lines.append("  warning: GIT_TEMPLATE_DIR is set in this environment and overrides %s for git run here"
                     % KEY)
    lines.append("  protected branches: %s (%s)" % (branches, policy.source))
    return lines


def _write_tree(target, files):
    """Write the template (its compiled runtime among ``files``) beside ``target``, then swap it in (the old
    one removed)."""
    parent = os.path.dirname(target)
    os.makedirs(parent, exist_ok=True)
    fresh = target + ".new"
    old = target + ".old"
    for leftover in (fresh, old):
        if os.path.lexists(leftover) and read_mark(leftover) is not None:
            shutil.rmtree(leftover)
        elif os.path.lexists(leftover):
            raise AgentguardError("%s is in the way; move it away first" % safe(leftover, 200))
    write_runtime([(os.path.join(fresh, rel), data, mode) for rel, (data, mode) in sorted(files.items())],
                  os.path.join(home_of(fresh), RUNTIME_DIR))
    if os.path.lexists(target):
        os.rename(target, old)
    os.rename(fresh, target)
    if os.path.lexists(old):
        shutil.rmtree(old)


def uninstall_template():
    """Put the global config back as it was and remove the template. Returns (lines, warnings)."""
    target = template_dir()
    state = _load_state()
    lines, warnings = [], []
    found = configured()
    ours = [(origin, value) for origin, value in found if expand(value) == os.path.realpath(target)]
    if state is None and not ours and not os.path.lexists(target):
        return ["agentguard: no template installed; nothing changed"], []
    if found and not ours:
        warnings.append("%s no longer points at agentguard's template (%s); left as it is"
                        % (KEY, safe(found[-1][1], 200)))
    if state is not None:
        config = state.get("config")
        current = read_regular(config) if isinstance(config, str) else None
        before = base64.b64decode(state["before"]) if state.get("before") is not None else None
        if isinstance(config, str) and current is not None and sha256_bytes(current) == state.get("after_sha256"):
            if before is None:
                os.unlink(config)
                lines.append("removed %s (install --template created it)" % safe(config, 300))
            else:
                atomic_write(config, before, state.get("mode") or 0o644)
                lines.append("restored %s as it was before install --template" % safe(config, 300))
            ours = [(o, v) for o, v in ours if os.path.realpath(o) != os.path.realpath(config)]
        elif isinstance(config, str) and current is not None and ours:
            warnings.append("%s changed since install --template; only its %s entry is removed"
                            % (safe(config, 300), KEY))
    for origin, _ in ours:
        if git_ok(["config", "--file", origin, "--unset-all", KEY], cwd="/"):
            lines.append("removed %s from %s" % (KEY, safe(origin, 300)))
    if os.path.lexists(target):
        if read_mark(target) is not None:
            shutil.rmtree(target)
            lines.append("removed %s" % safe(target, 300))
        else:
            warnings.append("%s is not agentguard's template; left in place" % safe(target, 300))
    try:
        os.unlink(_state_path())
    except FileNotFoundError:
        pass
    try:
        os.rmdir(config_home())
    except OSError:
        pass  # other files of agentguard's (or the user's) are there
    lines.insert(0, "agentguard: template uninstalled; new repositories are no longer guarded from the start")
    return lines, warnings
