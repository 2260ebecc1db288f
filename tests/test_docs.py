"""The documentation: the README stays a newcomer's page that starts with the two commands CI and a new
user run, every relative link in README.md, SECURITY.md and docs/ names a file and heading that exist
(as a forge renders them), and the site builds with `mkdocs build --strict`, which fails on a broken
link or anchor (shown by breaking one in a copy).

mkdocs comes with the `test` extra; without it the build tests skip, except under ``CI``."""
import glob
import importlib.util
import os
import re
import shutil
import subprocess
import sys

import pytest

from helpers import need_module

pytestmark = pytest.mark.one_git  # the docs and their commands, not git

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
HOOK = os.path.join(ROOT, "scripts", "mkdocs_repo_files.py")
README_MAX_LINES = 210


def load_hook():
    spec = importlib.util.spec_from_file_location("mkdocs_repo_files", HOOK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


hook = load_hook()


def read(path):
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def forge_anchors(markdown):
    """The anchors a forge (GitHub, Gitea, GitLab) gives the headings: lower case, punctuation dropped,
    spaces to hyphens, a repeated heading numbered."""
    anchors, fenced = set(), False
    for line in markdown.splitlines():
        if hook.FENCE.match(line):
            fenced = not fenced
            continue
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if fenced or not m:
            continue
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", m.group(1))
        slug = re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
        candidate, n = slug, 0
        while candidate in anchors:
            n += 1
            candidate = "%s-%d" % (slug, n)
        anchors.add(candidate)
    return anchors


def broken_links(root, repo_path):
    """Every relative link of the Markdown file at repo_path whose file or #anchor does not exist."""
    text = read(os.path.join(root, repo_path))
    broken = []
    for _, _, target in hook.link_spans(text):
        if target.startswith("#"):
            found = (repo_path, target)
        else:
            found = hook.repo_target(repo_path, target)
        if found is None:
            continue
        path, anchor = found
        full = os.path.join(root, path)
        if not os.path.exists(full):
            broken.append(target)
        elif anchor and (not path.endswith(".md") or anchor[1:] not in forge_anchors(read(full))):
            broken.append(target)
    return broken


def markdown_files():
    return ["README.md", "SECURITY.md"] + sorted(
        os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))


def test_readme_starts_with_the_demo_and_the_test_command():
    lines = read(README).splitlines()
    assert lines[0] == "# agentguard"
    first = [line for line in lines[1:] if line.strip()][:3]
    assert first[0] == "```sh", "the README opens with the two commands, before any prose"
    assert first[1].split("#")[0].strip() == "sh scripts/demo.sh"
    assert first[2].split("#")[0].strip() == "sh scripts/test.sh"
    # CI runs exactly the README's test command
    ci = [line for line in read(os.path.join(ROOT, ".ci", "run")).splitlines() if line and line[0] != "#"]
    assert ci[-1] == "sh scripts/test.sh"


def test_readme_is_short():
    assert len(read(README).splitlines()) <= README_MAX_LINES, "the rest belongs in docs/"


def test_readme_links_every_docs_page():
    linked = {hook.repo_target("README.md", t)[0] for _, _, t in hook.link_spans(read(README))
              if hook.repo_target("README.md", t)}
    pages = {p for p in markdown_files() if p.startswith("docs/")}
    assert pages - linked == set()


@pytest.mark.parametrize("path", markdown_files())
def test_relative_links_name_files_and_headings_that_exist(path):
    assert broken_links(ROOT, path) == []


def test_a_broken_link_and_a_broken_anchor_are_found(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "README.md").write_text("# Title\n\n## Two words\n\n[a](#two-words) [b](docs/x.md#two-words)\n"
                                        "[c](docs/missing.md) [d](#three-words) [e](https://example.com/x)\n"
                                        "```\n[f](not-a-link.md)\n```\n")
    (tmp_path / "docs" / "x.md").write_text("# X\n\n## Two words\n\n[g](../README.md#title) [h](../README.md#nope)\n")
    assert broken_links(str(tmp_path), "README.md") == ["docs/missing.md", "#three-words"]
    assert broken_links(str(tmp_path), "docs/x.md") == ["../README.md#nope"]


def mkdocs_build(root, site):
    need_module("mkdocs")
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f",
                           os.path.join(root, "mkdocs.yml"), "-d", site],
                          cwd=root, capture_output=True, text=True, timeout=120)


def test_the_site_builds_strictly_with_readme_and_security(tmp_path):
    site = str(tmp_path / "site")
    result = mkdocs_build(ROOT, site)
    assert result.returncode == 0, result.stderr
    assert "WARNING" not in result.stderr
    for page in ["index.html", "repo/index.html", "repo/SECURITY/index.html", "policy/index.html"]:
        assert os.path.isfile(os.path.join(site, page)), page
    # the README's links into docs/ point at the pages of the site
    assert 'href="../policy/#empty-repositories"' in read(os.path.join(site, "repo", "index.html"))
    assert os.path.isfile(os.path.join(site, "repo", "bench", "ratios.png"))


BREAKAGES = {
    "a page that does not exist": ("docs/limits.md", "\nSee [x](no-such-page.md).\n", "no-such-page.md"),
    "an anchor that does not exist": ("README.md", "\nSee [x](docs/policy.md#no-such-heading).\n",
                                      "no-such-heading"),
    "a repository file that does not exist": ("docs/limits.md", "\nSee [x](../NO-SUCH-FILE.md).\n",
                                              "NO-SUCH-FILE.md"),
    "a page left out of the navigation": ("docs/orphan.md", "# Orphan\n", "orphan.md"),
}


@pytest.mark.parametrize("breakage", sorted(BREAKAGES))
def test_the_strict_build_fails_on(breakage, tmp_path):
    need_module("mkdocs")
    copy = tmp_path / "repo"
    shutil.copytree(os.path.join(ROOT, "docs"), str(copy / "docs"))
    for rel in ["mkdocs.yml", "scripts/mkdocs_repo_files.py"] + hook.outside_files(ROOT, "docs/"):
        os.makedirs(os.path.dirname(str(copy / rel)), exist_ok=True)
        shutil.copy2(os.path.join(ROOT, rel), str(copy / rel))
    path, text, named = BREAKAGES[breakage]
    with open(str(copy / path), "a", encoding="utf-8") as fh:
        fh.write(text)
    result = mkdocs_build(str(copy), str(tmp_path / "site"))
    assert result.returncode != 0
    assert named in result.stderr
