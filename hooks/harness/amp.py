"""Amp: agentguard's plugin in ``.amp/plugins``, which runs the hook command.

Published protocol (the ``amp`` binary needs an Amp account and Amp's own inference; its plugin
code is not readable in the package): ampcode.com/manual/plugin-api and the ``@ampcode/plugin``
types. Plugins are TypeScript files in ``.amp/plugins/`` (project) and ``~/.config/amp/plugins/``
(global; older releases ``~/.amp/plugins/``), loaded only when Amp runs with ``PLUGINS=all``; the
manual's example starts with the marker comment ``// @i-know-the-amp-plugin-api-is-wip-and-very-
experimental-right-now``, which ours does too. ``amp.on("tool.call", (event, ctx) => ...)`` gets a
``ToolCall`` {toolUseID, tool, input, thread?} and answers ``{action: "allow"}`` or ``{action:
"reject-and-continue", message}`` (the model reads ``message`` as the call's result and the turn
goes on); ``amp.on("tool.result", ...)`` gets {toolUseID, tool, input, status, output?} and may
answer a ``ToolResultResult`` ({status: "done", output}) that replaces the result.
``amp.helpers.shellCommandFromToolCall(event)`` -> {command, dir?} | null and
``filesModifiedByToolCall(event)`` -> file URIs name what a call runs and changes, whatever Amp
calls its tools; our plugin hands the hook {tool: "shell", args: {command, dir}} or {tool: "files",
args: {paths}}, else Amp's own tool and input (a command in ``cmd``/``command`` is still read).
Not published: what Amp does when a handler throws or never answers; ours catches everything and
answers itself, and its hook child is killed after the hook timeout."""
import os

from .descriptor import Harness, Protocol, config_home, home

PROTOCOL = Protocol("tool", "args", {"shell": "command"}, {"files": ("paths",)}, workdir={"shell": "dir"},
                    reads=("Read", "Grep", "glob", "finder", "read_web_page", "web_search", "read_thread",
                           "find_thread", "look_at", "mermaid", "todo_read"),
                    post=("tool.result",))


def _user_files(env):
    return [os.path.join(config_home(env), "amp", "plugins"), os.path.join(home(env), ".amp", "plugins"),
            os.path.join(config_home(env), "amp", "settings.json")]


HARNESS = Harness("amp", "Amp", PROTOCOL, worktree_files=(".amp/plugins", ".amp/settings.json"),
                  user_files=_user_files, involves=(r"\.amp[/\\]",),
                  repo_signs=(".amp/settings.json",),  # not .amp: install writes .amp/plugins
                  user_signs=lambda env: [os.path.join(config_home(env), "amp"), os.path.join(home(env), ".amp")])
