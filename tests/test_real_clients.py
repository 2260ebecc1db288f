"""Real clients, real command lines.

Each case replays, in a real repository with agentguard installed and a real bare remote, the git argv
that a widely used client runs, taken from that client's own source (cited on the case as
``# source: <owner/repo> <path> (<function>)``; a commit is given where the copy read was pinned).
Only the values are substituted: the remote's URL, the remote's new commit, the branch ``main``.

The scene: the remote's ``main`` has advanced (``upstream_advance``), so the local ``main`` is behind.
A sync must work: exit 0, nothing refused (no "agentguard" in stderr, the audit log did not grow), and
its effect is there (``refs/remotes/origin/main`` is the remote's new main; ``main`` fast-forwarded
when the client fast-forwards it). The controls must still be refused with nothing lost: the same
clients committing on ``main``, pushing to ``main``, fetching local work over ``origin/main``.
"""
import os
import subprocess

import pytest

from helpers import ARGV_READABLE, Git, refused, upstream_advance

# about 80 s with -n 0 (one guarded repository and one upstream clone per case)
pytestmark = pytest.mark.slow


@pytest.fixture
def install_args():
    """Every layer on, as a user gets them (issue #25): every harness's adapter besides the backstop."""
    return ["--harness", "all"]


# The global options the clients put in front of every git call.
# source: magit/magit lisp/magit-git.el (defcustom magit-git-global-arguments) + lisp/magit-process.el
#         (magit-process-git-arguments puts them first) @ 137f137dccb37097ae9caa31018cafa071ff4ec1
MAGIT = ["--no-pager", "--literal-pathspecs", "-c", "core.preloadIndex=true", "-c", "log.showSignature=false",
         "-c", "color.ui=false", "-c", "color.diff=false", "-c", "diff.noPrefix=false"]
# source: JetBrains/intellij-community plugins/git4idea/src/git4idea/commands/GitHandler.java (getConfigParameters)
#         @ 004a81cf3f1d37110ba582a8731b5881d7edb581
JETBRAINS = ["-c", "core.quotepath=false", "-c", "log.showSignature=false"]
# source: cli/cli git/client.go (AuthenticatedCommand) @ 44ee17760709bedf1cad7e452e61751489b81a33
GH_AUTH = ["-c", "credential.helper=", "-c", 'credential.helper=!"gh" auth git-credential']
# source: gitlabhq/gitlab-runner shells/abstract.go (writeRefspecFetchCmd: userAgent from common.AppVersion)
GITLAB_UA = ["-c", "http.userAgent=gitlab-runner 17.11.0 linux/amd64"]


# --------------------------------------------------------------------------------------------------
# scene and checks


class Scene:
    """The guarded repository with the remote's main one commit ahead of the local main."""

    def __init__(self, repo, bare, tmp_path, env, new, old):
        self.repo, self.bare, self.tmp_path, self.env = repo, bare, tmp_path, env
        self.new, self.old = new, old
        self.subst = {"<URL>": bare.path, "<NEW>": new, "<OLD>": old, "<FEAT>": repo.rev("feat") or "",
                      "<WT>": str(tmp_path / "wt-main") if tmp_path else "", "<WTGITDIR>": ""}

    def argv(self, argv):
        out = []
        for arg in argv:
            for key, value in self.subst.items():
                arg = arg.replace(key, value)
            out.append(arg)
        return out

    def git(self, argv, stdin=None, env=None, cwd=None):
        full_env = dict(self.repo.env)
        full_env.update(env or {})
        return subprocess.run(["git", *self.argv(argv)], cwd=cwd or self.repo.path, env=full_env, input=stdin,
                              capture_output=True, text=True, timeout=120)


def audit_size(repo):
    """Bytes in the audit log (``audit.jsonl``; ``audit.log`` too, should it ever be called that)."""
    common = repo.run("rev-parse", "--git-common-dir").stdout.strip()
    home = os.path.join(repo.path, common, "agentguard")
    return sum(os.path.getsize(os.path.join(home, name)) for name in ("audit.jsonl", "audit.log")
               if os.path.exists(os.path.join(home, name)))


def accepted(proc, what, rc=0):
    assert proc.returncode == rc and "agentguard" not in proc.stderr, (
        "%s: exit %d\n%s%s" % (what, proc.returncode, proc.stdout, proc.stderr))


@pytest.fixture
def scene(guarded, tmp_path, env):
    repo, bare = guarded
    old = repo.rev("main")
    new = upstream_advance(bare, env, tmp_path)
    return Scene(repo, bare, tmp_path, env, new, old)


# --------------------------------------------------------------------------------------------------
# the cases: (head, steps, expectations). A step is argv or (argv, {"stdin":, "env":, "rc":}).
# head: "main" or "feat" (the branch the client runs on) or "wt" (main checked out in a linked
# worktree at <WT>, HEAD on feat). expect: "tracking" (refs/remotes/origin/main is the remote's new
# main), "main" ("new" fast-forwarded, "old" left alone), "head" ("new": HEAD's commit is the new one).

def case(id, head, steps, tracking=True, main="old", head_at=None, shallow=False):
    return pytest.param(dict(head=head, steps=steps, tracking=tracking, main=main, head_at=head_at,
                             shallow=shallow), id=id)


SYNC = [
    # ---- actions/checkout (GitHub Actions)
    # source: actions/checkout src/ref-helper.ts (getRefSpec: ref refs/heads/main, no commit)
    #         + src/git-command-manager.ts (fetch: -c protocol.version=2 fetch --no-tags --prune
    #           --no-recurse-submodules [--progress] [--depth=N] origin <refspecs>; checkout: --progress --force -B)
    #         @ f548e57e544e1ff5a4c46bf1e1b8685f8e4a348a
    case("actions-checkout-depth1-branch-ref", "main", [
        ["-c", "protocol.version=2", "fetch", "--no-tags", "--prune", "--no-recurse-submodules", "--progress",
         "--depth=1", "origin", "+refs/heads/main:refs/remotes/origin/main"],
        ["checkout", "--progress", "--force", "-B", "main", "refs/remotes/origin/main"],
    ], main="new", head_at="new"),
    # source: actions/checkout src/ref-helper.ts (getRefSpecForAllHistory, fetch-depth: 0)
    #         + src/git-command-manager.ts (fetch, checkout) @ f548e57e
    case("actions-checkout-full-history", "main", [
        ["-c", "protocol.version=2", "fetch", "--no-tags", "--prune", "--no-recurse-submodules", "--progress",
         "origin", "+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*"],
        ["checkout", "--progress", "--force", "-B", "main", "refs/remotes/origin/main"],
    ], main="new", head_at="new"),
    # source: actions/checkout src/git-command-manager.ts (fetch: --unshallow when .git/shallow exists and
    #         fetch-depth: 0) + src/ref-helper.ts (getRefSpecForAllHistory) @ f548e57e
    case("actions-checkout-unshallow", "main", [
        ["-c", "protocol.version=2", "fetch", "--no-tags", "--prune", "--no-recurse-submodules", "--progress",
         "--unshallow", "origin", "+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*"],
        ["checkout", "--progress", "--force", "-B", "main", "refs/remotes/origin/main"],
    ], main="new", head_at="new", shallow=True),

    # ---- GitLab Runner
    # source: gitlabhq/gitlab-runner shells/abstract.go (writeRefspecFetchCmd: -c http.userAgent=... fetch origin
    #         --no-recurse-submodules <refspecs> --depth N <GIT_FETCH_EXTRA_FLAGS>; writeCheckoutCmd: -c
    #         submodule.recurse=false checkout -f -q <sha>) + common/build_settings.go (gitFetchFlagsDefault
    #         --prune --quiet) @ d79f3e7b89abceace75e2425bfe92b84ea059933; refspecs from
    #         gitlabhq/gitlabhq app/presenters/ci/build_runner_presenter.rb (refspecs: persistent ref, branch)
    case("gitlab-runner-depth20", "main", [
        GITLAB_UA + ["fetch", "origin", "--no-recurse-submodules", "+refs/pipelines/42:refs/pipelines/42",
                     "+refs/heads/main:refs/remotes/origin/main", "--depth", "20", "--prune", "--quiet"],
        ["-c", "submodule.recurse=false", "checkout", "-f", "-q", "<NEW>"],
    ], head_at="new"),
    # source: same; GIT_DEPTH=0: refspec_for_branch('*') and refspec_for_tag('*')
    case("gitlab-runner-full", "main", [
        GITLAB_UA + ["fetch", "origin", "--no-recurse-submodules", "+refs/pipelines/42:refs/pipelines/42",
                     "+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*", "--prune", "--quiet"],
        ["-c", "submodule.recurse=false", "checkout", "-f", "-q", "<NEW>"],
    ], head_at="new"),
    # source: same (fetchUnshallowArgs: the fetch argv + --unshallow when .git/shallow exists, depth <= 0)
    case("gitlab-runner-unshallow", "main", [
        GITLAB_UA + ["fetch", "origin", "--no-recurse-submodules", "+refs/pipelines/42:refs/pipelines/42",
                     "+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*", "--prune", "--quiet",
                     "--unshallow"],
        ["-c", "submodule.recurse=false", "checkout", "-f", "-q", "<NEW>"],
    ], head_at="new", shallow=True),

    # ---- Jenkins (git-plugin driving git-client-plugin's CLI git)
    # source: jenkinsci/git-plugin src/main/java/hudson/plugins/git/GitSCM.java (fetchFrom: setRemoteUrl, then
    #         fetch_().from(url, refspecs); default refspec +refs/heads/*:refs/remotes/origin/*)
    #         @ add6e4dc74e64874e32f53fc90e8b8da3590afe5
    #       + jenkinsci/git-client-plugin src/main/java/org/jenkinsci/plugins/gitclient/CliGitAPIImpl.java
    #         (setRemoteUrl: config remote.<name>.url; fetch_ execute: fetch --tags --force --progress, then
    #         addCheckedRemoteUrl: -- <url>; revParse: rev-parse <rev>^{commit}; checkout: checkout -f <sha>)
    #         @ 0f4ff57a015dfb47a38333332883ff2dbb4a6580
    case("jenkins-git-plugin", "main", [
        ["config", "remote.origin.url", "<URL>"],
        ["fetch", "--tags", "--force", "--progress", "--", "<URL>", "+refs/heads/*:refs/remotes/origin/*"],
        ["rev-parse", "refs/remotes/origin/main^{commit}"],
        ["checkout", "-f", "<NEW>"],
    ], head_at="new"),

    # ---- VS Code git extension
    # source: microsoft/vscode extensions/git/src/git.ts (Repository.fetch, Repository.pull: --tags when
    #         git.pullTags (default true), -r for rebase, then remote and branch)
    #         @ 0020bf4054220d53eafffc871a207ac88fbf4ff0
    #       + extensions/git/src/repository.ts (fetchDefault/fetchAll/fetchPrune, pull/pullWithRebase -> pullFrom:
    #         remote and branch are the upstream's)
    case("vscode-fetch-then-pull", "main", [
        ["fetch"],
        ["pull", "--tags", "origin", "main"],
    ], main="new", head_at="new"),
    case("vscode-fetch-all-then-pull-rebase", "main", [
        ["fetch", "--all"],
        ["pull", "--tags", "-r", "origin", "main"],
    ], main="new", head_at="new"),
    case("vscode-fetch-prune", "main", [["fetch", "--prune"]]),
    # source: microsoft/vscode extensions/git/src/repository.ts (fastForwardBranch: fetch <remote> <upstream>:<branch>)
    case("vscode-fast-forward-other-branch", "feat", [["fetch", "origin", "main:main"]], main="new"),

    # ---- JetBrains IDEs (git4idea)
    # source: JetBrains/intellij-community plugins/git4idea/src/git4idea/commands/GitImpl.java (fetch: <remote>
    #         <params> --progress --prune) @ 00c7636db98a620e74ff7d2462d7fde212d200f5
    #       + plugins/git4idea/src/git4idea/fetch/GitFetchSupportImpl.kt (fetchDefaultRemote, fetchUnshallow)
    case("jetbrains-fetch", "main", [JETBRAINS + ["fetch", "origin", "--progress", "--prune"]]),
    case("jetbrains-fetch-unshallow", "main", [JETBRAINS + ["fetch", "origin", "--unshallow", "--progress",
                                                            "--prune"]], shallow=True),

    # ---- GitHub Desktop
    # source: desktop/desktop app/src/lib/git/fetch.ts (getFetchArgs) + app/src/lib/git/pull.ts (getPullArgs:
    #         gitRebaseArguments, --ff when pull.ff is unset, --recurse-submodules, --progress, remote)
    #         + app/src/lib/git/core.ts (gitRebaseArguments) @ 5a700425f9102a82bb76265d3cd6cdc0040205de
    case("github-desktop-fetch-then-pull", "main", [
        ["fetch", "--progress", "--prune", "--recurse-submodules=on-demand", "origin"],
        ["-c", "rebase.backend=merge", "pull", "--ff", "--recurse-submodules", "--progress", "origin"],
    ], main="new", head_at="new"),
    # source: desktop/desktop app/src/lib/git/fetch.ts (fastForwardBranches: refs on stdin, GIT_REFLOG_ACTION=pull)
    #         + app/src/lib/git/for-each-ref.ts (getBranchesDifferingFromUpstream: the current branch is skipped)
    case("github-desktop-fast-forward-branches", "feat", [
        ["fetch", "--progress", "--prune", "--recurse-submodules=on-demand", "origin"],
        (["fetch", ".", "--show-forced-updates", "--no-write-fetch-head", "--stdin"],
         {"stdin": "refs/remotes/origin/main:refs/heads/main\n", "env": {"GIT_REFLOG_ACTION": "pull"}}),
    ], main="new"),

    # ---- lazygit
    # source: jesseduffield/lazygit pkg/commands/git_commands/sync.go (fetchCommandBuilder: fetch [--all]
    #         --no-write-fetch-head, git.fetchAll default true; Pull: pull --no-edit [--ff-only] [remote
    #         refs/heads/<branch>] with GIT_SEQUENCE_EDITOR=:) @ ea916395469808d37d726ae183fa40fd575a9d8a
    case("lazygit-fetch-then-pull", "main", [
        ["fetch", "--all", "--no-write-fetch-head"],
        (["pull", "--no-edit"], {"env": {"GIT_SEQUENCE_EDITOR": ":"}}),
    ], main="new", head_at="new"),
    # source: jesseduffield/lazygit pkg/gui/controllers/branches_controller.go (fastForward of the checked-out
    #         branch: Sync.Pull with the upstream and FastForwardOnly)
    case("lazygit-fast-forward-current", "main", [
        (["pull", "--no-edit", "--ff-only", "origin", "refs/heads/main"], {"env": {"GIT_SEQUENCE_EDITOR": ":"}}),
    ], main="new", head_at="new"),
    # source: jesseduffield/lazygit pkg/commands/git_commands/sync.go (FastForward: fetch --no-write-fetch-head
    #         <remote> refs/heads/<upstream>:<branch>)
    case("lazygit-fast-forward-other-branch", "feat", [
        ["fetch", "--no-write-fetch-head", "origin", "refs/heads/main:main"],
    ], main="new"),
    # source: jesseduffield/lazygit pkg/gui/controllers/branches_controller.go (fastForward of a branch checked out
    #         in another worktree) + pkg/commands/git_commands/git_command_builder.go (GitDir, Worktree: prepended)
    case("lazygit-fast-forward-in-other-worktree", "wt", [
        (["--work-tree", "<WT>", "--git-dir", "<WTGITDIR>", "pull", "--no-edit", "--ff-only", "origin",
          "refs/heads/main"], {"env": {"GIT_SEQUENCE_EDITOR": ":"}}),
    ], main="new"),

    # ---- magit
    # source: magit/magit lisp/magit-fetch.el (magit-git-fetch: fetch <remote> <args>) + lisp/magit-pull.el
    #         (magit-pull-from-upstream: pull <args> <remote> <merge>) @ 137f137dccb37097ae9caa31018cafa071ff4ec1
    case("magit-fetch-then-pull", "main", [
        MAGIT + ["fetch", "origin"],
        MAGIT + ["pull", "origin", "refs/heads/main"],
    ], main="new", head_at="new"),
    # source: magit/magit lisp/magit-fetch.el (magit-fetch-all-prune: remote update --prune)
    case("magit-fetch-all-prune", "main", [MAGIT + ["remote", "update", "--prune"]]),
    # source: magit/magit lisp/magit-fetch.el (magit-fetch-all: fetch --all <args>, -p/-t switches)
    case("magit-fetch-all", "main", [MAGIT + ["fetch", "--all", "--prune", "--tags"]]),
    # source: magit/magit lisp/magit-pull.el (magit-pull-into-upstream: fetch <remote> <branch>, then
    #         update-ref refs/heads/<up1> FETCH_HEAD), on feat whose upstream is the local main
    case("magit-pull-into-upstream", "feat-tracks-main", [
        MAGIT + ["fetch", "origin", "main"],
        MAGIT + ["update-ref", "refs/heads/main", "FETCH_HEAD"],
    ], main="new"),

    # ---- gh (GitHub CLI)
    # source: cli/cli pkg/cmd/repo/sync/git.go (Fetch: fetch -q <remote> <ref>, authenticated; IsAncestor:
    #         merge-base --is-ancestor; MergeFastForward: merge --ff-only --quiet) + pkg/cmd/repo/sync/sync.go
    #         (Fetch of refs/heads/<branch>; executeLocalRepoSync) @ 44ee17760709bedf1cad7e452e61751489b81a33
    case("gh-repo-sync-on-main", "main", [
        GH_AUTH + ["fetch", "-q", "origin", "refs/heads/main"],
        ["merge-base", "--is-ancestor", "main", "FETCH_HEAD"],
        ["merge", "--ff-only", "--quiet", "FETCH_HEAD"],
    ], main="new", head_at="new"),
    # source: cli/cli pkg/cmd/repo/sync/git.go (UpdateBranch: update-ref refs/heads/<branch> FETCH_HEAD)
    case("gh-repo-sync-other-branch", "feat", [
        GH_AUTH + ["fetch", "-q", "origin", "refs/heads/main"],
        ["merge-base", "--is-ancestor", "main", "FETCH_HEAD"],
        ["update-ref", "refs/heads/main", "FETCH_HEAD"],
    ], main="new"),

    # ---- git-town
    # source: git-town/git-town internal/git/commands.go (Fetch: fetch --prune --tags; MergeFastForward: merge
    #         --ff-only <branch>; Rebase: -c rebase.updateRefs=false rebase <target>)
    #       + internal/cmd/sync/sync_branch.go (updateCurrentPerennialBranchOpcode: ff-only or rebase onto the
    #         tracking branch) @ 0f3e55f5a6bae5b319dd713a0606263d0551af66
    case("git-town-sync-ff-only", "main", [
        ["fetch", "--prune", "--tags"],
        ["merge", "--ff-only", "origin/main"],
    ], main="new", head_at="new"),
    case("git-town-sync-rebase", "main", [
        ["fetch", "--prune", "--tags"],
        ["-c", "rebase.updateRefs=false", "rebase", "origin/main"],
    ], main="new", head_at="new"),

    # ---- git-machete
    # source: VirtusLab/git-machete git_machete/git.py (fetch_remote: fetch <remote> --prune; pull_ff_only:
    #         merge --ff-only <remote_branch>, then set_upstream_to: branch --set-upstream-to)
    #         @ 7c285afb7b3a9560953d60bf3371071ba52f69f2
    case("git-machete-pull-ff-only", "main", [
        ["fetch", "origin", "--prune"],
        ["merge", "--ff-only", "origin/main"],
        ["branch", "--set-upstream-to", "origin/main"],
    ], main="new", head_at="new"),
    # source: VirtusLab/git-machete git_machete/git.py (reset_keep: reset --keep <revision>)
    case("git-machete-reset-keep-to-remote", "main", [
        ["fetch", "origin", "--prune"],
        ["reset", "--keep", "origin/main"],
    ], main="new", head_at="new"),

    # ---- what people type (git's own options, no client source; the known parser bugs are here too:
    #      `fetch --depth 1 origin`, `fetch -j 4 origin`, `pull -j 4`)
    case("typed-pull-rebase-autostash", "main-dirty", [["pull", "--rebase", "--autostash"]], main="new",
         head_at="new"),
    case("typed-fetch-all-prune-tags", "main", [["fetch", "--all", "--prune", "--tags"]]),
    case("typed-remote-update-prune", "main", [["remote", "update", "--prune"]]),
    case("typed-fetch-unshallow", "main", [["fetch", "--unshallow"]], shallow=True),
    case("typed-fetch-depth-1", "main", [["fetch", "--depth", "1", "origin"]]),
    case("typed-fetch-depth=1", "main", [["fetch", "--depth=1", "origin"]]),
    case("typed-fetch-j-4", "main", [["fetch", "-j", "4", "origin"]]),
    case("typed-fetch-jobs=4", "main", [["fetch", "--jobs=4", "origin"]]),
    case("typed-pull-j-4", "main", [["pull", "-j", "4"]], main="new", head_at="new"),
    case("typed-fetch-filter-blob-none", "main", [["fetch", "--filter=blob:none", "origin"]]),
    case("typed-fetch-then-merge-ff-only", "main", [["fetch", "origin"], ["merge", "--ff-only", "@{u}"]],
         main="new", head_at="new"),
    case("typed-maintenance-prefetch", "main", [["maintenance", "run", "--task=prefetch"]], tracking=False),
    case("typed-gc", "main", [["fetch", "origin"], ["gc", "-q"]]),
    case("typed-maintenance-run", "main", [["fetch", "origin"], ["maintenance", "run"]]),
]


def prepare(scene, head, shallow, tmp_path, env):
    """Put the repository in the state the client meets; returns the Scene to run in."""
    if shallow:
        # a shallow clone of a remote with two commits, guarded, then the remote advances again
        url = "file://" + scene.bare.path
        path = tmp_path / "shallow"
        subprocess.run(["git", "clone", "-q", "--depth", "1", url, str(path)], env=env, check=True)
        repo = Git(str(path), env)
        repo.run("remote", "set-url", "origin", scene.bare.path)
        assert os.path.exists(os.path.join(repo.path, ".git", "shallow"))
        repo.agentguard("install")
        repo.run("checkout", "-q", "-b", "feat")
        repo.commit("feature work")
        repo.run("checkout", "-q", "main")
        old = repo.rev("main")
        new = upstream_advance(scene.bare, env, tmp_path, "after shallow clone")
        scene = Scene(repo, scene.bare, tmp_path, env, new, old)
    repo = scene.repo
    if head in ("feat", "feat-tracks-main"):
        repo.run("checkout", "-q", "feat")
        if head == "feat-tracks-main":
            repo.run("branch", "--set-upstream-to", "main", "feat")
    elif head == "wt":
        repo.run("checkout", "-q", "feat")
        repo.run("worktree", "add", "-q", scene.subst["<WT>"], "main")
        gitdir = Git(scene.subst["<WT>"], env).run("rev-parse", "--absolute-git-dir").stdout.strip()
        scene.subst["<WTGITDIR>"] = gitdir
    elif head == "main-dirty":
        with open(os.path.join(repo.path, "initial.txt"), "a") as fh:
            fh.write("uncommitted edit\n")
    return scene


@pytest.mark.parametrize("spec", SYNC)
def test_client_sync_is_not_refused(scene, spec, tmp_path, env):
    scene = prepare(scene, spec["head"], spec["shallow"], tmp_path, env)
    repo = scene.repo
    # the remote has a pipeline ref (GitLab) and a pull-request ref (GitHub) as the real hosts do
    scene.bare.run("update-ref", "refs/pipelines/42", scene.new)
    audit = audit_size(repo)
    for step in spec["steps"]:
        argv, opts = step if isinstance(step, tuple) else (step, {})
        proc = scene.git(argv, stdin=opts.get("stdin"), env=opts.get("env"))
        accepted(proc, " ".join(scene.argv(argv)), rc=opts.get("rc", 0))
    assert audit_size(repo) == audit, "a refusal was recorded in the audit log"
    if spec["tracking"]:
        assert repo.rev("refs/remotes/origin/main") == scene.new
    else:  # prefetch writes refs/prefetch/, never the remote-tracking refs
        assert repo.rev("refs/prefetch/remotes/origin/main") == scene.new
    assert repo.rev("refs/heads/main") == (scene.new if spec["main"] == "new" else scene.old)
    if spec["head_at"] == "new":
        assert repo.rev("HEAD") == scene.new
    if spec["head"] == "main-dirty":
        assert "uncommitted edit" in open(os.path.join(repo.path, "initial.txt")).read()
    if spec["head"] == "wt":
        assert Git(scene.subst["<WT>"], env).rev("HEAD") == scene.new


# --------------------------------------------------------------------------------------------------
# pull-request checkouts (gh)

def test_gh_pr_checkout_existing_remote(scene):
    """gh pr checkout of a branch on origin: fetch into its remote-tracking ref, then a tracking branch."""
    # source: cli/cli pkg/cmd/pr/checkout/checkout.go (cmdsForExistingRemote: fetch <remote>
    #         +refs/heads/<head>:refs/remotes/<remote>/<head>; checkout -b <head> --track <remote>/<head>)
    #         @ 44ee1776; fetch runs authenticated (runCmds: fetch/submodule -> AuthenticatedCommand)
    repo, bare = scene.repo, scene.bare
    topic = upstream_advance(bare, scene.env, scene.tmp_path, "pr topic")  # pushed to main; make it a branch too
    bare.run("update-ref", "refs/heads/topic", topic)
    audit = audit_size(repo)
    accepted(scene.git(GH_AUTH + ["fetch", "origin", "+refs/heads/topic:refs/remotes/origin/topic"]), "gh fetch")
    accepted(scene.git(["checkout", "-b", "topic", "--track", "origin/topic"]), "gh checkout")
    assert repo.rev("HEAD") == topic and audit_size(repo) == audit


def test_gh_pr_checkout_fork_pr_named_main(scene):
    """A fork's PR whose head is called main: gh names the local branch <owner>/main and fetches by URL."""
    # source: cli/cli pkg/cmd/pr/checkout/checkout.go (cmdsForMissingRemote: localBranch <owner>/<head> when the
    #         head is the default branch; fetch <baseURL> refs/pull/<n>/head:<localBranch>; checkout <localBranch>)
    repo, bare = scene.repo, scene.bare
    bare.run("update-ref", "refs/pull/7/head", scene.new)
    audit = audit_size(repo)
    accepted(scene.git(GH_AUTH + ["fetch", "<URL>", "refs/pull/7/head:octocat/main"]), "gh fetch by URL")
    accepted(scene.git(["checkout", "octocat/main"]), "gh checkout")
    assert repo.rev("refs/heads/octocat/main") == scene.new
    assert repo.rev("refs/heads/main") == scene.old and audit_size(repo) == audit


# --------------------------------------------------------------------------------------------------
# pre-commit's stash dance on main (what `pre-commit run` does with unstaged changes)

def test_pre_commit_staged_files_only_on_main(scene):
    # source: pre-commit/pre-commit pre_commit/staged_files_only.py (_unstaged_changes_cleared: write-tree,
    #         diff-index --ignore-submodules --binary --exit-code --no-color --no-ext-diff <tree> --,
    #         _CHECKOUT_CMD -c submodule.recurse=0 checkout -- . with _PRE_COMMIT_SKIP_POST_CHECKOUT=1,
    #         _git_apply: apply --whitespace=nowarn <patch>; _intent_to_add_cleared: rm --cached --, add
    #         --intent-to-add --) @ a9bba55a3f74068b53f4bd4d831d7e05e34eae6c
    repo = scene.repo
    with open(os.path.join(repo.path, "staged.txt"), "w") as fh:
        fh.write("staged\n")
    repo.run("add", "staged.txt")
    with open(os.path.join(repo.path, "staged.txt"), "a") as fh:
        fh.write("unstaged on top\n")
    with open(os.path.join(repo.path, "ita.txt"), "w") as fh:
        fh.write("intent to add\n")
    repo.run("add", "--intent-to-add", "ita.txt")
    audit = audit_size(repo)
    no_checkout = {"_PRE_COMMIT_SKIP_POST_CHECKOUT": "1"}
    accepted(scene.git(["rm", "--cached", "--", "ita.txt"]), "pre-commit rm --cached")
    tree = scene.git(["write-tree"])
    accepted(tree, "write-tree")
    diff = subprocess.run(["git", "diff-index", "--ignore-submodules", "--binary", "--exit-code", "--no-color",
                           "--no-ext-diff", tree.stdout.strip(), "--"], cwd=repo.path, env=repo.env,
                          capture_output=True, timeout=120)
    assert diff.returncode == 1 and diff.stdout.strip(), diff.stderr
    patch = os.path.join(str(scene.tmp_path), "patch-pre-commit")
    with open(patch, "wb") as fh:
        fh.write(diff.stdout)
    accepted(scene.git(["-c", "submodule.recurse=0", "checkout", "--", "."], env=no_checkout), "checkout -- .")
    assert "unstaged on top" not in open(os.path.join(repo.path, "staged.txt")).read()
    accepted(scene.git(["apply", "--whitespace=nowarn", patch]), "apply")
    accepted(scene.git(["add", "--intent-to-add", "--", "ita.txt"]), "add --intent-to-add")
    assert open(os.path.join(repo.path, "staged.txt")).read() == "staged\nunstaged on top\n"
    assert repo.staged() == ["staged.txt"]
    assert "ita.txt" in repo.run("ls-files", "--", "ita.txt").stdout  # intent-to-add again
    assert repo.rev("main") == scene.old and audit_size(repo) == audit


# --------------------------------------------------------------------------------------------------
# more of what people type

def test_typed_clone_filter_blob_none(scene):
    clone = str(scene.tmp_path / "partial")
    accepted(scene.git(["clone", "-q", "--filter=blob:none", "file://" + scene.bare.path, clone]), "clone")
    assert Git(clone, scene.env).rev("HEAD") == scene.new


def test_typed_worktree_add_from_origin_main(scene):
    repo = scene.repo
    audit = audit_size(repo)
    accepted(scene.git(["fetch", "origin"]), "fetch")
    wt = str(scene.tmp_path / "wt-topic")
    accepted(scene.git(["worktree", "add", "-b", "topic", wt, "origin/main"]), "worktree add -b")
    accepted(scene.git(["worktree", "add", "--detach", wt + "-2", "origin/main"]), "worktree add --detach")
    wt_repo = Git(wt, scene.env)
    wt_repo.commit("in the worktree")
    assert wt_repo.rev("HEAD") != scene.new and repo.rev("main") == scene.old and audit_size(repo) == audit


def test_typed_submodule_update(scene, tmp_path, env):
    """The remote's main gains a submodule; pull, then submodule update --init --recursive."""
    subprocess.run(["git", "config", "--global", "protocol.file.allow", "always"], env=env, check=True)
    sub_path = tmp_path / "sub.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(sub_path)], env=env, check=True)
    seed = tmp_path / "sub-seed"
    subprocess.run(["git", "clone", "-q", str(sub_path), str(seed)], env=env, check=True)
    Git(str(seed), env).commit("sub content")
    Git(str(seed), env).run("push", "-q", "origin", "HEAD:main")
    other = tmp_path / "other-sub"
    subprocess.run(["git", "clone", "-q", scene.bare.path, str(other)], env=env, check=True)
    o = Git(str(other), env)
    o.run("submodule", "add", "-q", str(sub_path), "vendor/sub")
    o.run("commit", "-q", "-m", "add submodule")
    o.run("push", "-q", "origin", "main")
    new = o.rev("HEAD")
    repo = scene.repo
    audit = audit_size(repo)
    accepted(scene.git(["pull", "--ff-only"]), "pull")
    accepted(scene.git(["submodule", "update", "--init", "--recursive"]), "submodule update")
    accepted(scene.git(["submodule", "update", "--remote", "--recursive"]), "submodule update --remote")
    assert repo.rev("main") == new and audit_size(repo) == audit
    assert os.path.exists(os.path.join(repo.path, "vendor", "sub", "sub_content.txt"))


# --------------------------------------------------------------------------------------------------
# controls: the same clients must still be refused, with nothing lost


def stage(repo, name="staged.txt"):
    with open(os.path.join(repo.path, name), "w") as fh:
        fh.write("precious work\n")
    repo.run("add", name)


COMMITS = [
    pytest.param(["commit", "-q", "-m", "direct to main"], {}, id="typed"),
    # source: microsoft/vscode extensions/git/src/git.ts (Repository.commit: -c user.useConfigOnly=true commit
    #         --quiet --allow-empty-message --file -, message on stdin)
    pytest.param(["-c", "user.useConfigOnly=true", "commit", "--quiet", "--allow-empty-message", "--file", "-"],
                 {"stdin": "vscode message\n"}, id="vscode"),
    # source: desktop/desktop app/src/lib/git/commit.ts (createCommit: commit -F -, message on stdin)
    pytest.param(["commit", "-F", "-"], {"stdin": "desktop message\n"}, id="github-desktop"),
    # source: jesseduffield/lazygit pkg/commands/git_commands/commit.go (CommitCmdObj: commit -m <summary>)
    pytest.param(["commit", "-m", "lazygit message"], {}, id="lazygit"),
    # source: magit/magit lisp/magit-commit.el (magit-commit-create: commit <args> with the editor)
    pytest.param(MAGIT + ["commit"], {"env": {"GIT_EDITOR": "sh -c 'echo magit message > \"$1\"' -"}},
                 id="magit"),
]


@pytest.mark.parametrize("argv,opts", COMMITS)
def test_client_commit_on_main_is_refused(guarded, argv, opts):
    repo, bare = guarded
    stage(repo)
    scene = Scene(repo, bare, None, repo.env, bare.rev("main"), repo.rev("main"))
    before = repo.rev("main")
    proc = scene.git(argv, stdin=opts.get("stdin"), env=opts.get("env"))
    assert refused(proc), proc.stdout + proc.stderr
    assert repo.rev("main") == before
    assert repo.staged() == ["staged.txt"], "the staged work must still be staged"


PUSHES = [
    pytest.param(["push", "origin", "HEAD:main"], id="typed"),
    # source: microsoft/vscode extensions/git/src/repository.ts (push: <remote> <head>:<upstream>) + git.ts (push)
    pytest.param(["push", "origin", "feat:main"], id="vscode"),
    # source: desktop/desktop app/src/lib/git/push.ts (push <remote> <local>:<remote branch> [--progress])
    pytest.param(["push", "origin", "feat:main", "--progress"], id="github-desktop"),
    # source: magit/magit lisp/magit-push.el (magit-git-push: push -v <args> <remote> <branch>:<target>)
    pytest.param(MAGIT + ["push", "-v", "origin", "feat:main"], id="magit"),
    # source: jesseduffield/lazygit pkg/commands/git_commands/sync.go (PushCmdObj: push <remote>
    #         refs/heads/<current>:<upstream branch>)
    pytest.param(["push", "origin", "refs/heads/feat:main"], id="lazygit"),
    # source: JetBrains/intellij-community plugins/git4idea/src/git4idea/commands/GitImpl.java (doPush: push
    #         --progress --porcelain <remote> <spec>)
    pytest.param(JETBRAINS + ["push", "--progress", "--porcelain", "origin", "feat:main"], id="jetbrains"),
    # source: cli/cli pkg/cmd/pr/create/create.go (handlePush: HEAD:refs/heads/<head>) + git/client.go (Push:
    #         push --set-upstream <remote> <ref>, authenticated)
    pytest.param(GH_AUTH + ["push", "--set-upstream", "origin", "HEAD:refs/heads/main"], id="gh"),
    # source: git-town/git-town internal/git/commands.go (PushLocalBranch: push <remote> <sha>:refs/heads/<branch>)
    pytest.param(["push", "origin", "<FEAT>:refs/heads/main"], id="git-town"),
]


def refused_and_unmoved(repo, bare, argv, read):
    """``argv`` (with <FEAT>/<URL> placeholders) is refused and the ref ``read()`` returns did not move."""
    before = read()
    proc = Scene(repo, bare, None, repo.env, bare.rev("main"), repo.rev("main")).git(argv)
    assert refused(proc), proc.stdout + proc.stderr
    assert read() == before


@pytest.mark.parametrize("argv", PUSHES)
def test_client_push_to_main_is_refused(guarded, argv):
    repo, bare = guarded
    repo.run("checkout", "-q", "feat")  # feat is a fast-forward of the remote's main: only the guard stops it
    refused_and_unmoved(repo, bare, argv, lambda: bare.rev("main"))


FORGES = [
    # source: magit/magit lisp/magit-fetch.el (magit-fetch-refspec: fetch <remote> <refspec>)
    pytest.param(["fetch", "origin", "+feat:refs/remotes/origin/main"], id="refs-remotes"),
    pytest.param(["fetch", "origin", "+feat:remotes/origin/main"], id="remotes-short"),
]


@pytest.mark.parametrize("argv", FORGES)
def test_forging_origin_main_is_refused(guarded, argv):
    repo, bare = guarded
    repo.run("push", "-q", "origin", "feat")  # the remote has feat: the fetch itself would work
    refused_and_unmoved(repo, bare, argv, lambda: repo.rev("refs/remotes/origin/main"))


MERGES = [
    # source: git-town/git-town internal/cmd/ship/ff.go (shipProgramFastForward: MergeFastForward of the branch
    #         to ship into the target, then PushCurrentBranch) + internal/git/commands.go (merge --ff-only)
    pytest.param(["merge", "--ff-only", "feat"], id="git-town-ship-ff"),
    # source: VirtusLab/git-machete git_machete/git.py (merge_fast_forward_only: merge --ff-only refs/heads/<b>)
    pytest.param(["merge", "--ff-only", "refs/heads/feat"], id="git-machete-advance"),
]


@pytest.mark.parametrize("argv", MERGES)
def test_client_fast_forward_of_local_work_is_refused(guarded, argv):
    repo, bare = guarded
    refused_and_unmoved(repo, bare, argv, lambda: repo.rev("main"))


# --------------------------------------------------------------------------------------------------
# CI checkouts that are policy questions, decided (docs/how-it-is-built.md: "CI checkouts that fetch a commit id")

# DECIDED: a commit id fetched into refs/remotes/origin/main is refused [rule: remote-tracking-forge]. The id
# proves the commit is on the remote (a pull request head, any pushed branch), not on the remote's main;
# accepting it would let `merge --ff-only origin/main` move main onto anything ever pushed. Nothing moves:
# the `checkout -B main refs/remotes/origin/main` that follows leaves main where it was. CI runners clone
# afresh without hooks; a reused workspace with agentguard installed should fetch the branch by name.
DECISION_SHA_FETCH = (128, True, 0, False)  # (fetch exit, fetch refused, checkout -B exit, checkout refused)
# Where no argv can be read, the hook cannot tell a commit id from a branch name in the refspec, and
# asks the remote instead: it really has that commit as its main, so the fetch and the reset are allowed.
DECISION_SHA_FETCH_NO_ARGV = (0, False, 0, False)
# DECIDED: a protected branch is not deleted, even when it holds nothing the remote lacks
# [rule: protected-delete]: actions/checkout then wipes and re-clones the workspace, Jenkins fails the checkout.
DECISION_DELETE_MAIN = (128, True)  # (exit, refused)


def test_actions_checkout_fetches_a_commit_id_into_origin_main(scene):
    # source: actions/checkout src/ref-helper.ts (getRefSpec: ref refs/heads/main with commit <sha> ->
    #         +<sha>:refs/remotes/origin/main; the default for push events) + src/git-command-manager.ts (fetch;
    #         checkout -B) @ f548e57e
    # DECIDED (above): a commit id given on the command line, not the remote's main, is refused.
    repo = scene.repo
    audit = audit_size(repo)
    fetch = scene.git(["-c", "protocol.version=2", "fetch", "--no-tags", "--prune", "--no-recurse-submodules",
                       "--progress", "--depth=1", "origin", "+<NEW>:refs/remotes/origin/main"])
    checkout = scene.git(["checkout", "--progress", "--force", "-B", "main", "refs/remotes/origin/main"])
    outcome = (fetch.returncode, "agentguard: refused" in fetch.stderr, checkout.returncode,
               "agentguard: refused" in checkout.stderr)
    assert outcome == (DECISION_SHA_FETCH if ARGV_READABLE else DECISION_SHA_FETCH_NO_ARGV), \
        (outcome, fetch.stderr, checkout.stderr)
    if outcome[0] == 0:
        assert repo.rev("refs/remotes/origin/main") == scene.new and repo.rev("main") == scene.new
        assert audit_size(repo) == audit
    else:
        assert repo.rev("refs/remotes/origin/main") == scene.old and repo.rev("main") == scene.old


def test_actions_checkout_reused_workspace_deletes_local_branches(scene):
    # source: actions/checkout src/git-directory-helper.ts (prepareExistingDirectory: checkout --detach when on a
    #         branch, then branch --delete --force <each local branch>; on failure the directory is wiped and
    #         cloned again) + src/git-command-manager.ts (checkoutDetach, branchDelete) @ f548e57e
    # DECIDED (above): a protected branch is not deleted.
    repo = scene.repo
    accepted(scene.git(["checkout", "--detach"]), "checkout --detach")
    proc = scene.git(["branch", "--delete", "--force", "main"])
    outcome = (proc.returncode, "agentguard: refused" in proc.stderr)
    assert outcome == DECISION_DELETE_MAIN, (outcome, proc.stderr)
    assert (repo.rev("refs/heads/main") is None) == (outcome[0] == 0)


def test_jenkins_local_branch_recreates_main(scene):
    # source: jenkinsci/git-plugin src/main/java/hudson/plugins/git/GitSCM.java (checkout with LocalBranch:
    #         deleteBranchIfExist(true)) + jenkinsci/git-client-plugin .../CliGitAPIImpl.java (checkout:
    #         checkout -f <sha>; deleteBranch: branch -D <name>; checkout -b <branch> <sha>)
    # DECIDED (above): like the actions/checkout workspace reuse.
    repo = scene.repo
    accepted(scene.git(["fetch", "--tags", "--force", "--progress", "--", "<URL>",
                        "+refs/heads/*:refs/remotes/origin/*"]), "jenkins fetch")
    accepted(scene.git(["checkout", "-f", "<NEW>"]), "checkout -f <sha>")
    delete = scene.git(["branch", "-D", "main"])
    outcome = (delete.returncode, "agentguard: refused" in delete.stderr)
    assert outcome == DECISION_DELETE_MAIN, (outcome, delete.stderr)
    if outcome[0] == 0:
        accepted(scene.git(["checkout", "-b", "main", "<NEW>"]), "checkout -b main <sha>")
        assert repo.rev("refs/heads/main") == scene.new

