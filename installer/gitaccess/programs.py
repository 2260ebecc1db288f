"""The program-running settings git reads for a repository now (``guardconfig.programs_in``), at every
scope: install records them, the doctor warns about one install did not see."""
from ...hooks.guardconfig import WATCHED, programs_in
from ...hooks.outcome.snapshot import parse_config
from .gitenv import git


def program_settings(top, ask=None):
    """``ask(args)``: how to put a config question (the doctor's one listing); default: git itself."""
    args = ["config", "-z", "--show-scope", "--show-origin", "--get-regexp", WATCHED]
    out = ask(args) if ask is not None else git(args, cwd=top, check=False)
    return programs_in(parse_config(out.encode("utf-8", "surrogateescape"), top))
