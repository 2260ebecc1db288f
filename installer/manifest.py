"""``<git common dir>/agentguard/manifest.json``: what install wrote, with hashes.

Uninstall and the doctor trust only this record (and the scripts' own header) to decide what
is agentguard's; anything else in the hooks directory belongs to the user.
"""
import json
import os

from .fsops import atomic_write

NAME = "manifest.json"
FORMAT = 1


def load(ag_home):
    try:
        with open(os.path.join(ag_home, NAME), "rb") as fh:
            data = json.loads(fh.read(1 << 20).decode("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("hooks"), dict):
        return None
    return data


def save(ag_home, data):
    data = dict(data, format=FORMAT)
    atomic_write(os.path.join(ag_home, NAME), (json.dumps(data, indent=2, sort_keys=True) + "\n").encode())
