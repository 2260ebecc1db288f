"""What ``runtime/run.py`` (``hooks/launcher.py``) runs, in its own globals (``__main__``, ``HERE``, and
``TABLE``: the compiled file's modules, or None): the compiled modules put first on the import path, then
the hook, check or push guard the arguments name."""
import marshal
import os
import sys

ANSWERED = 40  # check's status + 40 when the caller asks for it (AGENTGUARD_ANSWERED=1): 40 allow, 42 block
HERE = globals()["HERE"]  # run.py's: the runtime folder


class Compiled:
    """Serves ``hooks.*`` from the compiled file run.py read (its ``TABLE``): one read instead of a source,
    its hash and a ``.pyc`` per module, and one file for the after-check to compare instead of a hundred.
    A module is unmarshalled when imported."""

    def __init__(self, table):
        self.table = table  # {module name: (is package, path under HERE, marshalled code)}

    def find_spec(self, name, path=None, target=None):
        entry = self.table.get(name)
        if not (isinstance(entry, tuple) and len(entry) == 3):
            return None
        spec = sys.modules["_frozen_importlib"].ModuleSpec(name, self, origin=os.path.join(HERE, entry[1]),
                                                           is_package=bool(entry[0]))
        if entry[0]:
            spec.submodule_search_locations = [os.path.dirname(spec.origin)]
        return spec

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        # __file__: the source's path (hooks/gitmodel reads options.json beside it), set here rather than by
        # ``has_location``, which has importlib work out a ``__cached__`` path for every module
        module.__file__ = module.__spec__.origin
        exec(marshal.loads(self.table[module.__name__][2]), module.__dict__)


sys.path.insert(0, HERE)
if isinstance(globals().get("TABLE"), dict):  # else the sources beside it are imported as usual
    sys.meta_path.insert(0, Compiled(globals()["TABLE"]))

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
