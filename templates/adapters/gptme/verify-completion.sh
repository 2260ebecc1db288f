#!/bin/sh
# agentguard completion check, written by agentguard install.
# The task is not complete while the git guard is broken or a protected branch
# holds commits that its remote counterpart does not have.
ag=@AGENTGUARD_BIN@
if [ ! -x "$ag" ]; then
	echo "agentguard is not available to verify this repository; ask the user to run: agentguard doctor"
	exit 1
fi
out=$("$ag" doctor 2>&1)
status=$?
if [ "$status" -eq 0 ]; then
	exit 0
fi
echo "agentguard doctor reports problems; fix them before completing:"
printf '%s\n' "$out" | grep -E 'FAIL|fix:' | head -n 20
exit 1
