# agentguard hook for Claude Code, Codex, Gemini CLI, Copilot CLI and OpenCode; written by
# agentguard install into <git common dir>/agentguard/harness-hook, and run by each harness's settings
# entry (a short launcher: installer/harness/settingsfile.py hook_command) as: sh <this file> <harness> (before a
# tool call), and with the harness's post-call event after it: sh <this file> <harness> <event>.
# (OpenCode's plugin runs it inline: sh -c '<this script>' agentguard opencode [event].)
# The tool call arrives as JSON on stdin and goes to the repository's decision command (the
# runtime copy in the git dir): exit 0 allows, exit 2 blocks (these harnesses take exit 1 as allow).
# A runtime that is missing or fails blocks whatever involves git or the guard's files.
# After the call, the same command with --after undoes what the call did to the guard and tells the
# model in the harness's terms; a runtime that is missing or fails is told to the model (the call ran).
# In a clone where agentguard was never installed (the team committed the settings; no
# <git common dir>/agentguard/manifest.json), every call but a read-only tool's is blocked with one
# message that says how to install it; after a call there is nothing to undo.
# The settings entry's launcher sources this file with h=<git common dir>/agentguard/harness-hook: ./.git's
# when that is a git dir of this user's (no commondir file, no GIT_DIR), else the common dir it has just asked
# git for: no second git start.
# before the call the payload is kept for the fallback below; after it, nothing here reads it: it goes
# straight to the runtime (no cat started)
[ -n "$2" ] || p=$(cat)
case "${h:-}" in
*/agentguard/harness-hook) g=${h%/agentguard/harness-hook} ;;
*) g=$(git rev-parse --git-common-dir 2>/dev/null) ;;
esac
c="$g/agentguard/check"
if [ -x "$c" ]; then
	# the decision command read into a subshell (a fork, not a second sh) when this is the script install wrote
	# beside it (the settings entry found it there: $h) and the shell is named agentguard (as every settings
	# entry's sh -c names it): it takes its folder first. A plugin's inline copy, which may be newer than the
	# install it finds, runs it as a program.
	# AGENTGUARD_ANSWERED=1: the runtime exits 40 + its status, so an empty or cut-short launcher (sh exits 0 on
	# what is left of it, which these harnesses take as allow) is told from the runtime's answer
	ask() { if [ -n "${h:-}" ] && [ "$0" = agentguard ]; then (set -- "$g/agentguard" ${2:+--after} --hook "$1"; AGENTGUARD_ANSWERED=1; export AGENTGUARD_ANSWERED; . "$c"); else AGENTGUARD_ANSWERED=1 "$c" ${2:+--after} --hook "$1"; fi; }
	if [ -n "$2" ]; then ask "$@"; else ask "$@" <<AGENTGUARD_CALL
$p
AGENTGUARD_CALL
	fi
	s=$?
	case $s in 40 | 42) exit $((s - 40)) ;; esac
	w="it failed with status $s"
elif [ -n "$g" ] && [ ! -f "$g/agentguard/manifest.json" ]; then
	[ -n "$2" ] && exit 0
	if grep -Eq "\"(tool_name|toolName|tool)\"[[:space:]]*:[[:space:]]*\"(@READ_TOOLS_ERE@)\"" <<AGENTGUARD_CALL
$p
AGENTGUARD_CALL
	then exit 0; fi
	r="@NOT_INSTALLED@"
	@DENY_ANSWER@
else
	w="its runtime copy is missing"
fi
if [ -n "$2" ]; then
	r="@UNCHECKED@"
	@AFTER_ANSWER@
fi
# the call's own text: the payload without the fields every call carries (its session's paths),
# then without quotes and backslashes, which hide a word from the pattern but not from the shell (g''it)
q=$(sed -E -e "s/\"(cwd|transcript_path)\"[[:space:]]*:[[:space:]]*\"([^\"\\\\]|\\\\.)*\"//g" -e "s/[\"'\\\\]//g" <<AGENTGUARD_CALL
$p
AGENTGUARD_CALL
) || q=$p
grep -Eiq "@INVOLVES_ERE@" <<AGENTGUARD_CALL
$q
AGENTGUARD_CALL
# an ANSI-C quoted word ($'\x67it') can spell anything: blocked as well
[ "$?" -eq 1 ] && case $p in *"\$'"*) ;; *) exit 0 ;; esac
r="agentguard: blocked this tool call because agentguard could not check it ($w) [rule: guard-error]. Instead: run agentguard doctor; agentguard install repairs it."
# in each harness's own terms: exit 2 and the reason on stderr, with its JSON deny where it has one
# that goes with exit 2 (Copilot CLI shows the model a reason only from it); where exit 2 is no block, its deny
@FALLBACK_ANSWER@
echo "$r" >&2
exit 2
