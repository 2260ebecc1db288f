"""Keeping the adapter files out of git: one marked block in the repository's own ignore file,
``<git common dir>/info/exclude`` (never committed, shared by every worktree), listing the files and
folders install created in the work trees. Ignored files do not show in ``git status`` and do not stop
``git clean -fd``, ``git stash -u`` or ``git worktree remove``. Uninstall takes the block out again and
leaves every other byte of the file as it was.

``install --shared`` (adapters a team commits) writes no block."""
import os

from ..errors import AgentguardError
from ..fsops import atomic_write, file_mode, read_regular
from ..gitaccess.gitenv import git

BEGIN = "# agentguard: adapter files (agentguard install; removed by agentguard uninstall)\n"
END = "# end agentguard\n"


_PATHS: dict = {}  # {(work tree, git dir, common dir): the exclude file}: install plans, then writes, asking once


def path_of(info):
    """Where git reads the repository's exclude file (``git rev-parse --git-path info/exclude``: it
    depends on the git dirs alone, the environment being scrubbed)."""
    key = (info.top, info.git_dir, info.common_dir)
    if key not in _PATHS:
        out = git(["rev-parse", "--git-path", "info/exclude"], cwd=info.top).rstrip("\n")
        _PATHS[key] = os.path.realpath(os.path.join(info.top, out))
    return _PATHS[key]


def tracked(info, rels):
    """The paths of ``rels`` (relative to the work tree) that git tracks in its index."""
    if not rels:
        return set()
    out = git(["ls-files", "-z", "--full-name", "--"] + [":(literal)" + rel for rel in rels], cwd=info.top)
    return {name for name in out.split("\0") if name}


def entry(rel):
    """The exclude line for a file install wrote: a folder that is all agentguard's (one named
    ``agentguard``) whole, so the caches its plugin leaves are ignored too; else the file itself.
    Anchored (``/``) at the work tree's top."""
    parts = rel.split("/")
    if "agentguard" in parts[:-1]:
        return "/" + "/".join(parts[:parts.index("agentguard") + 1]) + "/"
    return "/" + rel


def block(rels):
    """The block that lists ``rels`` ("" for none)."""
    lines = sorted({entry(rel) for rel in rels})
    return BEGIN + "".join(line + "\n" for line in lines) + END if lines else ""


def plan(info, previous, rels, change):
    """Plan the exclude file with the block for ``rels`` (through ``change(path, bytes)``); ``previous``
    is the record of the block an earlier install appended. Returns the new record (None: no block)."""
    target = path_of(info)
    current = read_regular(target)
    text = _text(current, target)
    old = previous if isinstance(previous, dict) and previous.get("path") == target else {}
    ours = old.get("block")
    wanted = block(rels)
    if ours and ours in text:
        if wanted and ours.lstrip("\n") == wanted:
            return dict(old)  # in place as it was (wherever the user's own lines are now)
        text = text.replace(ours, "", 1)
    created = bool(old.get("created")) if ours else current is None
    if not wanted:
        new = text.encode("utf-8") if current is not None else None
        if new != current:
            change(target, None if created and not new else new)
        return None
    sep = "" if not text or text.endswith("\n") else "\n"
    added = sep + wanted
    new = (text + added).encode("utf-8")
    if new != current:
        change(target, new)
    return {"path": target, "block": added, "created": created}


def uninstall(info, record, done, warnings):
    """Take the block install appended out of the exclude file (with no record of it, the lines from
    BEGIN to END: they are recognisably agentguard's)."""
    rec = record.get("exclude") if isinstance(record.get("exclude"), dict) else {}
    target, ours = rec.get("path"), rec.get("block")
    if not isinstance(target, str) or not isinstance(ours, str) or not ours:
        if rec or not os.path.isdir(info.common_dir):
            return
        target, ours = path_of(info), None
    try:
        current = read_regular(target)
    except AgentguardError as exc:
        warnings.append(str(exc))
        return
    text = (current or b"").decode("utf-8", "surrogateescape")
    if ours is None:
        start, end = text.find(BEGIN), text.find(END)
        if start < 0 or end < start:
            return
        ours = text[start:end + len(END)]
    if ours not in text:
        if current is not None and BEGIN in text:
            warnings.append("%s no longer holds agentguard's block as install wrote it; take the lines between "
                            "%r and %r out by hand" % (target, BEGIN.strip(), END.strip()))
        return
    rest = text.replace(ours, "", 1).encode("utf-8", "surrogateescape")
    if not rest and rec.get("created"):
        os.unlink(target)
    else:
        atomic_write(target, rest, file_mode(target))
    done.append("took agentguard's adapter files out of %s" % target)


def _text(data, target):
    try:
        return (data or b"").decode("utf-8")
    except UnicodeDecodeError:
        raise AgentguardError("%s is not UTF-8 text; agentguard cannot list its adapter files there (run "
                              "install with --shared, or fix the file)" % target)
