"""The program-running settings git reads for a repository now (``guardconfig.programs_in``), at every
scope: install records them, the doctor warns about one install did not see."""
from ...hooks.guardconfig import WATCHED, programs_in
from ...hooks.outcome.snapshot import parse_config
from .gitenv import git


def program_settings(top):
    out = git(["config", "-z", "--show-scope", "--show-origin", "--get-regexp", WATCHED], cwd=top, check=False)
    return programs_in(parse_config(out.encode("utf-8", "surrogateescape"), top))
