"""The argv of the process that called a hook."""


def read_process_argv(pid):
    """The argv of process ``pid`` (Linux /proc), or None when it cannot be read."""
    try:
        with open("/proc/%d/cmdline" % int(pid), "rb") as fh:
            raw = fh.read(1 << 20)
    except (OSError, ValueError):
        return None
    if not raw:
        return None
    parts = raw.split(b"\0")
    if parts and parts[-1] == b"":
        parts.pop()
    return [p.decode("utf-8", "surrogateescape") for p in parts]
