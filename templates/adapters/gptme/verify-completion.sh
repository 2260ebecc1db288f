#!/bin/sh
# agentguard completion check, written by agentguard install.
# The task is not complete while the git guard is broken or a protected branch
# holds commits that its remote counterpart does not have.
# agentguard is named by its literal path, never through a variable: gptme's confirm hook (the plugin)
# runs this script past agentguard's own analyser, which refuses a command name known only when it runs.
g=$(git rev-parse --git-common-dir 2>/dev/null)
if [ -n "$g" ] && [ ! -f "$g/agentguard/manifest.json" ]; then
	echo "@NOT_INSTALLED@" | sed 's/{0}/gptme/'
	exit 1
fi
if [ ! -x @AGENTGUARD_BIN@ ]; then
	echo "agentguard is not available to verify this repository; ask the user to run: agentguard doctor"
	exit 1
fi
out=$(@AGENTGUARD_BIN@ doctor 2>&1)
status=$?
if [ "$status" -eq 0 ]; then
	exit 0
fi
echo "agentguard doctor reports problems; fix them before completing:"
printf '%s\n' "$out" | grep -E 'FAIL|fix:' | head -n 20
exit 1
