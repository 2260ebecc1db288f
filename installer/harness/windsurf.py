"""Windsurf at install time: its hook entries in .windsurf/hooks.json (a flat list per event, no
matcher), for both pre-call events; Windsurf has no trust step and no switch that turns hooks off."""
from .descriptor import Install, Settings


def entries(timeout):
    # show_output: the hook's output shows in the Cascade UI too
    return {event: {"show_output": True} for event in ("pre_run_command", "pre_write_code", "post_run_command",
                                                        "post_write_code")}


# no local, git-ignored hooks file: where the team tracks theirs, install leaves it alone
def enabled(ctx):
    return ("pass", "Windsurf runs the hooks in .windsurf/hooks.json (no trust step, no switch; a hook that fails "
            "otherwise than exit 2 lets the action run)", None)


HARNESS = Install("windsurf", enabled=enabled, settings=Settings(".windsurf/hooks.json", "pre_run_command", entries,
                                                also_pre=("pre_write_code",), flat=True))
