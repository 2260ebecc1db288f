"""Forwarding to the URL's own remote helper (``git remote-https`` for smart HTTP, ``git remote-<x>``
for ``<x>::`` URLs): the helper is started as git would start it and every command is relayed, so
credentials, progress and options work as they do without the guard. Only ``push`` batches are
judged before they are relayed; a helper that cannot ``push`` (``export``-based ones) is refused.
Of its capabilities git hears only those the guard speaks (``KEEP``), so git sends no command the
guard would have to relay unjudged."""
import os

from .. import gitio

KEEP = ("push", "option", "object-format")


class Proxy:
    def __init__(self, remote, helper, url, full_url):
        self.full_url = full_url  # what git would run this helper for: ``<helper>::<url>`` or the URL
        self._symrefs = None
        to_helper, self._out = os.pipe()
        self._in, from_helper = os.pipe()
        try:
            self.pid = gitio.spawn_foreground(["remote-" + helper, remote, url], dict(os.environ),
                                              to_helper, from_helper)
        finally:
            os.close(to_helper)
            os.close(from_helper)
        self.reader = os.fdopen(self._in, "rb")
        self.helper = helper

    def _ask(self, text, lines=None):
        os.write(self._out, (text + "\n").encode("utf-8", "surrogateescape"))
        answer: list = []
        while True:
            raw = self.reader.readline()
            if not raw:
                raise SystemExit(128)  # the helper died; it has said why on stderr
            line = raw.decode("utf-8", "surrogateescape").rstrip("\n")
            if lines is None or not line:
                return answer if lines is not None else [line]
            answer.append(line)

    def capabilities(self):
        caps = self._ask("capabilities", lines=True)
        if "push" not in caps:
            import sys
            sys.stderr.write("agentguard: git-remote-%s cannot push through the guard's protocol, so pushes to "
                             "this URL are refused\n" % self.helper)
            raise SystemExit(1)
        return [c for c in caps if c.lstrip("*").split(" ", 1)[0] in KEEP]

    def option(self, text):
        return self._ask(text)[0]

    def list(self, command):
        return self._ask(command, lines=True)

    @property
    def symrefs(self):
        """The remote's symbolic refs, asked of its fetch side only when wanted (a push helper's
        listing comes from the receiving side, which names none): name -> target; {} when the
        remote cannot say."""
        if self._symrefs is None:
            from .native import advertisement
            listed = advertisement(self.full_url)
            self._symrefs = listed[1] if listed is not None else {}
        return self._symrefs

    def push(self, specs):
        return self._ask("".join("push %s\n" % spec for spec in specs), lines=True)

    def close(self):
        try:
            os.close(self._out)
        except OSError:
            pass
        self.reader.close()
        gitio.wait(self.pid)
