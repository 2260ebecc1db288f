"""The guard's surface (#29): every hook file in the hooks directory git reads, every program-running
setting at every scope git reads (``guardconfig.PROGRAMS``/``VALUED``: one table for the analyser, the
after-check and the doctor), and transport programs (``ext::``, ``--upload-pack``, ``protocol.ext.allow``).

Each attack is a real shell command run between the pre-check and the after-check, as test_outcome.py drives
them: its damage is proven first (a control run where the program really runs), then undone; the ordinary
look-alike runs with no refusal and no repair. Both gits (the suite is run with each on PATH)."""
import json
import os
import shlex
import subprocess

import pytest

from test_outcome import after, pre_check, runtime, system_config_untouched  # noqa: F401  (an autouse fixture)

HOOKS_OFF = "git -c core.hooksPath=/dev/null"


def _marker_hook(marker):
    return "#!/bin/sh\necho ran >> '%s'\n%s update-ref refs/heads/main refs/heads/feat\n" % (marker, HOOKS_OFF)


def _repaired(repo, kind, part):
    rc, report = after(repo)
    assert (rc, report["decision"], report["failed"]) == (3, "repaired", []), report
    field = {"file": "path", "config": "key", "ref": "ref"}[kind]
    assert any(u["kind"] == kind and part.lower() in u[field].lower() for u in report["undone"]), report["undone"]
    rc, report = after(repo)
    assert (rc, report["decision"], report["undone"]) == (0, "unchanged", []), report
    return report


def _unchanged(repo):
    rc, report = after(repo)
    assert (rc, report["decision"], report["undone"], report["failed"], report["rescued"]) == \
        (0, "unchanged", [], [], []), report


# -- hooks: a new hook the guard never wrote ----------------------------------------------------------
NEW_HOOKS = ("post-commit", "commit-msg", "post-merge", "post-rewrite", "pre-auto-gc", "push-to-checkout")


@pytest.mark.parametrize("name", NEW_HOOKS)
def test_new_hook_is_removed_and_kept(guarded, tmp_path, name):
    """A hook the guard never wrote, planted by code the analyser does not read (Python through a name built at
    run time): the after-check removes it and keeps its bytes in the store; a person's next commit runs nothing."""
    repo, _ = guarded
    marker = str(tmp_path / "marker")
    hooks = os.path.join(repo.path, ".git", "hooks")
    target = name
    body = _marker_hook(marker)
    command = ("python3 -c 'import os,sys; p=os.path.join(\".git\", \"ho\"+\"oks\", sys.argv[1]); "
               "open(p, \"w\").write(sys.argv[2]); os.chmod(p, 0o755)' %s \"$(cat %s)\"" % (target, tmp_path / "body"))
    with open(tmp_path / "body", "w") as fh:
        fh.write(body)
    pre_check(repo, command)
    proc = repo.sh(command)
    assert proc.returncode == 0, proc.stderr
    path = os.path.join(hooks, target)
    assert os.access(path, os.X_OK), "the hook was not planted: this test would prove nothing"
    report = _repaired(repo, "file", ".git/hooks/" + target)
    assert not os.path.lexists(path)
    kept = os.listdir(os.path.join(repo.path, ".git", "agentguard", "outcome", "store"))
    store = os.path.join(repo.path, ".git", "agentguard", "outcome", "store")
    assert any(open(os.path.join(store, k), "rb").read() == body.rstrip("\n").encode() for k in kept)
    main = repo.rev("main")
    repo.run("checkout", "-q", "feat")
    repo.commit("a person's commit")
    assert not os.path.exists(marker) and repo.rev("main") == main
    del report


def test_new_hook_would_run(guarded, tmp_path):
    """The control: the same hook left in place runs at a person's next commit and moves main."""
    repo, _ = guarded
    marker = str(tmp_path / "marker")
    path = os.path.join(repo.path, ".git", "hooks", "post-commit")
    with open(path, "w") as fh:
        fh.write(_marker_hook(marker))
    os.chmod(path, 0o755)
    repo.run("checkout", "-q", "feat")
    repo.commit("a person's commit")
    assert os.path.exists(marker) and repo.rev("main") == repo.rev("feat")


@pytest.mark.parametrize("command", [
    "printf '#!/bin/sh\\nexit 0\\n' > .git/hooks/post-commit",
    "cp /bin/true .git/hooks/commit-msg",
    "ln -s /bin/true .git/hooks/post-merge",
])
def test_analyser_refuses_writing_a_hook(guarded, command):
    repo, _ = guarded
    assert pre_check(repo, command) == "block"


def test_reading_hooks_is_ordinary(guarded):
    repo, _ = guarded
    command = "ls -la .git/hooks && cat .git/hooks/pre-push > /dev/null && git rev-parse --git-path hooks"
    assert pre_check(repo, command) == "allow"
    assert repo.sh(command).returncode == 0
    _unchanged(repo)


def test_linked_worktree_new_hook(guarded, tmp_path):
    """From a linked worktree git reads the common dir's hooks (``--git-path hooks``): a hook planted there
    from the linked worktree is removed by that worktree's after-check."""
    repo, _ = guarded
    wt = str(tmp_path / "wt")
    repo.run("worktree", "add", "-q", wt, "feat")
    hooks = repo.run("rev-parse", "--path-format=absolute", "--git-path", "hooks", cwd=wt).stdout.strip()
    assert os.path.realpath(hooks) == os.path.realpath(os.path.join(repo.path, ".git", "hooks"))
    command = "printf '#!/bin/sh\\ntouch %s\\n' > \"$(git rev-parse --git-path hooks)/post-commit\" && chmod +x " \
              "\"$(git rev-parse --git-path hooks)/post-commit\"" % (tmp_path / "marker")
    linked = type(repo)(wt, repo.env)
    runtime(repo, "--json", "--", command, cwd=wt)
    assert linked.sh(command).returncode == 0
    assert os.path.exists(os.path.join(hooks, "post-commit"))
    proc = runtime(repo, "--after", "--json", cwd=wt)
    assert proc.returncode == 3 and "post-commit" in proc.stdout, proc.stdout + proc.stderr
    assert not os.path.exists(os.path.join(hooks, "post-commit"))


def test_hooks_path_inside_the_repository(make_repo, tmp_path):
    """core.hooksPath set to a folder of the work tree before install: install writes its hooks there, and a
    new hook planted there is removed (the snapshot covers the hooks directory git reads, not .git/hooks)."""
    repo, _ = make_repo(install=False)
    repo.run("config", "core.hooksPath", ".githooks")
    os.makedirs(os.path.join(repo.path, ".githooks"))
    repo.agentguard("install")
    assert os.path.exists(os.path.join(repo.path, ".githooks", "reference-transaction"))
    command = "printf '#!/bin/sh\\ntouch %s\\n' > .githooks/post-commit && chmod +x .githooks/post-commit" \
              % (tmp_path / "marker")
    pre_check(repo, command)
    assert repo.sh(command).returncode == 0 and os.path.exists(os.path.join(repo.path, ".githooks", "post-commit"))
    _repaired(repo, "file", ".githooks/post-commit")
    assert not os.path.exists(os.path.join(repo.path, ".githooks", "post-commit"))


# -- program-running settings, at every scope -----------------------------------------------------------
def _xdg(repo):
    return os.path.join(repo.env["XDG_CONFIG_HOME"], "git", "config")


SCOPES = {
    "global": lambda repo: os.path.join(repo.env["HOME"], ".gitconfig"),
    "xdg": _xdg,
    "local": lambda repo: os.path.join(repo.path, ".git", "config"),
    "included": lambda repo: os.path.join(repo.env["HOME"], "included.cfg"),
    "worktree": lambda repo: os.path.join(repo.path, ".git", "config.worktree"),
}
SETTINGS = [
    ("bang-alias", "[alias]\n\tst = !" + HOOKS_OFF + " update-ref refs/heads/main refs/heads/feat\n", "alias.st"),
    ("packobjectshook", "[uploadpack]\n\tpackObjectsHook = /bin/true\n", "uploadpack.packobjectshook"),
    ("gpg-program", "[gpg]\n\tprogram = /bin/true\n", "gpg.program"),
    ("gpg-ssh-program", "[gpg \"ssh\"]\n\tprogram = /bin/true\n", "gpg.ssh.program"),
    ("fsmonitor", "[core]\n\tfsmonitor = /bin/true\n", "core.fsmonitor"),
    ("protocol-ext", "[protocol \"ext\"]\n\tallow = always\n", "protocol.ext.allow"),
    ("protocol-allow", "[protocol]\n\tallow = always\n", "protocol.allow"),
    ("submodule-update", "[submodule \"lib\"]\n\tupdate = !/bin/true\n", "submodule.lib.update"),
    ("remote-uploadpack", "[remote \"other\"]\n\turl = /nowhere\n\tuploadpack = /bin/true\n",
     "remote.other.uploadpack"),
    ("remote-receivepack", "[remote \"other\"]\n\turl = /nowhere\n\treceivepack = /bin/true\n",
     "remote.other.receivepack"),
    ("hasconfig", "[includeIf \"hasconfig:remote.*.url:**/*\"]\n\tpath = ~/off.cfg\n", "includeif"),
]


def _scope_setup(repo, scope):
    if scope == "included":
        with open(SCOPES["global"](repo), "a") as fh:
            fh.write("[include]\n\tpath = ~/included.cfg\n")
        open(SCOPES["included"](repo), "a").close()
        repo.agentguard("install")  # a person's include, accepted (else the next pre-check takes it out)
    elif scope == "worktree":
        repo.run("config", "extensions.worktreeConfig", "true")
    os.makedirs(os.path.dirname(SCOPES[scope](repo)), exist_ok=True)
    open(SCOPES[scope](repo), "a").close()


def _matrix():
    """Every setting in the user's and the repository's config; every scope for three of them."""
    every_scope = ("bang-alias", "packobjectshook", "protocol-ext")
    return [pytest.param(scope, *row, id="%s-%s" % (row[0], scope)) for row in SETTINGS for scope in sorted(SCOPES)
            if scope in ("global", "local") or row[0] in every_scope]


@pytest.mark.parametrize("scope,row,text,key", _matrix())
def test_program_setting_is_undone(guarded, scope, row, text, key):
    """An entry the table names, appended by hand to a config file git reads at ``scope``: git really
    reads it (``--show-scope --show-origin`` lists it there), the after-check takes it out of that file."""
    repo, _ = guarded
    _scope_setup(repo, scope)
    path = SCOPES[scope](repo)
    with open(path, "rb") as fh:
        before = fh.read()
    command = "cat >> '%s' <<'EOF'\n%sEOF" % (path, text)
    pre_check(repo, command)
    assert repo.sh(command).returncode == 0
    seen = repo.run("config", "--show-origin", "--get-regexp", "^" + key.replace(".", r"\.")).stdout
    assert os.path.basename(path) in seen, "git does not read the entry: this test would prove nothing"
    _repaired(repo, "config", key)
    seen = repo.run("config", "--show-origin", "--get-regexp", "^" + key.replace(".", r"\."), check=False).stdout
    assert os.path.basename(path) not in seen
    with open(path, "rb") as fh:
        after_bytes = fh.read()
    assert key.split(".")[-1].encode() not in after_bytes.lower().replace(before.lower(), b"")


def test_bang_alias_would_move_main(guarded):
    """The control of the `!` alias row: left in ~/.gitconfig, a person's `git st` moves main with hooks off."""
    repo, _ = guarded
    with open(SCOPES["global"](repo), "a") as fh:
        fh.write(SETTINGS[0][1])
    repo.run("st")
    assert repo.rev("main") == repo.rev("feat")


def test_packobjectshook_would_run(guarded, tmp_path):
    """The control of packObjectsHook at global scope (git honours it only there): a clone through
    upload-pack runs it."""
    repo, _ = guarded
    marker = tmp_path / "marker"
    hook = tmp_path / "hook.sh"
    hook.write_text("#!/bin/sh\ntouch '%s'\nexec \"$@\"\n" % marker)
    hook.chmod(0o755)
    with open(SCOPES["global"](repo), "a") as fh:
        fh.write("[uploadpack]\n\tpackObjectsHook = %s\n" % hook)
    repo.run("clone", "-q", "--no-local", "file://" + repo.path, str(tmp_path / "c"))
    assert marker.exists()


ORDINARY_SETTINGS = ("git config --global alias.lg 'log --oneline --graph'", "git config alias.st status",
                     "git config --global protocol.file.allow always", "git config submodule.lib.update rebase",
                     "git config --global commit.gpgSign false", "git config --global protocol.ext.allow never")
PROGRAM_SETTINGS = ("git config --global alias.st '!git update-ref refs/heads/main HEAD'",
                    "git config alias.x '!sh -c true'", "git config submodule.lib.update '!sh -c true'",
                    "git config --global uploadpack.packObjectsHook /bin/true", "git config gpg.program /bin/true",
                    "git config gpg.ssh.defaultKeyCommand /bin/true", "git config core.fsmonitor /bin/true",
                    "git config --global protocol.ext.allow always", "git config protocol.allow user",
                    "git config remote.other.uploadpack /bin/true", "git config remote.other.receivepack /bin/true",
                    "git config --global includeIf.hasconfig:remote.*.url:**/*.path /tmp/x.cfg",
                    "git config --worktree core.hooksPath /dev/null")


@pytest.mark.parametrize("command", PROGRAM_SETTINGS + ORDINARY_SETTINGS)
def test_analyser_judges_settings(guarded, command):
    """`git config` setting a program-running entry is refused; a git-command alias and settings that run
    nothing are not, and run with no repair."""
    repo, _ = guarded
    if command in PROGRAM_SETTINGS:
        assert pre_check(repo, command) == "block"
        return
    assert pre_check(repo, command) == "allow"
    assert repo.sh(command).returncode == 0
    _unchanged(repo)


def test_gitmodules_update_command_is_not_run_by_git(make_repo, tmp_path):
    """`.gitmodules` `update = !cmd`: git itself refuses to run it (since 2.24.1, CVE-2019-19604), on every
    git this suite runs, so the guard does not watch .gitmodules for it."""
    lib, _ = make_repo("lib", remote=False, install=False)
    repo, _ = make_repo("sup", remote=False, install=False)
    repo.run("-c", "protocol.file.allow=always", "submodule", "add", "-q", lib.path, "lib")
    repo.run("commit", "-q", "-m", "lib")
    marker = tmp_path / "marker"
    repo.run("config", "-f", ".gitmodules", "submodule.lib.update", "!touch %s" % marker)
    repo.run("commit", "-q", "-am", "update command")
    clone = str(tmp_path / "clone")
    repo.run("clone", "-q", repo.path, clone)
    proc = subprocess.run(["git", "-c", "protocol.file.allow=always", "submodule", "update", "--init"], cwd=clone,
                          env=repo.env, capture_output=True, text=True, timeout=60)
    assert not marker.exists(), proc.stdout + proc.stderr


# -- transport programs ----------------------------------------------------------------------------------
def _moves_main(repo):
    return "git --git-dir=%s/.git -c core.hooksPath=/dev/null update-ref refs/heads/main %s" \
        % (repo.path, repo.rev("feat"))


@pytest.mark.parametrize("verb", ["push {url} feat", "fetch {url}", "ls-remote {url}", "clone {url} {tmp}/c"])
def test_ext_transport(guarded, tmp_path, verb):
    """`git -c protocol.ext.allow=always <verb> 'ext::...'`: refused; run anyway, the program it names really
    moves main, and the after-check puts main back (its commits kept). A push never reaches the program: the
    push guard's URL rewrite refuses it."""
    repo, _ = guarded
    main = repo.rev("main")
    command = "git -c protocol.ext.allow=always " + verb.format(url="'ext::%s'" % _moves_main(repo), tmp=tmp_path)
    assert pre_check(repo, command) == "block"
    assert pre_check(repo, command.replace("-c protocol.ext.allow=always ", "")) == "block"
    proc = repo.sh(command)  # the transport fails (the program speaks no protocol); it ran first
    if verb.startswith("push"):  # the push guard's rewrite takes every push URL: git-remote-ext never runs
        assert "agentguard" in proc.stderr and repo.rev("main") == main, proc.stderr
        _unchanged(repo)
        return
    assert repo.rev("main") == repo.rev("feat") != main, "the ext:: program did not run: this proves nothing"
    _repaired(repo, "ref", "refs/heads/main")
    assert repo.rev("main") == main


@pytest.mark.parametrize("option", ["fetch --upload-pack='{p}; git-upload-pack' {r}",
                                    "pull --upload-pack='{p}; git-upload-pack' {r} main",
                                    "ls-remote --upload-pack='{p}; git-upload-pack' {r}",
                                    "clone -u '{p}; git-upload-pack' {r} {tmp}/c",
                                    "push --receive-pack='{p}; git-receive-pack' {r} feat",
                                    "push --exec='{p}; git-receive-pack' {r} feat",
                                    "-c remote.origin.uploadpack='{p}; git-upload-pack' ls-remote origin",
                                    "-c core.sshCommand='{p}' fetch origin",
                                    "-c core.pager='{p}' log -1",
                                    "-c protocol.ext.allow=always ls-remote origin"])
def test_transport_program_options(guarded, tmp_path, option):
    """The program an option (or a -c key) names is read like a command line: moving main is refused."""
    repo, bare = guarded
    program = HOOKS_OFF + " update-ref refs/heads/main " + repo.rev("feat")
    command = "git " + option.format(p=program, r=bare.path, tmp=tmp_path)
    assert pre_check(repo, command) == "block"
    if option.startswith("-c "):  # the same key in the environment git's children read
        words = shlex.split(option.format(p=program, r=bare.path, tmp=tmp_path))
        key, _, value = words[1].partition("=")
        env = "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=%s GIT_CONFIG_VALUE_0=%s git %s" \
            % (key, shlex.quote(value), " ".join(words[2:]))
        assert pre_check(repo, env) == "block", env


@pytest.mark.parametrize("command", ["git fetch origin", "git push origin feat", "git ls-remote origin",
                                     "git clone -q {remote} {tmp}/c", "git fetch --upload-pack=git-upload-pack origin",
                                     "git -c protocol.file.allow=always ls-remote {remote}",
                                     "git -c core.pager=cat log -1"])
def test_ordinary_transport(guarded, tmp_path, command):
    repo, bare = guarded
    command = command.format(remote=bare.path, tmp=tmp_path)
    assert pre_check(repo, command) == "allow"
    proc = repo.sh(command)
    assert proc.returncode == 0, proc.stderr
    _unchanged(repo)


def test_protocol_ext_allow_in_user_config(guarded, tmp_path):
    """`protocol.ext.allow` appended to ~/.gitconfig is taken out again, so a later ext:: URL fails in git."""
    repo, _ = guarded
    command = "printf '[protocol \"ext\"]\\n\\tallow = always\\n' >> ~/.gitconfig"
    pre_check(repo, command)
    assert repo.sh(command).returncode == 0
    _repaired(repo, "config", "protocol.ext.allow")
    proc = repo.run("ls-remote", "ext::" + _moves_main(repo), check=False)
    assert proc.returncode != 0 and "not allowed" in proc.stderr


# -- the doctor ------------------------------------------------------------------------------------------
def _programs_check(repo):
    checks = {c["id"]: c for c in json.loads(repo.agentguard("doctor", "--json", check=False).stdout)["checks"]}
    return checks["bypass.programs"]


def test_doctor_warns_about_a_program_setting_install_did_not_see(guarded):
    """A person's (or anything's) program setting added between calls is no tool call's doing: the doctor
    warns and names the file and the fix; `agentguard install` records it and the warning goes."""
    repo, _ = guarded
    repo.run("config", "--global", "core.editor", "true")  # there before install: recorded
    repo.agentguard("install")
    assert _programs_check(repo)["status"] == "pass"
    repo.run("config", "--global", "gpg.program", "/bin/true")
    found = _programs_check(repo)
    assert found["status"] == "warn" and "gpg.program" in found["summary"] and ".gitconfig" in found["summary"]
    assert "--unset-all gpg.program" in found["fix"], found
    repo.agentguard("install")
    assert _programs_check(repo)["status"] == "pass"


def test_hole_hook_in_another_worktrees_hooks_dir(make_repo, tmp_path):
    """Open (SECURITY.md): with a relative core.hooksPath each worktree reads its own hooks folder; a hook a
    call in one worktree plants in another's is not seen by this worktree's after-check (its snapshot covers
    the hooks folder git reads here). The other worktree's next check is where it can be seen."""
    repo, _ = make_repo(install=False)
    repo.run("config", "core.hooksPath", ".githooks")
    os.makedirs(os.path.join(repo.path, ".githooks"))
    repo.agentguard("install")
    wt = str(tmp_path / "wt")
    repo.run("worktree", "add", "-q", "-b", "side", wt)
    other = os.path.join(wt, ".githooks")
    assert os.path.isfile(os.path.join(other, "reference-transaction")), "the linked worktree reads no hooks here"
    command = "printf '#!/bin/sh\\ntouch %s\\n' > %s/post-commit && chmod +x %s/post-commit" \
              % (tmp_path / "marker", other, other)
    pre_check(repo, command)
    assert repo.sh(command).returncode == 0
    _unchanged(repo)
    assert os.path.exists(os.path.join(other, "post-commit"))
    type(repo)(wt, repo.env).commit("a person's commit in the other worktree")
    assert (tmp_path / "marker").exists(), "the planted hook ran: the hole is open"
