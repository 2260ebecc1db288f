"""Where a repository's parts are: its work tree, its git dirs, where git reads its hooks, and
agentguard's home in it. One class for every engine and the installer, built one way from git's
answer to one ``rev-parse`` (``REV_PARSE``, run by whoever asks: the runtime with ``gitio``, the
installer with its own runner), or, for a repository a command is about to create, from what git
will make (``Layout.new``). (A plain class: dataclasses cost imports on every tool call.)"""
import os

HOME = "agentguard"  # agentguard's home: this folder of the git common dir (the runtime, the snapshot, the log)

# One process answers every field; the answers come one a line, in this order. In a bare
# repository (or from inside a git dir) git stops at --show-toplevel: the lines before it still come.
REV_PARSE = ["rev-parse", "--is-bare-repository", "--absolute-git-dir", "--git-common-dir", "--git-path", "hooks",
             "--show-toplevel"]


def home_of(common_dir):
    """agentguard's home in the repository whose git common dir is ``common_dir`` (or in a git
    template folder, whose contents git copies into every new git dir)."""
    return os.path.join(common_dir, HOME)


def common_dir_of(home):
    """The git common dir whose home ``home`` is (what a hook knows from where its runtime lies)."""
    return os.path.dirname(os.path.abspath(home))


class Layout:
    """One repository seen from one of its work trees (or, bare, from its git dir)."""

    __slots__ = ("top", "git_dir", "common_dir", "hooks_dir", "bare")

    def __init__(self, top, git_dir, common_dir, hooks_dir, bare=False):
        self.top = top  # the work tree's root; a bare repository's git dir (where git runs for it)
        self.git_dir = git_dir  # this work tree's git dir (a linked worktree's: <common_dir>/worktrees/<name>)
        self.common_dir = common_dir  # shared by every worktree: refs, config, agentguard's home
        self.hooks_dir = hooks_dir  # where git reads hooks (`--git-path hooks`: core.hooksPath counts)
        self.bare = bare

    @property
    def ag_home(self):
        return home_of(self.common_dir)

    @property
    def linked(self):
        """A linked worktree (``git worktree add``), not the main one."""
        return self.git_dir != self.common_dir

    @property
    def worktree(self):
        """Which work tree this is: None for the main one, a linked worktree's name (its folder under
        ``<common_dir>/worktrees``), else (a git dir git keeps elsewhere) its git dir."""
        if not self.linked:
            return None
        if os.path.dirname(self.git_dir) == os.path.join(self.common_dir, "worktrees"):
            return os.path.basename(self.git_dir)
        return self.git_dir

    def display(self, path):
        """``path`` relative to the work tree when inside it, for messages."""
        from .textsafe import safe
        rel = os.path.relpath(path, self.top)
        return safe(path if rel.startswith("..") else rel, 300)

    def with_top(self, top):
        """The same repository seen from the work tree at ``top``."""
        return Layout(top, self.git_dir, self.common_dir, self.hooks_dir, self.bare)

    def to_json(self):
        return {"top": self.top, "git_dir": self.git_dir, "common_dir": self.common_dir, "hooks_dir": self.hooks_dir}

    @classmethod
    def from_json(cls, data):
        """The layout ``to_json`` wrote (a work tree's: not bare)."""
        return cls(**data)

    @classmethod
    def new(cls, path, bare):
        """The layout ``git init``/``git clone`` gives a repository at ``path`` (it does not exist yet)."""
        git_dir = path if bare else os.path.join(path, ".git")
        return cls(path, git_dir, git_dir, os.path.join(git_dir, "hooks"), bare)

    def __eq__(self, other):
        return isinstance(other, Layout) and all(getattr(self, f) == getattr(other, f) for f in self.__slots__)

    def __hash__(self):
        return hash(tuple(getattr(self, f) for f in self.__slots__))

    def __repr__(self):
        return "Layout(%s)" % ", ".join("%s=%r" % (f, getattr(self, f)) for f in self.__slots__)


def says_bare(out):
    """git's --is-bare-repository answer in ``REV_PARSE`` output (bytes): True, False, or None (no answer)."""
    first = out.split(b"\n", 1)[0]
    return True if first == b"true" else False if first == b"false" else None


def parse(cwd, rc, out):
    """The Layout in git's answer (``rc``, stdout bytes) to ``REV_PARSE`` run in ``cwd``, with every path
    real (as install records them: a cwd reached through a symlink must find the same files); None
    when there is no repository, or no work tree around a git dir that is not bare."""
    lines = out.decode("utf-8", "surrogateescape").split("\n")
    bare = says_bare(out)
    if len(lines) < 4 or bare is None or (not bare and (rc != 0 or not lines[4:5] or not lines[4])):
        return None
    git_dir, common_dir, hooks_dir = (os.path.realpath(os.path.join(cwd, p)) for p in lines[1:4])
    top = git_dir if bare else os.path.realpath(os.path.join(cwd, lines[4]))
    return Layout(top, git_dir, common_dir, hooks_dir, bare)


_ANSWERS: "dict | None" = None  # {(real cwd, git_dir, environment): Layout or None} once ``share_answers`` ran


def for_check():
    """This process is an ``agentguard check``: the agent's ``GIT_*`` variables taken out of its
    environment (``gitio.run`` hands ``os.environ`` to every git it starts: GIT_DIR & co. never point
    the check elsewhere), and git's answers shared (``share_answers``)."""
    from .gitio import scrubbed_env
    for key in os.environ.keys() - scrubbed_env().keys():
        del os.environ[key]
    share_answers()


def share_answers():
    """From now on, this process asks git once per directory and environment (``check``: the analyser
    and the snapshot it records before the call runs ask about the same repository, nothing changes it
    in between), and lists its config once (``guardconfig.listing``). Off by default: a process that changes
    a repository (install, the doctor) asks again."""
    global _ANSWERS
    _ANSWERS = {}
    from .guardconfig import share_listings
    share_listings()


def at(cwd, git_dir=None, env=None):
    """The Layout of the repository at ``cwd`` (or of the one whose git dir is ``git_dir``), asked of
    git in one process with ``env``; None when there is none."""
    from . import gitio
    answers, key = _ANSWERS, None
    if answers is not None:
        key = (os.path.realpath(cwd), git_dir, tuple(sorted((os.environ if env is None else env).items())))
        if key in answers:
            return answers[key]
    rc, out = gitio.run((["--git-dir", git_dir] if git_dir else []) + REV_PARSE, cwd=cwd, env=env)
    found = parse(cwd, rc, out)
    if answers is not None:
        answers[key] = found
    return found
