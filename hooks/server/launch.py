"""What the pre-receive script runs: ``python -I -S -B <runtime>/hooks/server/launch.py pre-receive``.

Isolated mode puts neither the script's folder nor PYTHONPATH on ``sys.path``: the runtime copy
(three folders up) goes there, and only the stdlib and that copy are importable."""
import importlib
import os
import sys

if __name__ == "__main__":
    RUNTIME = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    sys.path.insert(0, RUNTIME)
    main = importlib.import_module("hooks.server.prereceive").main
    sys.exit(main(sys.argv[1:], ag_home=os.path.dirname(RUNTIME)))
