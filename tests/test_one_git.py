"""The one_git groups (tests/conftest.py ONE_GIT_GROUPS): every entry names a module or a test that
exists (a stale name would quietly run its group on every git again, or worse, leave a reader thinking
it does not), and scripts/test.sh's later passes leave out exactly the tests marked one_git."""
import ast
import os
import subprocess
import sys

import pytest

from conftest import ONE_GIT_GROUPS

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

pytestmark = pytest.mark.one_git  # the suite's own bookkeeping, not git


def test_every_group_member_exists():
    for group, members in ONE_GIT_GROUPS.items():
        assert members, group
        for member in members:
            module, _, test = member.partition("::")
            path = os.path.join(HERE, module)
            assert os.path.isfile(path), (group, member)
            if test:
                with open(path, encoding="utf-8") as fh:
                    names = {n.name for n in ast.walk(ast.parse(fh.read())) if isinstance(n, ast.FunctionDef)}
                assert test in names, (group, member)


def collected(*args, later=False):
    env = dict(os.environ, AGENTGUARD_TEST_LATER_GIT="1" if later else "0")
    proc = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0", "-p", "no:cacheprovider",
                           *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode in (0, 5), proc.stdout[-2000:] + proc.stderr[-2000:]  # 5: all deselected
    return {line for line in proc.stdout.splitlines() if "::" in line}


def test_the_later_pass_leaves_out_the_groups_and_only_them():
    """On a module of a group with a test outside the group (test_precommit_framework): the later pass
    collects everything but the group's test, the first pass all of it."""
    module = "tests/test_precommit_framework.py"
    first, later = collected(module), collected(module, later=True)
    left_out = first - later
    assert left_out and all("test_pre_commit_try_repo_refuses_a_commit_on_main" in t for t in left_out), left_out
    assert later and later < first
    assert collected("tests/test_harness_cline.py", later=True) == set()
