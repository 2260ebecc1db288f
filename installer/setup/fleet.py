"""``install --all`` and ``doctor --all``: every repository under some roots, one table.

Discovery walks each root to a bounded depth with ``os.scandir`` and follows no symlink at all below
a root (a linked directory is neither searched nor reported), never enters a ``.git`` directory or
one of ``SKIP_DIRS``, and turns an unreadable directory into a warning. A directory holding a
``.git`` directory or file is a work tree; one holding ``HEAD``, ``objects`` and ``refs`` is a bare
repository (reported, never installed: that is ``install --server``). git itself then says what each
one is, and work trees that share a git common dir (a repository and its linked worktrees, or one
found through two roots) become one row.

Installs and doctors run in worker processes (``fork``): the doctor edits ``os.environ`` while it
runs, so threads would see each other's environment. The rows are plain dicts, so they cross the
process boundary as they are and print as JSON unchanged.
"""
import json
import multiprocessing
import os
import sys
from concurrent.futures import ProcessPoolExecutor

from ...hooks import layout
from ...hooks.textsafe import safe
from ..errors import AgentguardError
from ..fsops import read_regular
from ..gitaccess.gitenv import TIMEOUT, run
from .hookscripts import is_ours
from . import fleetrun

# Trees that hold dependencies, builds and caches, not the user's repositories: never searched.
SKIP_DIRS = frozenset({
    ".git", "node_modules", "bower_components", ".venv", "venv", "virtualenv", ".virtualenvs", "site-packages",
    "vendor", "target", "__pycache__", ".tox", ".nox", ".cache", ".mypy_cache", ".pytest_cache", ".ruff_cache",
    "dist", "build", ".gradle", ".m2", ".cargo", ".rustup", ".npm", ".yarn", ".pnpm-store", ".next", ".nuxt",
    ".terraform", "Pods", "DerivedData", ".Trash",
})
BARE_STATUS = "bare: see install --server"


# -- discovery ----------------------------------------------------------------------------------
def find_candidates(roots, depth):
    """([(path, "work" | "bare")], [warning]) below ``roots``, ``depth`` directory levels deep."""
    found, warnings, seen = [], [], set()
    for root in roots:
        top = os.path.abspath(root)
        if not os.path.isdir(top):
            warnings.append("%s is not a directory" % safe(top, 300))
            continue
        stack = [(top, 0)]
        while stack:
            path, level = stack.pop()
            real = os.path.realpath(path)
            if real in seen:
                continue
            seen.add(real)
            try:
                with os.scandir(path) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError as exc:
                warnings.append("cannot read %s (%s): repositories below it were not searched"
                                % (safe(path, 300), safe(exc.strerror or exc, 80)))
                continue
            kind = _kind(entries)
            if kind:
                found.append((path, kind))
                if kind == "bare":
                    continue
            if level >= depth:
                continue
            for entry in reversed(entries):
                if entry.name in SKIP_DIRS:
                    continue
                try:
                    if entry.is_dir(follow_symlinks=False):
                        stack.append((entry.path, level + 1))
                except OSError:
                    continue
    return found, warnings


def _kind(entries):
    names = {}
    for entry in entries:
        try:
            names[entry.name] = ("dir" if entry.is_dir(follow_symlinks=False) else
                                 "file" if entry.is_file(follow_symlinks=False) else "other")
        except OSError:
            continue
    if names.get(".git") in ("dir", "file"):
        return "work"
    if names.get("HEAD") == "file" and names.get("objects") == "dir" and names.get("refs") == "dir":
        return "bare"
    return None


def _identify(candidate):
    """(kind, path, common dir, is the main work tree, error, its ``Layout`` or None) of one candidate,
    asked of git."""
    path, kind = candidate
    if kind == "bare":
        rc, out, _ = run(layout.REV_PARSE, path, TIMEOUT)
        found = layout.parse(path, rc, out)
        if found is not None and found.bare and found.git_dir == os.path.realpath(path):
            return ("bare", os.path.realpath(path), os.path.realpath(path), True, None, None)
        return None  # a directory that only looks like one
    from ..gitaccess.repo import discover
    try:
        info = discover(path)
    except AgentguardError as exc:
        return ("error", os.path.realpath(path), os.path.realpath(path), True, str(exc), None)
    if os.path.realpath(path) != info.top:
        return None  # a `.git` inside a repository's tree that git does not take as a repository
    return ("work", info.top, info.common_dir, not info.linked, None, info)


def find_repositories(roots, depth, pool=None, layouts=None):
    """([{"path", "kind", "worktrees", "error"}], [warning]): one entry per repository (git common
    dir), its main work tree first when it was found, the linked ones it has under the roots listed.
    ``layouts``: a dict given the ``Layout`` git gave each work tree found, by path."""
    candidates, warnings = find_candidates(roots, depth)
    answers = list((pool.map if pool else map)(_identify, candidates))
    groups: dict = {}
    for answer in answers:
        if answer is None:
            continue
        kind, path, common, main, error, info = answer
        if layouts is not None and info is not None:
            layouts[path] = info
        groups.setdefault(common, []).append((not main, path, kind, error))
    repos = []
    for common, members in groups.items():
        members = sorted(set(members))
        _, path, kind, error = members[0]
        others = [m[1] for m in members[1:] if m[1] != path]
        repos.append({"path": path, "kind": kind, "worktrees": others, "error": error})
    repos.sort(key=lambda r: r["path"])
    return repos, warnings


# -- one repository -----------------------------------------------------------------------------
def _template_on():
    """True when the global init.templateDir is agentguard's template."""
    from .template import configured, expand, read_mark
    return any(read_mark(expand(value)) is not None for _, value in configured())


def _row(repo, doctor=None, error=None, template_on=False):
    row = {"path": repo["path"], "kind": repo["kind"], "protected": False, "branches": [], "adapters": [],
           "push_guard": None, "status": "", "failed": [], "worktrees": list(repo.get("worktrees") or []),
           "warnings": []}
    if repo["kind"] == "bare":
        row.update(protected=None, status=BARE_STATUS)
        if _has_client_backstop(repo["path"]):
            row["status"] += "; made from agentguard's git template, whose client hooks stand aside here"
        return row
    if error is not None:
        row["status"] = "error: %s" % safe(error, 300)
        return row
    record = doctor.record or {}
    row["branches"] = list(doctor.policy.branches) if doctor.policy else []
    row["adapters"] = list(record.get("harnesses") or []) if doctor.record else []
    row["failed"] = [{"id": c.id, "summary": c.summary, "fix": c.fix} for c in doctor.checks if c.status == "fail"]
    row["protected"] = doctor.ok()
    if doctor.record is None:
        row["push_guard"] = "none"
    elif record.get("transport") is False:
        row["push_guard"] = "off"
    else:
        bad = any(c.id.startswith(("push.", "probe.push-guard")) and c.status == "fail" for c in doctor.checks)
        row["push_guard"] = "broken" if bad else "on"
    if row["protected"]:
        row["status"] = "protected"
    elif doctor.record is None:
        row["status"] = _unguarded(doctor.info, template_on)
    else:
        first = row["failed"][0]
        row["status"] = "NOT protected: %s%s" % (first["id"], ("; fix: %s" % first["fix"]) if first["fix"] else "")
    return row


def _has_client_backstop(git_dir):
    try:
        hook = read_regular(os.path.join(git_dir, "hooks", "reference-transaction"))
    except AgentguardError:
        return False
    return hook is not None and is_ours(hook)


def _unguarded(info, template_on):
    """Status of a repository with no install record: backstop from the template, or nothing at all."""
    from .template import read_mark
    if read_mark(info.common_dir) is not None or _has_client_backstop(os.path.dirname(info.hooks_dir)):
        return ("NOT protected: backstop only (made from agentguard's template: no adapters, no push guard); "
                "fix: agentguard install")
    if template_on:
        return ("NOT protected: not guarded, created without agentguard's template (git init/clone --template=, "
                "-c init.templateDir=, or before install --template); fix: agentguard install")
    return "NOT protected: not guarded (agentguard is not installed); fix: agentguard install"


def _doctor(path, live, fix, shared=None, info=None):
    from ..doctor.runner import Doctor, fix as do_fix
    d = Doctor(path, info)
    d.run(live=live, shared=shared)
    if fix:
        fixed = do_fix(d)
        if fixed or d.notes:
            d.run(live=live, shared=shared)
    return d


def _offered(row, shared):
    """The row, with what its full probes taught the run (``probeshare``: never printed)."""
    if shared is not None and shared.offers:
        row["_offer"] = shared.offers
    return row


def _doctor_one(args):
    repo, live, fix, template_on, shared = args
    if repo["kind"] != "work":
        return _row(repo, error=repo.get("error"))
    try:
        d = _doctor(repo["path"], live, fix, shared, repo.get("layout"))
        return _offered(_row(repo, d, template_on=template_on), shared)
    except (AgentguardError, OSError) as exc:
        return _row(repo, error=str(exc))
    except Exception as exc:  # one repository's surprise must not hide the others' rows
        return _row(repo, error="%s: %s" % (type(exc).__name__, exc))


def _install_one(args):
    repo, protect, harnesses, transport, dry_run, template_on, shared = args
    if repo["kind"] != "work":
        return _row(repo, error=repo.get("error"))
    from .install import apply_install, plan_install
    try:
        plan = plan_install(repo["path"], protect, harnesses=harnesses, transport=transport)
        written = 0
        if not dry_run and plan.actions:
            written = len(apply_install(plan).actions)
        row = _offered(_row(repo, _doctor(repo["path"], True, False, shared), template_on=template_on), shared)
        row["warnings"] = [safe(w, 300) for w in plan.warnings]
        if dry_run:
            row["would_write"] = len(plan.actions)
            if plan.actions:
                row.update(protected=False, status="dry run: would write %d file(s); now %s"
                           % (len(plan.actions), row["status"]))
        else:
            row["written"] = written
        return row
    except (AgentguardError, OSError) as exc:
        return _row(repo, error=str(exc))
    except Exception as exc:
        return _row(repo, error="%s: %s" % (type(exc).__name__, exc))


# -- many repositories --------------------------------------------------------------------------
def _pool(jobs):
    jobs = max(1, jobs or os.cpu_count() or 1)
    return ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork"))


class Rows(list):
    """The table's rows (dicts), and the warnings of the search (``warnings``)."""

    def __init__(self, rows, warnings):
        super().__init__(rows)
        self.warnings = list(warnings)


def _run_all(roots, depth, jobs, work, extra, prime=None, share=True, progress=None):
    """``prime()`` runs before the workers are forked: what it caches, each worker inherits. ``share``:
    the probes of byte-identical guards run once (``doctor.probeshare``); ``progress``: a
    ``progress.Reporter`` told of each repository done."""
    from ..doctor import runner  # noqa: F401  (imported once here, not once per worker)
    if prime is not None:
        prime()
    from ..doctor.probes import shared_commit
    with _pool(jobs) as pool, shared_commit() as commit:
        layouts: dict = {}
        repos, warnings = find_repositories(roots, depth, pool, layouts)
        template_on = _template_on()
        # the doctor starts from the Layout git gave the search (not asked again in each worker)
        args = [(dict(repo, layout=layouts.get(repo["path"])),) + extra + (template_on,) for repo in repos]
        if progress is not None:
            progress.start(len(args))
        rows = fleetrun.run(pool, work, args, max(1, jobs or os.cpu_count() or 1), share, progress, commit)
    return Rows(rows, warnings)


def install_all(roots, *, depth, protect, harnesses, transport, jobs, dry_run, progress=None):
    """Install in every repository under ``roots``, then audit each one (live probes). Two workers a
    core by default, as for ``doctor_all``: each waits on the disk (its durable batch's flushes), on git
    and on the hooks its probes run (one worker a core: 200 repositories took 51 s for 60 s of CPU on two)."""
    from . import install  # noqa: F401
    jobs = jobs or 2 * (os.cpu_count() or 1)
    # git's option table (~150 git processes) and the compiled runtime are made once, not per worker
    return _run_all(roots, depth, jobs, _install_one, (protect, harnesses, transport, dry_run),
                    prime=install.prime, progress=progress)


def doctor_all(roots, *, depth, live, jobs, fix, probe_each=False, progress=None):
    """Audit every repository under ``roots`` (``probe_each``: every probe in every repository). Two
    workers a core by default: each waits on git and on the hooks its probes run about half the time."""
    jobs = jobs or 2 * (os.cpu_count() or 1)
    return _run_all(roots, depth, jobs, _doctor_one, (live, fix), share=not probe_each, progress=progress)


def ok(rows):
    """Every repository found is fully protected (bare ones, reported only, aside), and there is one."""
    work = [r for r in rows if r["kind"] != "bare"]
    return bool(work) and all(r["protected"] for r in work)


def emit(rows, as_json, action):
    """Print the table (or JSON) and return the exit status: 0 when every repository is protected."""
    good = ok(rows)
    if as_json:
        print(json.dumps({"ok": good, "repositories": [_json_row(r) for r in rows],
                          "warnings": [safe(w, 400) for w in rows.warnings]}, indent=2))
        return 0 if good else 1
    for warning in rows.warnings:
        sys.stderr.write("agentguard: warning: %s\n" % safe(warning, 400))
    table = [("repository", "protected branches", "adapters", "push guard", "status")]
    for r in rows:
        path = r["path"] + ("  (+%d worktree%s)" % (len(r["worktrees"]), "s"[:len(r["worktrees"]) > 1])
                            if r["worktrees"] else "")
        table.append((safe(path, 240), safe(", ".join(r["branches"]) or "-", 60),
                      safe(",".join(r["adapters"]) or "-", 60), safe(r["push_guard"] or "-", 10),
                      safe(r["status"], 300)))
    widths = [max(len(line[i]) for line in table) for i in range(4)]
    for line in table:
        print("  ".join(cell.ljust(w) for cell, w in zip(line[:4], widths)) + "  " + line[4])
    for r in rows:
        for warning in r["warnings"]:
            sys.stderr.write("agentguard: warning: %s: %s\n" % (safe(r["path"], 200), safe(warning, 300)))
    work = [r for r in rows if r["kind"] != "bare"]
    done = sum(1 for r in work if r["protected"])
    bare = len(rows) - len(work)
    verb = {"install": "installed and checked", "doctor": "checked"}.get(action, action)
    if not work:
        print("agentguard: found no repository to guard%s"
              % (" (%d bare: see install --server)" % bare if bare else ""))
    else:
        print("agentguard: %s %d repositor%s: %d protected, %d NOT protected%s"
              % (verb, len(work), "y" if len(work) == 1 else "ies", done, len(work) - done,
                 ", %d bare (not installed: see install --server)" % bare if bare else ""))
    return 0 if good else 1


def _json_row(r):
    out = {k: r[k] for k in ("path", "kind", "protected", "branches", "adapters", "push_guard", "status", "failed",
                             "worktrees", "warnings")}
    for key in ("written", "would_write"):
        if key in r:
            out[key] = r[key]
    return _clean(out)


def _clean(value):
    """Strings made printable (paths and branch names are the repositories' words)."""
    if isinstance(value, str):
        return safe(value, 600)
    if isinstance(value, list):
        return [_clean(v) for v in value]
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    return value
