#!/bin/sh
# Create .venv (if missing) and install agentguard into it, editable. Extra pip specs may follow:
#   sh scripts/setup.sh            -> the tool
#   sh scripts/setup.sh '.[test]'  -> the tool and the test dependencies
set -eu
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -e "${1:-.}"
