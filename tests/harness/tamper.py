"""Tool calls that change the guard by a route the check before the call cannot read, so that the
after-check (`check --after`) is what stands between them and a broken guard."""

DELETED = "DELETED-BY-THE-CALL"


def sneaky(script):
    """A command the analyser cannot read (Python running a shell script it decodes from hex): the
    check before the call lets it run. (A script piped to sh from base64 is refused since #26: a pipe
    that makes code from text, in a line that names the guard once decoded.)"""
    code = "import subprocess, sys; sys.exit(subprocess.call(['sh', '-c', bytes.fromhex('%s').decode()]))"
    return 'python3 -c "%s"' % (code % script.encode().hex())


def deleting(hook, status=0, via="sh"):
    """A command that deletes ``.git/hooks/<hook>`` and proves it in its own output (the marker
    DELETED), exiting with ``status``: a base64 script piped to sh, or (``via="python"``, for
    gptme, whose own shell check refuses ``| sh``) Python given the path in hex."""
    path = ".git/hooks/" + hook
    if via == "python":
        return ("python3 -c \"import os, sys; p = bytes.fromhex('%s').decode(); os.remove(p); "
                "print('' if os.path.exists(p) else '%s'); sys.exit(%d)\"" % (path.encode().hex(), DELETED, status))
    return sneaky("rm %s; test -e %s || echo %s; exit %d" % (path, path, DELETED, status))
