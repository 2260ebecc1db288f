#!/bin/sh
# agentguard push guard (runtime copy), written by agentguard install. git runs it as the remote
# helper `agw` (alias.remote-agw) for every push URL install rewrote to agw::<url>; when it cannot
# run, git fails the push. The alias reads it into its own shell (then $0 is the alias and $d the
# git dir it found); run as a program, it is next to the runtime.
# shellcheck disable=SC2154 # d: the alias's
case $0 in
*/push-guard) ag_home=${0%/*} ;;
*) ag_home=$d/agentguard ;;
esac
AGENTGUARD_GIT=@AG_GIT@
export AGENTGUARD_GIT
if [ ! -f "$ag_home/runtime/run.py" ] || [ ! -x @AG_PY@ ]; then
	echo "agentguard: the push guard's runtime is missing, so this push is refused; run: agentguard doctor --fix" >&2
	exit 1
fi
ag_py() {
	exec @AG_PY@ -I -S -B "$ag_home/runtime/run.py" "$@"
}
# A URL git reaches as a local path (no <helper>::, no <scheme>://, no ':' before the first '/', as
# git's transport_get tells them) is served here: git runs its own push over this helper's stdin
# and stdout (the `connect` capability), to that path's receive-pack: one connection, and the
# update request git sends in it is judged before receive-pack sees any of it. Anything else (and
# a caller that does not speak as git does) goes to the runtime's helper.
ag_url=${2-${1-}}
case $ag_url in
'' | *::* | *://*) ag_py push-guard "$@" ;;
*/*) case ${ag_url%%/*} in *:*) ag_py push-guard "$@" ;; esac ;;
*:*) ag_py push-guard "$@" ;;
esac
IFS= read -r ag_line || ag_py push-guard-resume - "" "$@"
[ "$ag_line" = capabilities ] || ag_py push-guard-resume - "$ag_line" "$@"
printf 'connect\npush\n\n'
IFS= read -r ag_line || ag_py push-guard-resume capabilities "" "$@"
[ "$ag_line" = "connect git-receive-pack" ] || ag_py push-guard-resume capabilities "$ag_line" "$@"
printf '\n'
# receive-pack runs as git runs it for a local path: without this repository's environment (what
# `git rev-parse --local-env-vars` names; unset in the block below once the update request is read,
# and for receive-pack). fd 4 is git's end, for the report of a refusal.
exec 4>&1
ag_remote=$1
set --
{
	# The update request (gitprotocol-pack(5)), pkt-line by pkt-line: an up-to-date push is a flush
	# alone; up to 16 commands "<old> <new> <ref>" that name no protected branch in any letter case,
	# no refs/remotes/ (a mirror), and no ref the remote holds as a symbolic ref (asked of it), are forwarded from here; anything
	# else, with what was read of it, goes to the runtime (push-relay), which judges it whole.
	LC_ALL=C
	export LC_ALL
	ag_tab='	'
	ag_nl='
'
	ag_len=$(@AG_DD@ bs=1 count=4 2>/dev/null) || exit 1
	[ -n "$ag_len" ] || exit 0
	ag_refs=
	ag_slow=
	while [ "$ag_len" != 0000 ]; do
		case $ag_len in
		[0-9a-f][0-9a-f][0-9a-f][0-9a-f]) ;;
		*) ag_slow=1 && break ;;
		esac
		ag_n=$((0x$ag_len - 4))
		if [ "$ag_n" -lt 1 ] || [ "$ag_n" -gt 4000 ] || [ "$#" -ge 16 ]; then ag_slow=1 && break; fi
		# the payload and the next length in one read; a NUL (before the capabilities) as a tab
		ag_p=$(@AG_DD@ bs=1 count=$((ag_n + 4)) 2>/dev/null | @AG_TR@ '\000' '\011') || exit 1
		[ "${#ag_p}" -eq $((ag_n + 4)) ] || exit 1
		ag_len=${ag_p#"${ag_p%????}"}
		ag_p=${ag_p%????}
		set -- "$@" "$ag_p"
		ag_c=${ag_p%"$ag_tab"*}
		ag_c=${ag_c%"$ag_nl"}
		case $ag_c in
		*"$ag_tab"* | *"$ag_nl"* | @PREFILTER@ | *" refs/remotes/"*) ag_slow=1 && break ;;
		[0-9a-f]*" "[0-9a-f]*" refs/"?*) ;;
		*) ag_slow=1 && break ;;
		esac
		case $ag_c in
		"@ZERO40@ "* | "@ZERO64@ "*) ;;
		*) ag_refs="$ag_refs ${ag_c##* }" ;;
		esac
	done
	# git applies the user's protocol rules to a local path as transport "file" (protocol.file.allow,
	# protocol.allow, GIT_ALLOW_PROTOCOL, GIT_PROTOCOL_FROM_USER): where there is one and something is to be
	# sent, git is asked whether it lets this path be reached (ls-remote of it, in this repository) and
	# nothing is sent where it does not. (An up-to-date push sends nothing: it ends as up to date, where
	# git alone would have refused to connect.)
	if [ "$#" -gt 0 ] || [ -n "$ag_slow" ]; then
		if [ -n "${GIT_ALLOW_PROTOCOL+1}${GIT_PROTOCOL_FROM_USER+1}" ] \
			|| ! { "$AGENTGUARD_GIT" config --get-regexp '^protocol\.(.+\.)?allow$' >/dev/null 2>&1; [ "$?" -eq 1 ]; }; then
			"$AGENTGUARD_GIT" ls-remote "$ag_url" >/dev/null 2>&1 || {
				echo "agentguard: git's protocol rules do not let this repository reach $ag_url (transport 'file'), so nothing was pushed" >&2
				exit 1
			}
		fi
	fi
	unset @LOCAL_ENV@
	if [ -z "$ag_slow" ] && [ -n "$ag_refs" ]; then
		set -f
		# shellcheck disable=SC2086 # one word per ref name (no spaces in them: checked above)
		ag_sym=$("$AGENTGUARD_GIT" --git-dir="$ag_url" for-each-ref --format='%(symref)' -- $ag_refs) || ag_slow=1
		set +f
		case $ag_sym in *[!"$ag_nl"]*) ag_slow=1 ;; esac
	fi
	[ -z "$ag_slow" ] || ag_py push-relay "$ag_remote" "$ag_url" "$ag_len" "$@"
	[ "$#" -gt 0 ] || { printf 0000; exit 0; }
	for ag_p in "$@"; do
		ag_c=${ag_p%%"$ag_tab"*}
		if [ "$ag_c" = "$ag_p" ]; then
			printf '%04x%s' $((${#ag_p} + 4)) "$ag_p"
		else
			printf '%04x%s\000%s' $((${#ag_p} + 4)) "$ag_c" "${ag_p#*"$ag_tab"}"
		fi
	done
	printf 0000
	exec @AG_CAT@
} | (unset @LOCAL_ENV@ && exec "$AGENTGUARD_GIT" receive-pack "$ag_url") 4>&-
