"""What uninstall takes out of a work tree when the manifest is missing or unreadable: only what is
recognisably agentguard's, described as a record of the same shape as install's (so the same
uninstall steps take it out).

Recognisably agentguard's: an adapter file byte for byte as this agentguard writes it; a harness's
merge as its own step recognises it (``descriptor.Steps.recognise``: a ``gptme.toml`` as install creates
it); agentguard's hook groups in a harness's settings file (known by their command), unless the
repository tracks that file (then the team committed them), and what its step recognises with them
(the Codex trust block install writes for those groups). Everything else that looks like agentguard's is left in
place and named: uninstall cannot tell it from the user's own edits.
"""

from ..harness import adapters, registry, settingsfile
from ..fsops import parents, read_contained, sha256_bytes
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
    for described in registry.HARNESSES.values():  # a merge into another work-tree file
        described.steps.recognise(info, record, left, warnings)
    for harness in settingsfile.SETTINGS_HARNESSES:
        for rel in sorted({settingsfile.settings_rel(harness, shared=True), settingsfile.settings_rel(harness)}):
            found = read_contained(info.top, rel, warnings)
            if (found is None or found[1] is None or not settingsfile.positions(found[1], harness)
                    or rel in tracked(info, [rel])):
                continue
            # sha256 "": never install's exact bytes, so uninstall takes out our groups and keeps the rest
            record["settings"][rel] = {"harness": harness, "original": None, "sha256": "",
                                       "created": settingsfile.all_containers(harness)}
            registry.HARNESSES[harness].steps.recognise_settings(found[0], found[1], record, left,
                                                                 settingsfile.placed_groups)
    record["created_dirs"] = sorted({parent for rel in list(record["adapters"]) + list(record["settings"])
                                     + list(registry.merged_files()) for parent in parents(rel)})
    return record, left
