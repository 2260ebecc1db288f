"""The doctor's config questions come from one ``git config --list`` per repository (``configlist``): each
answer must be byte for byte what git itself answers, at every level git reads (global, local, included
files), for the keys that pass and the keys that fail a check; a config git cannot list is asked of git."""
import os

import pytest

from agentguard.installer.doctor import checks
from agentguard.installer.doctor.runner import Doctor
from agentguard.installer.gitaccess import configlist
from agentguard.installer.gitaccess.gitenv import git

GLOBAL = """[core]
\thooksPath = /elsewhere/hooks
[alias]
\tci = commit --no-verify
\tSt = status
[Hook "Lint"]
\tcommand = echo lint
\tevent = pre-commit
[init]
\ttemplateDir = ~/tmpl
[url "agw::/x"]
\tpushInsteadOf = /x
"""
LOCAL = """[alias]
\tremote-agw = !echo not ours
\tvaluless
[include]
\tpath = {inc}
[includeIf "gitdir:{top}/"]
\tpath = {inc2}
[remote "Up.Stream"]
\turl = /srv/up stream.git
\tpushurl = agw::/srv/up.git
\tpushurl = /srv/second.git
[credential]
\thelper = store
[filter "lfs"]
\tclean = git-lfs clean -- %f
[init]
\ttemplateDir
"""
INCLUDED = "[alias]\n\tsneak = -c core.hooksPath=/dev/null commit\n[core]\n\tfsmonitor = /bin/true\n"
INCLUDED2 = "[hook \"x\"]\n\tcommand = echo \xff\xfe\n[diff \"a.b\"]\n\ttextconv = cat\n"


@pytest.fixture
def configured(make_repo, env, tmp_path, monkeypatch):
    repo, _ = make_repo()
    with open(os.path.join(env["HOME"], ".gitconfig"), "a") as fh:
        fh.write(GLOBAL)
    inc, inc2 = tmp_path / "inc.cfg", tmp_path / "inc2.cfg"
    inc.write_text(INCLUDED)
    inc2.write_bytes(INCLUDED2.encode("latin-1"))
    with open(os.path.join(repo.path, ".git", "config"), "a") as fh:
        fh.write(LOCAL.format(inc=inc, inc2=inc2, top=os.path.realpath(repo.path)))
    for k in list(os.environ):
        monkeypatch.delenv(k)
    for k, v in repo.env.items():
        monkeypatch.setenv(k, v)  # the doctor reads its environment (HOME: the global config)
    return repo


def asked_in_a_doctor_run(repo, monkeypatch):
    """Every config question one doctor run puts (through ``ConfigList.ask``), and its checks."""
    asked = []
    real = configlist.ConfigList.ask

    def ask(self, args):
        asked.append(list(args))
        return real(self, args)
    monkeypatch.setattr(configlist.ConfigList, "ask", ask)
    d = Doctor(repo.path)
    d.run(live=False)
    return asked, {c.id: c for c in d.checks}


def test_every_config_question_of_the_doctor_is_answered_as_git_answers_it(configured, monkeypatch):
    asked, found = asked_in_a_doctor_run(configured, monkeypatch)
    forms = {tuple(a[:-1]) for a in asked}
    assert len(forms) >= 5 and any("--show-origin" in f for f in forms), forms
    listing = configlist.ConfigList(configured.path)
    assert listing.entries, "the listing must read"
    for args in asked:
        mine = listing.answer(args)
        assert mine is not None, args  # answered from the listing, not asked of git again
        assert mine.decode("utf-8", "surrogateescape").rstrip("\n") == git(args, cwd=configured.path, check=False), args
    # what the checks found in the global, local and included files, as when each asked git itself
    assert found["bypass.aliases"].status == "fail" and "alias.ci" in found["bypass.aliases"].summary
    assert found["bypass.hooks-path"].status == "warn"
    assert found["bypass.include"].status == "warn"
    assert found["bypass.config-hooks"].status == "warn"
    assert "not agentguard's" in found["push.guard"].summary


@pytest.mark.parametrize("args", [
    ["config", "--get", "ALIAS.st"], ["config", "--get", "hook.Lint.command"], ["config", "--get", "hook.lint.command"],
    ["config", "--get-all", "remote.Up.Stream.pushurl"], ["config", "--show-scope", "--get-all", "alias.valuless"],
    ["config", "-z", "--get-regexp", "^url\\."], ["config", "--get-regexp", "^diff\\..*"],
    ["config", "-z", "--show-scope", "--show-origin", "--get-regexp", "valuless|fsmonitor"],
    ["config", "--show-scope", "--get-regexp", "^init\\."], ["config", "--get", "no.such"],
])
def test_other_forms_of_a_question_also_match_git(configured, args):
    listing = configlist.ConfigList(configured.path)
    mine = listing.answer(args)
    assert mine is not None
    assert mine.decode("utf-8", "surrogateescape").rstrip("\n") == git(args, cwd=configured.path, check=False)


def test_a_config_git_cannot_list_is_asked_of_git_question_by_question(configured, monkeypatch):
    with open(os.path.join(configured.path, ".git", "config"), "a") as fh:
        fh.write("[broken\n")
    listing = configlist.ConfigList(configured.path)
    assert listing.entries is None
    calls = []
    real = configlist.git
    monkeypatch.setattr(configlist, "git", lambda args, **kw: calls.append(args) or real(args, **kw))
    args = ["config", "--get", "alias.ci"]
    assert listing.ask(args) == real(args, cwd=configured.path, check=False)
    assert calls == [args]


def test_a_form_not_answered_here_is_asked_of_git(configured):
    listing = configlist.ConfigList(configured.path)
    for args in (["config", "--show-origin", "--get-regexp", "alias"], ["config", "--type=bool", "--get", "core.bare"],
                 ["config", "--get-regexp", "("]):
        assert listing.answer(args) is None
        assert listing.ask(args) == git(args, cwd=configured.path, check=False)


def test_the_checks_ask_through_the_listing(configured, monkeypatch):
    """The checks' config questions go through one listing: git lists the config once per doctor run."""
    started = []
    real = checks.base.git
    monkeypatch.setattr(checks.base, "git", lambda args, **kw: started.append(args) or real(args, **kw))
    lists = []
    real_run = configlist.run
    monkeypatch.setattr(configlist, "run", lambda args, *a: lists.append(args) or real_run(args, *a))
    Doctor(configured.path).run(live=False)
    assert lists == [configlist.LIST]
    assert not [a for a in started if a[:1] == ["config"]]
