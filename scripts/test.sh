#!/bin/sh
# Install everything the test suite drives for real, then run it twice: against the system git and
# against git 2.47 built from Debian trixie's source (scripts/newer-git.sh, cached outside the clone).
# Arguments go to pytest.
#   .venv          agentguard with its test extras (pytest, hypothesis, pre-commit, ruff, mypy, mkdocs)
#   apt: shellcheck and posh, when missing (tests/test_lint.py lints the hook scripts install writes;
#        tests/test_platforms.py runs the backstop's tables under posh with /proc hidden, as root);
#        openssh-server and lighttpd (tests/gitservers.py: real ssh and smart-HTTP servers on 127.0.0.1);
#        fuse3 and libfuse2 (tests/casefs.py: a case-insensitive file system, as macOS and Windows have);
#        eatmydata: the suite runs under it (fsync and sync are no-ops). No test can see durability (none
#        cuts the power; the crash-safety tests kill processes, whose writes the page cache keeps), and
#        install's sync(2) waits for every dirty page of the machine: on a busy disk most of the wall
#        time. tests/test_bench.py measures without it.
#   .venv-hermes   hermes-agent from PyPI      .venv-gptme   gptme from PyPI
#   .venv-precommit-min   pre-commit 3.2.0, the minimum .pre-commit-hooks.yaml declares
#   tests/node     pi, husky and the five harness CLIs (Claude Code, Codex, Gemini CLI, OpenCode, Copilot CLI) from npm
#   AGENTGUARD_TEST_GITS   which gits to run against: "system newer" (default), "system" or "newer";
#                          tests marked one_git (their outcome does not depend on git's version) run on the first
set -eu
cd "$(dirname "$0")/.."
missing=""
command -v shellcheck >/dev/null 2>&1 || missing="$missing shellcheck"
command -v posh >/dev/null 2>&1 || missing="$missing posh"
# real servers for the push guard's transports (tests/gitservers.py): sshd, and lighttpd in front of git http-backend
[ -x /usr/sbin/sshd ] || missing="$missing openssh-server"
[ -x /usr/sbin/lighttpd ] || missing="$missing lighttpd"
# a case-folding FUSE mount (tests/casefs.py with fusepy, which loads libfuse2; fusermount from fuse3)
command -v fusermount >/dev/null 2>&1 || missing="$missing fuse3"
ldconfig -p 2>/dev/null | grep -q 'libfuse\.so\.2 ' || missing="$missing libfuse2"
command -v eatmydata >/dev/null 2>&1 || missing="$missing eatmydata"
gits="${AGENTGUARD_TEST_GITS:-system newer}"
# The installs wait on the network, git 2.47's build on the CPU: they run side by side (on a fresh machine
# ~9.5 instead of ~14.5 minutes, measured under load), each job's messages (stderr) shown once all have
# ended. apt (the packages above, then scripts/newer-git.sh's build) in one job, as apt runs one at a time;
# each venv in its own; npm here. All end before the first pass, which needs all of it (test_fail_closed
# runs git 2.47 as a second git on the system pass too).
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
pids=""
start() {  # start NAME COMMAND...: run COMMAND in the background, its output into $logs/NAME
	name=$1
	shift
	"$@" >"$logs/$name.out" 2>"$logs/$name.err" &
	pids="$pids $name:$!"
}
# shellcheck disable=SC2317  # called through start
system_packages() {
	if [ -n "$missing" ]; then
		sudo=""
		[ "$(id -u)" = 0 ] || sudo="sudo"
		$sudo apt-get update -qq
		# shellcheck disable=SC2086
		$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
	fi
	case " $gits " in *" newer "*) sh scripts/newer-git.sh ;; esac
}
# shellcheck disable=SC2317
venv() {  # venv DIR PIP-SPEC
	[ -x "$1/bin/python" ] || python3 -m venv "$1"
	"$1/bin/python" -m pip install -q --disable-pip-version-check "$2"
}
start apt system_packages
start setup sh scripts/setup.sh '.[test]'
for h in "hermes:hermes-agent==0.19.0" "gptme:gptme==0.35.1" "precommit-min:pre-commit==3.2.0"; do
	start "${h%%:*}" venv ".venv-${h%%:*}" "${h#*:}"
done
# npm install with the lock, not npm ci: opencode-ai's binaries for other platforms are optional packages
# the registry here does not serve, so the lock cannot list them and npm ci refuses a lock without them
npm install --prefix tests/node --no-audit --no-fund --no-save --silent
failed=0
for job in $pids; do
	name=${job%%:*}
	job_status=0
	wait "${job#*:}" || job_status=$?
	cat "$logs/$name.err" >&2
	[ "$job_status" = 0 ] || { echo "scripts/test.sh: $name failed ($job_status)" >&2; failed=1; }
done
[ "$failed" = 0 ] || exit 1
newer=$(tail -n 1 "$logs/apt.out")  # newer-git.sh prints the directory holding its git last
status=0
later=0  # the passes after the first leave out the tests marked one_git (tests/conftest.py)
for which in $gits; do
	case "$which" in
	system) path="$PATH" ;;
	newer) path="$newer:$PATH" ;;
	*) echo "AGENTGUARD_TEST_GITS: unknown git '$which'" >&2; exit 2 ;;
	esac
	echo "== the whole suite against $(PATH="$path" git --version)"
	PATH="$path" AGENTGUARD_TEST_LATER_GIT=$later eatmydata .venv/bin/python -m pytest "$@" || status=$?
	later=1
done
exit "$status"
