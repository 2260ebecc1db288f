"""Copied to ``<git common dir>/agentguard/runtime/run.py``; the hook scripts run it as
``python -I -S run.py <hook> <git-pid> [args]``. Isolated mode ignores PYTHONPATH, PYTHONHOME,
PYTHONSTARTUP and user site-packages, ``-S`` skips site-packages: only the stdlib and the
runtime copy next to this file are importable."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ANSWERED = 40  # check's status + 40 when the caller asks for it (AGENTGUARD_ANSWERED=1): 40 allow, 42 block
sys.path.insert(0, HERE)

if sys.argv[1:2] == ["check"]:  # the decision command: skip the hook modules it does not need
    import gc  # noqa: E402

    # Loading the analyser allocates tens of thousands of objects, none of them garbage: a collection
    # every 700 of them is ~2 ms of CPU on every tool call. Still collected, less often.
    gc.set_threshold(20000, 20, 20)
    if len(sys.argv) == 5 and sys.argv[2:4] == ["--after", "--hook"]:  # after every tool call: no analyser
        from hooks.harness.hook import after_command as main  # noqa: E402
    else:
        from hooks.analyser.check import main  # noqa: E402

    # A caller that sets AGENTGUARD_ANSWERED=1 (the harness hook) reads ANSWERED + the status: only an
    # answer of this runtime has it. A launcher that is empty or cut short exits 0 (sh runs what is
    # left of it), which the harnesses take as allow; the caller then knows nothing answered.
    answered = os.environ.pop("AGENTGUARD_ANSWERED", None) == "1"
    status = main(sys.argv[2:])
    status = status if isinstance(status, int) else 1
    # Every tool call runs this twice: its answer written, end here, without the interpreter's
    # tear-down of every module and object (~2 ms of CPU). Nothing of it is left running: every git
    # it started was waited for, and it keeps no file open for writing.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(ANSWERED + status if answered else status)
if sys.argv[1:2] == ["push-relay"]:  # the push guard on git's own connection to a local path
    from hooks.pushguard.relay import main as relay  # noqa: E402

    sys.exit(relay(sys.argv[2:], ag_home=os.path.dirname(HERE)))
if sys.argv[1:2] in (["push-guard"], ["push-guard-resume"]):  # git-remote-agw, the push guard in git's transport
    from hooks.pushguard.helper import main as guard  # noqa: E402

    sys.exit(guard(sys.argv[2:], ag_home=os.path.dirname(HERE), resume=sys.argv[1] == "push-guard-resume"))
if sys.argv[1:2] == ["pre-receive"]:  # a guarded server (install --server)
    from hooks.server.prereceive import main as receive  # noqa: E402

    sys.exit(receive(sys.argv[1:], ag_home=os.path.dirname(HERE)))
from hooks.main import run_hook  # noqa: E402

sys.exit(run_hook(sys.argv[1:], ag_home=os.path.dirname(HERE)))
