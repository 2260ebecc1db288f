"""mkdocs hook (mkdocs.yml `hooks:`): the site also carries the repository files the docs link to.

docs/ pages link to files outside docs/ the way a forge shows them (`../SECURITY.md`, the benchmark's
`../bench/ratios.png`), and README.md links into docs/ (`docs/policy.md#empty-repositories`). mkdocs
only knows files under docs_dir, so this hook adds each repository file reached that way (following the
links of every Markdown file it adds) under `repo/<path>`, and rewrites those links to point there. Then
`mkdocs build --strict` checks every link and anchor of README.md and SECURITY.md as well as of the
pages. A link to a file that does not exist is left as written, so the strict build names it."""
import os
import posixpath
import re

REPO_PREFIX = "repo/"
# the target of an inline link or image: ](target) or ](target#anchor); no spaces, no parentheses
LINK = re.compile(r"\]\(([^()\s]+)\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def root_of(config):
    return os.path.dirname(os.path.abspath(config.config_file_path))


def docs_prefix(config):
    return os.path.relpath(config.docs_dir, root_of(config)).replace(os.sep, "/") + "/"


def link_spans(markdown):
    """(start, end, target) of each inline link target outside fenced code blocks."""
    pos, fenced = 0, False
    for line in markdown.splitlines(keepends=True):
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            for m in LINK.finditer(line):
                yield pos + m.start(1), pos + m.end(1), m.group(1)
        pos += len(line)


def repo_target(repo_path, target):
    """The repository path a relative link in the file at repo_path names, and its #anchor; None for
    URLs, absolute paths, pure anchors and paths that leave the repository."""
    if target.startswith(("#", "/")) or re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
        return None
    path, hash_, anchor = target.partition("#")
    resolved = posixpath.normpath(posixpath.join(posixpath.dirname(repo_path), path))
    if resolved == ".." or resolved.startswith("../"):
        return None
    return resolved, hash_ + anchor


def site_uri(repo_path, prefix):
    """Where a repository file sits among the site's files."""
    return repo_path[len(prefix):] if repo_path.startswith(prefix) else REPO_PREFIX + repo_path


def outside_files(root, prefix):
    """Every repository file outside docs/ that the docs reach by links, transitively through the
    Markdown files among them."""
    queue = [prefix + name for name in sorted(os.listdir(os.path.join(root, prefix))) if name.endswith(".md")]
    seen = set()
    while queue:
        current = queue.pop()
        with open(os.path.join(root, current), encoding="utf-8") as fh:
            text = fh.read()
        for _, _, target in link_spans(text):
            found = repo_target(current, target)
            if not found or found[0].startswith(prefix) or found[0] in seen:
                continue
            if os.path.isfile(os.path.join(root, found[0])):
                seen.add(found[0])
                if found[0].endswith(".md"):
                    queue.append(found[0])
    return sorted(seen)


def on_files(files, config):
    from mkdocs.structure.files import File

    root = root_of(config)
    for path in outside_files(root, docs_prefix(config)):
        files.append(File.generated(config, REPO_PREFIX + path, abs_src_path=os.path.join(root, path)))
    return files


def on_page_markdown(markdown, page, config, files):
    prefix = docs_prefix(config)
    src = page.file.src_uri
    repo_path = src[len(REPO_PREFIX):] if src.startswith(REPO_PREFIX) else prefix + src
    out, last = [], 0
    for start, end, target in link_spans(markdown):
        found = repo_target(repo_path, target)
        if not found or (found[0].startswith(prefix) and not src.startswith(REPO_PREFIX)):
            continue
        if not found[0].startswith(prefix) and files.get_file_from_path(site_uri(found[0], prefix)) is None:
            continue  # not a file: left as written, so the strict build reports it
        new = posixpath.relpath(site_uri(found[0], prefix), posixpath.dirname(src) or ".") + found[1]
        out += [markdown[last:start], new]
        last = end
    return "".join(out) + markdown[last:]
