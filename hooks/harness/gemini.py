"""Gemini CLI: a command hook in ``.gemini/settings.json``, loaded in a trusted folder."""
import os

from .descriptor import Harness, Protocol, context, home

PROTOCOL = Protocol("tool_name", "tool_input", {"run_shell_command": "command"},
                    {"write_file": ("file_path",), "replace": ("file_path",)},
                    reads=("read_file", "read_many_files", "list_directory", "glob", "search_file_content",
                           "google_web_search", "web_fetch"),
                    workdir={"run_shell_command": "dir_path"},
                    deny=lambda reason: ({"decision": "deny", "reason": reason}, 2),
                    post=("AfterTool",), tell=context)

HARNESS = Harness("gemini", "Gemini CLI", PROTOCOL,
                  worktree_files=(".gemini/settings.json",),
                  user_files=lambda env: [os.path.join(home(env), ".gemini", "settings.json"),
                                          os.path.join(home(env), ".gemini", "trustedFolders.json")],
                  involves=(r"\.gemini",), repo_signs=(".gemini",),
                  user_signs=lambda env: [os.path.join(home(env), ".gemini")])
