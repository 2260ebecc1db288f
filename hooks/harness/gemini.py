"""Gemini CLI: a command hook in ``.gemini/settings.json``, loaded in a trusted folder."""
import os

from .descriptor import Harness, Protocol, context, home

PROTOCOL = Protocol("tool_name", "tool_input", {"run_shell_command": "command"},
                    {"write_file": ("file_path",), "replace": ("file_path",)},
                    # grep_search: 0.61's name for search_file_content (its tools, offered in a run here)
                    reads=("read_file", "read_many_files", "list_directory", "glob", "search_file_content",
                           "grep_search", "google_web_search", "web_fetch"),
                    workdir={"run_shell_command": "dir_path"},
                    deny=lambda reason: ({"decision": "deny", "reason": reason}, 2),
                    post=("AfterTool",), tell=context)



def gemini_dir(env):
    """``$GEMINI_CLI_HOME/.gemini``, or ``~/.gemini`` (0.61: ``homedir()`` reads GEMINI_CLI_HOME first)."""
    return os.path.join(env.get("GEMINI_CLI_HOME") or home(env), ".gemini")


def system_files(env):
    """The system settings and system defaults (0.61: getSystemSettingsPath, getSystemDefaultsPath)."""
    system = env.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH") or "/etc/gemini-cli/settings.json"
    return [system, env.get("GEMINI_CLI_SYSTEM_DEFAULTS_PATH")
            or os.path.join(os.path.dirname(system), "system-defaults.json")]


def _user_files(env):
    # every scope's hooksConfig can switch hooks off (0.61: hooksConfig.disabled is a union over the
    # scopes, by hook name; hooksConfig.enabled the highest scope's), trustedFolders.json the folder's trust
    return [os.path.join(gemini_dir(env), "settings.json"), os.path.join(gemini_dir(env), "trustedFolders.json")] \
        + system_files(env)


HARNESS = Harness("gemini", "Gemini CLI", PROTOCOL,
                  worktree_files=(".gemini/settings.json",), user_files=_user_files,
                  involves=(r"\.gemini",), repo_signs=(".gemini",),
                  user_signs=lambda env: [gemini_dir(env)])
