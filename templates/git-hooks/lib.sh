# --- agentguard: shared part (generated; do not edit, `agentguard install` rewrites it) ---
ag_py=@AG_PY@
# git, cat and grep by the paths install found: the PATH a hook inherits is the caller's, and git
# puts GIT_EXEC_PATH in front of it. The runtime runs the same git (gitio reads AGENTGUARD_GIT).
ag_git=@AG_GIT@
ag_cat=@AG_CAT@
# shellcheck disable=SC2034 # used by the hooks that filter many lines (reference-transaction, pre-receive)
ag_grep=@AG_GREP@
# where that git runs its own programs from: git's GIT_EXEC_PATH in a hook, unless the caller chose another
ag_exec_path=@AG_EXEC_PATH@
AGENTGUARD_GIT=$ag_git
AGENTGUARD_EXEC_PATH=$ag_exec_path
export AGENTGUARD_GIT AGENTGUARD_EXEC_PATH
ag_chained=@AG_CHAINED@
ag_chained_sh=@AG_CHAINED_SH@
ag_in=
ag_nl='
'

# Ask the runtime (only when the fast path cannot decide). Exit status: 0 allow, 1 refuse.
ag_decide() {
	ag_hook=$1
	shift
	ag_home=$("$ag_git" rev-parse --git-common-dir 2>/dev/null)/agentguard
	if [ ! -f "$ag_home/runtime/run.py" ] || [ ! -x "$ag_py" ]; then
		ag_broken "the agentguard runtime, its Python or git is missing"
		return 1
	fi
	ag_with_input "$ag_py" -I -S -B "$ag_home/runtime/run.py" "$ag_hook" "$PPID" "$@"
}

# The refusal when the guard itself cannot run ($1: what is wrong).
ag_broken() {
	printf '%s\n' "agentguard: refused this update [rule: guard-broken]" \
		"  $1, so a protected ref cannot be checked" "  To carry on:" "    agentguard doctor --fix" >&2
}

# All of stdin into $ag_in, exactly (a last line without its newline too); status 1 when it could
# not be read whole.
ag_read_all() {
	ag_in=$("$ag_cat" && echo x) || return 1
	ag_in=${ag_in%x}
}

# Run "$@" with $ag_in as its stdin (exactly, when it ends in a newline as git's lines do). A
# here-document, not printf: printf need not be a shell builtin (posh), and a long transaction would
# then exceed the argument-length limit.
ag_with_input() {
	if [ -z "$ag_in" ]; then
		"$@" </dev/null
		return
	fi
	ag_body=${ag_in%"$ag_nl"}
	"$@" <<ag_EOF
$ag_body
ag_EOF
}

# Run the hook that was here before agentguard, with the same arguments and stdin.
ag_chain() {
	[ -n "$ag_chained" ] || return 0
	if [ -n "$ag_chained_sh" ]; then
		# A POSIX sh hook runs sourced in a subshell so that $0 stays this path
		# (husky v9 stubs find their runner from $0). Which file is known only at run time:
		# shellcheck disable=SC1090
		( . "$ag_chained" )
	else
		"$ag_chained" "$@"
	fi
}

# HEAD of the repository git is working on, without starting a process when possible.
ag_read_head() {
	ag_head=
	if [ -z "${GIT_DIR-}" ] && [ -f .git/HEAD ]; then
		IFS= read -r ag_head < .git/HEAD || :
	else
		ag_head=$("$ag_git" symbolic-ref -q HEAD) && ag_head="ref: $ag_head"
	fi
}
# --- end of shared part ---
