"""A work tree git no longer answers for as the after-check's snapshot recorded it (``snapshot.locate_guarded``,
on the rare path only): the snapshot found without git, and what git says of the place now."""
import os

from .. import gitio, layout
from ..saferead import read_regular
from . import store


def recorded(top):
    """The layout the stored snapshot of work tree ``top`` recorded, found without git: through its
    ``.git`` (the git dir, or the gitfile of a linked worktree and its git dir's ``commondir``), the
    places git itself would read. None unless that snapshot names exactly this work tree, git dir and
    common dir: a file the call wrote can point only where git would look anyway, and a snapshot
    there is trusted no more than ``after.run`` trusts the one git leads it to."""
    dotgit = os.path.join(top, ".git")
    if os.path.isdir(dotgit):
        git_dir = common_dir = os.path.realpath(dotgit)
    else:
        text = (read_regular(dotgit, 4096) or b"").decode("utf-8", "surrogateescape")
        if not text.startswith("gitdir: "):
            return None
        git_dir = os.path.realpath(os.path.join(top, text[len("gitdir: "):].rstrip("\r\n")))
        common = (read_regular(os.path.join(git_dir, "commondir"), 4096) or b"").decode("utf-8", "surrogateescape")
        common_dir = os.path.realpath(os.path.join(git_dir, common.rstrip("\r\n"))) if common.strip() else git_dir
    before = store.load(layout.home_of(common_dir), top)
    try:
        stored = layout.Layout.from_json(before["where"]) if before is not None else None
    except (TypeError, ValueError, KeyError):
        return None
    if stored is None or (stored.top, stored.git_dir, stored.common_dir) != (top, git_dir, common_dir):
        return None
    return stored


def lost_because(where):
    """None when git, asked again now (never a shared answer), sees the work tree ``where`` as the
    snapshot recorded it; else what it sees instead, in words."""
    rc, out = gitio.run(layout.REV_PARSE, cwd=where.top, env=gitio.scrubbed_env())
    now = layout.parse(where.top, rc, out)
    if now is None:
        return NO_REPOSITORY
    if now.bare:
        return "git reads it as a bare repository"
    if (now.top, now.git_dir, now.common_dir) != (where.top, where.git_dir, where.common_dir):
        return "git sees its work tree at %s and its git dir at %s" % (now.top, now.git_dir)
    return None


NO_REPOSITORY = "git sees no repository there"
