#!/bin/sh
# Create .venv (if missing) and install agentguard into it, editable. Extra pip specs may follow:
#   sh scripts/setup.sh            -> the tool
#   sh scripts/setup.sh '.[test]'  -> the tool and the test dependencies
set -eu
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -e "${1:-.}"
# agentguard's own modules compiled once, here: where PYTHONDONTWRITEBYTECODE is set (as it was where CI
# last ran) Python never writes them itself, and each `agentguard` run (the suite starts thousands) would
# compile its ~100 modules again, ~0.2 s of CPU every time. A stale .pyc is never used (Python checks the
# source's mtime and size); templates/ is left alone (package data, never imported).
.venv/bin/python -m compileall -q hooks installer __init__.py >/dev/null
