#!/bin/sh
# A throwaway demo: a bare "server", a clone with agentguard installed, and git refusing
# what agents (and tired humans) do to main, while feature work flows.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
sh "$root/scripts/setup.sh" >/dev/null
ag="$root/.venv/bin/agentguard"
demo=$(mktemp -d "${TMPDIR:-/tmp}/agentguard-demo.XXXXXX")
cd "$demo"
export GIT_AUTHOR_NAME=demo GIT_AUTHOR_EMAIL=demo@example.com GIT_COMMITTER_NAME=demo GIT_COMMITTER_EMAIL=demo@example.com
step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@" 2>&1 || printf '(exit %s)\n' "$?"; }

git init -q --bare -b main server.git
git init -q -b main app && cd app
echo "hello" > README && git add README && git commit -qm "initial" && git remote add origin ../server.git
git push -q -u origin main
step "$ag" install
echo "agent work" >> README && git add README
step git commit -m "straight onto main"
step git commit --no-verify -m "straight onto main, skipping hooks"
step git switch -c feature
step git commit -qm "the same work, on a branch"
step git push origin feature:main
step git push --no-verify origin feature:main
step git push -q -u origin feature
step git branch -f main feature
# an agent's tool call that gets around the text checks: hooks deleted, main moved by hand; the
# adapters run this after every call: it puts both back and keeps the commit on a rescue branch
step .git/agentguard/check -- ls
rm .git/hooks/reference-transaction && git rev-parse feature > .git/refs/heads/main
step .git/agentguard/check --after
step git branch --list "agentguard/rescued/*"
git switch -q feature
echo
echo "main is still at: $(git rev-parse --short main) (server: $(git -C ../server.git rev-parse --short main))"
echo "audit log: $(wc -l < .git/agentguard/audit.jsonl) refusals in .git/agentguard/audit.jsonl"
echo "demo repository: $demo/app"
