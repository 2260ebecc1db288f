"""What the runtime knows about one harness (``Harness``), and how its hook protocol reads a tool
call and answers (``Protocol``). Plain classes: dataclasses and typing cost ~8 ms of imports on
every tool call."""
import os


class Protocol:
    """Where one harness's payload names the tool, its arguments and the working directory, and how
    its hooks answer."""

    def __init__(self, tool, args, shell, writes, patches=None, reads=(), workdir=None, deny=None, post=(),
                 tell=None, unmatched_shell=None, powershell=(), cwd="cwd", later=False, note=None, load=None,
                 lists=(), refuse=None, exit_blocks=True):
        self.tool = tool  # key of the tool's name
        self.args = args  # key of its arguments (a tuple: the first the payload has)
        self.shell = dict(shell, **(unmatched_shell or {}))  # tool -> argument holding the command
        self.powershell = powershell  # the shell tools whose command is PowerShell (analyser/powershell.py)
        self.writes = writes  # tool -> arguments holding target paths (a path or a list of paths)
        self.patches = patches or {}  # tool -> argument holding a patch
        self.reads = reads  # tools that only read: allowed without a look, no after-check
        self.workdir = workdir or {}  # tool -> argument naming the directory a command runs in
        self.deny = deny  # reason -> (JSON for stdout or None, exit status); None: (None, 2)
        self.post = post  # the harness's post-call hook events, the default first (install hooks each)
        self.tell = tell  # (reason, event) -> (JSON for stdout, exit status) a post hook gives the
        # model; None: the reason on stderr, exit 2 (what a plugin of ours that runs the hook reads)
        self.cwd = cwd  # key of the directory the call runs in
        # ``later``: no post-call hook of the harness can tell the model anything (it has none, or they
        # only observe): the after-check's report is told at the next pre-call, by ``note(reason)``
        # (JSON for stdout or None, exit status: an answer that lets the call run) or, where the
        # harness has no such answer, as that call's refusal. With no post events the next pre-call
        # runs the after-check itself.
        self.later, self.note = later, note
        # the tools a settings-file matcher names (``unmatched_shell``: payload names of command tools
        # the harness's matcher does not take, which the check still reads)
        self.matched = tuple(shell) + tuple(writes) + tuple(self.patches)
        # the payload as read, turned into the flat shape the keys above name (None: it is that shape)
        self.load = load
        self.lists = lists  # shell tools whose argument is a list of commands, each run on its own
        # (reason, payload) -> (JSON for stdout or None, exit status): a refusal that depends on the call
        # (its tool, its arguments), where ``deny`` is the one for a call that could not be read
        self.refuse = refuse
        self.exit_blocks = exit_blocks  # exit status 2 blocks (False: only ``deny``'s answer does)


def context(reason, event):
    """Claude Code (PostToolUse, PostToolUseFailure), Codex (PostToolUse), Gemini CLI (AfterTool): the
    hook's additionalContext, with exit 0. Claude Code puts it next to the tool result (a
    system-reminder: "<event>:<tool> hook additional context: ..."), Codex as a developer message
    next to the call's output, Gemini CLI at the end of the tool result (<hook_context>). The other
    answers either replace the tool's output (Codex's and Gemini's block and exit 2) or show the
    model the whole hook command in front of the reason (Claude Code's block and exit 2)."""
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": reason}}, 0


def home(env):
    """The user's home in the environment ``env``."""
    return env.get("HOME") or os.path.expanduser("~")


def config_home(env):
    """``$XDG_CONFIG_HOME``, or ``~/.config``."""
    return env.get("XDG_CONFIG_HOME") or os.path.join(home(env), ".config")


def no_paths(env):
    return []


class Harness:
    """One harness, as the runtime knows it.

    ``protocol``: its hook protocol (None: its adapter is a plugin that runs ``check`` itself).
    ``worktree_files``: the files and folders in the work tree that hold its adapter or could switch it
    off or outrank it (relative, ``/``-separated; a ``*`` matches within one component).
    ``user_files(env)``: its user-level files that can switch its hooks off or stop trusting ours.
    ``not_watched``: names of those the harness writes itself all the time (the after-check skips them).
    ``involves``: regex alternatives that name its files (text that involves the guard).
    ``code_text``: regex alternatives that name its adapter's files in a script's code.
    ``repo_signs``/``user_signs(env)``: where it shows it is used here (detection; its binary on PATH too).
    """

    def __init__(self, name, title, protocol=None, worktree_files=(), user_files=no_paths, not_watched=(),
                 involves=(), code_text=(), repo_signs=(), user_signs=no_paths):
        self.name, self.title, self.protocol = name, title, protocol
        self.worktree_files, self.user_files, self.not_watched = worktree_files, user_files, not_watched
        self.involves, self.code_text = involves, code_text
        self.repo_signs, self.user_signs = repo_signs, user_signs
