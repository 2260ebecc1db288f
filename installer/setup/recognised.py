"""What uninstall takes out of a work tree when the manifest is missing or unreadable: only what is
recognisably agentguard's, described as a record of the same shape as install's (so the same
uninstall steps take it out).

Recognisably agentguard's: an adapter file byte for byte as this agentguard writes it; a
``gptme.toml`` as install creates it; agentguard's hook groups in a harness's settings file (known by
their command), unless the repository tracks that file (then the team committed them); the Codex
trust block install writes for those groups. Everything else that looks like agentguard's is left in
place and named: uninstall cannot tell it from the user's own edits.
"""
import os

from ..harness import adapters, settingsfile
from ..errors import AgentguardError
from ..harness import codex, gptme
from ..fsops import parents, read_contained, read_regular, sha256_bytes
from .gitexclude import tracked


def worktree_record(info, agentguard_bin, warnings):
    """(record, [what is left in place, as text]) for the work tree ``info``."""
    record: dict = {"adapters": {}, "settings": {}}
    left = []
    for rel, data, _ in adapters.files_for(adapters.HARNESSES, agentguard_bin):
        found = read_contained(info.top, rel, warnings)
        if found is None or found[1] is None:
            continue
        if found[1] == data:
            record["adapters"][rel] = sha256_bytes(data)
        else:
            left.append("%s (not as this agentguard writes it)" % rel)
    fresh = gptme.merge_gptme_toml(None)
    found = read_contained(info.top, gptme.GPTME_TOML, warnings)
    if found is not None and found[1] is not None and gptme.GPTME_TOML not in tracked(info, [gptme.GPTME_TOML]):
        if found[1] == fresh:
            record["gptme_toml"] = {"original": None, "sha256": sha256_bytes(fresh)}
        elif gptme.gptme_enabled(found[1]):
            left.append("%s (its agentguard plugin entries)" % gptme.GPTME_TOML)
    for harness in settingsfile.SETTINGS_HARNESSES:
        for rel in sorted({settingsfile.settings_rel(harness, shared=True), settingsfile.settings_rel(harness)}):
            found = read_contained(info.top, rel, warnings)
            if (found is None or found[1] is None or not settingsfile.positions(found[1], harness)
                    or rel in tracked(info, [rel])):
                continue
            # sha256 "": never install's exact bytes, so uninstall takes out our groups and keeps the rest
            record["settings"][rel] = {"harness": harness, "original": None, "sha256": "",
                                       "created": settingsfile.all_containers(harness)}
            if harness == "codex":
                _codex_trust(found[0], found[1], record, left)
    record["created_dirs"] = sorted({parent for rel in list(record["adapters"]) + list(record["settings"])
                                     + [gptme.GPTME_TOML] for parent in parents(rel)})
    return record, left


def _codex_trust(path, data, record, left):
    config = os.path.join(codex.codex_home(os.environ), "config.toml")
    entries = codex.codex_trust_for(path, settingsfile.placed_groups(data, "codex"))
    try:
        current = read_regular(config)
    except AgentguardError:
        current = None
    found = codex.found_trust(current, entries)
    if found:
        record["codex_trust"] = dict(found, config=config, created_dir=None)
    elif any(codex.trusted_hash(current, key) == value for key, value in entries):
        left.append("the trust entries for agentguard's hook in %s ([hooks.state])" % config)
