"""procargv: the caller's exact argv from /proc (Linux) and from sysctl buffers (macOS, the BSDs).

The sysctl parsers get byte buffers laid out exactly as each kernel returns them; the /proc reader
and the parent lookup run against real processes."""
import os
import subprocess
import sys

import pytest

from agentguard.hooks.gitmodel import procargv

ODD = ["git", "-c", "user.name=A B", "commit", "", "-m", "two  spaces", "caf\xe9", b"\xff\xfe".decode(
    "utf-8", "surrogateescape"), ""]


def _raw(arg):
    return arg.encode("utf-8", "surrogateescape")


def procargs2(argv, exec_path=b"/usr/bin/git", padding=7, env=(b"HOME=/Users/a", b"PATH=/usr/bin"),
              argc=None, byteorder=sys.byteorder):
    """A KERN_PROCARGS2 buffer: int argc, exec path + NUL, NUL padding, argv, environment, trailer."""
    head = (len(argv) if argc is None else argc).to_bytes(4, byteorder, signed=True)
    body = b"".join(_raw(a) + b"\0" for a in argv)
    tail = b"".join(e + b"\0" for e in env) + b"\0" * 3 + b"ptr_munge=\0"
    return head + exec_path + b"\0" * (1 + padding) + body + tail


@pytest.mark.parametrize("padding", [0, 1, 7, 64])
def test_procargs2_reads_argv_exactly(padding):
    assert procargv.parse_procargs2(procargs2(ODD, padding=padding)) == ODD


def test_procargs2_stops_at_argc_and_never_reads_the_environment():
    argv = procargv.parse_procargs2(procargs2(["git", "push"], env=(b"GIT_DIR=/evil", b"X=1")))
    assert argv == ["git", "push"]


def test_procargs2_exec_path_with_spaces_is_not_an_argument():
    buf = procargs2(["git", "fetch"], exec_path=b"/Applications/My Tools/git")
    assert procargv.parse_procargs2(buf) == ["git", "fetch"]


@pytest.mark.parametrize("buf", [
    b"", b"\x01\x00", procargs2(["git"], argc=0), procargs2(["git"], argc=-1),
    (2).to_bytes(4, sys.byteorder) + b"/usr/bin/git\0\0\0git\0pu",  # cut inside an argument
    (5).to_bytes(4, sys.byteorder) + b"/usr/bin/git",  # no NUL after the exec path
    (3).to_bytes(4, sys.byteorder) + b"/usr/bin/git\0\0git\0push",  # fewer arguments than argc
])
def test_procargs2_refuses_what_is_not_a_whole_argv(buf):
    assert procargv.parse_procargs2(buf) is None


def test_nul_separated_args_as_freebsd_and_netbsd_return_them():
    raw = b"".join(_raw(a) + b"\0" for a in ODD)
    assert procargv.parse_nul_args(raw) == ODD
    assert procargv.parse_nul_args(b"") is None


@pytest.mark.parametrize("platform, mib", [
    ("darwin", [1, 49, 42]), ("freebsd14", [1, 14, 7, 42]), ("dragonfly6", [1, 14, 7, 42]),
    ("netbsd10", [1, 48, 42, 1]), ("linux", None), ("win32", None)])
def test_sysctl_names_per_system(platform, mib):
    assert procargv._sysctl_mib(platform, 42) == mib


@pytest.mark.skipif(not os.path.exists("/proc/self/cmdline"), reason="no /proc here")
def test_reads_a_real_process_argv_exactly():
    argv = [sys.executable, "-c", "import sys, time; sys.stdout.write('up\\n'); sys.stdout.flush(); "
            "time.sleep(30)", *ODD]
    proc = subprocess.Popen([_raw(a) for a in argv], stdout=subprocess.PIPE)
    try:
        assert proc.stdout.readline() == b"up\n"
        assert procargv.read_process_argv(proc.pid) == argv
        assert procargv.parent_pid(proc.pid) == os.getpid()
        assert procargv._parent_from_ps(proc.pid) == procargv._parent_from_proc(proc.pid) == os.getpid()
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize("pid", ["", "x", None, -1, 0, "1e3"])
def test_no_argv_for_what_is_not_a_pid(pid):
    assert procargv.read_process_argv(pid) is None
