#!/bin/sh
# Install everything the test suite drives for real, then run it. Arguments go to pytest.
set -eu
cd "$(dirname "$0")/.."
sh scripts/setup.sh '.[test]'
npm ci --prefix tests/node --no-audit --no-fund --silent
exec .venv/bin/python -m pytest "$@"
