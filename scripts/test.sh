#!/bin/sh
# Install everything the test suite drives for real, then run it. Arguments go to pytest.
#   .venv          agentguard with its test extras (pytest, hypothesis, pre-commit)
#   .venv-hermes   hermes-agent from PyPI      .venv-gptme   gptme from PyPI
#   .venv-precommit-min   pre-commit 3.2.0, the minimum .pre-commit-hooks.yaml declares
#   tests/node     pi and husky from npm
set -eu
cd "$(dirname "$0")/.."
sh scripts/setup.sh '.[test]'
for h in "hermes:hermes-agent==0.19.0" "gptme:gptme==0.35.1" "precommit-min:pre-commit==3.2.0"; do
	dir=".venv-${h%%:*}"
	[ -x "$dir/bin/python" ] || python3 -m venv "$dir"
	"$dir/bin/python" -m pip install -q --disable-pip-version-check "${h#*:}"
done
npm ci --prefix tests/node --no-audit --no-fund --silent
exec .venv/bin/python -m pytest "$@"
