"""The remote-helper protocol (gitremote-helpers(7)) as git speaks it to a push helper: answer
``capabilities``, ``option``, ``list for-push`` through the real transport, judge each ``push``
batch as a whole, then forward it or refuse every ref of it."""
import sys

from .. import audit
from .. import rules as R
from ..backstop.prepush import mirror_refusal, refuse_protected
from ..backstop.reflines import PushLine, is_oid
from ..policy import PolicyError, load_snapshot
from ..textsafe import safe

SCHEME = "agw"
PREFIX = SCHEME + "::"
ZERO = "0" * 40
# transport.c (transport_get): a URL git serves itself; any other "<scheme>://" goes to git-remote-<scheme>
NATIVE = ("file://", "git://", "ssh://", "git+ssh://", "ssh+git://")


def route(url):
    """(helper name or None for git's own transports, address) for ``url``, as git picks them."""
    end = 0
    while end < len(url) and (url[end].isalnum() and url[end].isascii() or (end and url[end] in "+.-")):
        end += 1
    if end and url.startswith("::", end):
        return url[:end], url[end + 2:]
    if url.startswith(NATIVE) or not (end and url.startswith("://", end)):
        return None, url
    return url[:end], url


def main(argv, ag_home, stdin=None, stdout=None, stderr=None):
    stdin = stdin or sys.stdin.buffer
    stdout = stdout or sys.stdout.buffer
    stderr = stderr or sys.stderr
    if not argv:
        stderr.write("agentguard: git-remote-%s is run by git, as a remote helper\n" % SCHEME)
        return 2
    remote = argv[0]
    url = argv[1] if len(argv) > 1 else argv[0]
    if url.startswith(PREFIX):  # through install's catch-all rule: the URL as written, no insteadOf applied
        url = resolve(url[len(PREFIX):])
        if url is None:
            stderr.write("agentguard: git cannot say where %s pushes, so the push guard refuses it\n"
                         % safe(remote, 80))
            return 128
    while url.startswith(PREFIX):
        url = url[len(PREFIX):]
    helper, address = route(url)
    backend: object
    if helper is None:
        from .native import Native
        backend = Native(address)
    else:
        from .proxy import Proxy
        backend = Proxy(remote, helper, address)
    session = Session(backend, remote if not remote.startswith(PREFIX) else url, ag_home, stderr)
    try:
        while True:
            line = stdin.readline()
            if not line:
                return 0
            text = line.decode("utf-8", "surrogateescape").rstrip("\n")
            if not text:
                return 0
            if text.startswith("push "):
                batch = [text]
                while True:
                    more = stdin.readline().decode("utf-8", "surrogateescape").rstrip("\n")
                    if not more:
                        break
                    batch.append(more)
                answer = session.push(batch)
            else:
                answer = session.command(text)
            if answer is None:
                stderr.write("agentguard: the push guard does not know the helper command %r\n" % safe(text, 80))
                return 1
            stdout.write("".join(a + "\n" for a in answer).encode("utf-8", "surrogateescape"))
            stdout.flush()
    finally:
        backend.close()


def resolve(url):
    """The URL git pushes to for ``url`` when no pushInsteadOf matches it: ``url`` with the user's
    ``insteadOf`` rules applied, asked of git (``ls-remote --get-url`` on a remote made for it, so a
    URL that is also a remote's name is not taken for that remote). None when git cannot say."""
    from .. import gitio
    from .coverage import PROBE
    try:
        rc, out = gitio.run(["ls-remote", "--get-url", PROBE], env=gitio.with_config("remote.%s.url" % PROBE, url))
    except gitio.GitError:
        return None
    text = out.decode("utf-8", "surrogateescape").rstrip("\n")
    return text if rc == 0 and text and "\n" not in text else None


class Session:
    def __init__(self, backend, remote, ag_home, stderr):
        self.backend = backend
        self.remote = remote
        self.ag_home = ag_home
        self.stderr = stderr
        self.listed = None  # the remote's refs as listed for this push: ref -> oid
        self.advertised = None  # every ref name the listing had

    def command(self, text):
        if text == "capabilities":
            return self.backend.capabilities() + [""]
        if text.startswith("option "):
            return [self.backend.option(text)]
        if text in ("list", "list for-push"):
            lines = self.backend.list(text)
            self.listed, self.advertised = {}, set()
            for entry in lines:
                oid, _, ref = entry.partition(" ")
                self.advertised.add(ref.partition(" ")[0])  # whatever its value says ("?", "@<symref>")
                if is_oid(oid):
                    self.listed[ref] = oid
            return lines + [""]
        return None

    def push(self, batch):
        specs = [line[len("push "):] for line in batch if line.startswith("push ")]
        refusal = self.judge(specs)
        if refusal is None:
            return self.backend.push(batch) + [""]
        audit.refuse(self.stderr, self.ag_home, "push-guard", refusal, ["git", "push", self.remote] + specs)
        reason = "agentguard: %s" % refusal.rule
        return ["error %s %s" % (spec.rpartition(":")[2], reason) for spec in specs] + [""]

    def judge(self, specs):
        """The refusal for this batch, or None. Every destination is a full ref name (git expands
        them before the helper sees the push); anything else is refused on doubt."""
        try:
            policy = load_snapshot(self.ag_home)
        except PolicyError as exc:
            return R.guard_broken(str(exc), "this push")
        items = []
        for spec in specs:
            src, colon, dst = spec.lstrip("+").rpartition(":")
            if not colon or not dst.startswith("refs/"):
                return R.Refusal("unreadable-input", "a push agentguard cannot read",
                                 "git asked the push guard for %r; refusing on doubt" % safe(spec, 120),
                                 ["agentguard doctor"])
            if dst.startswith("refs/remotes/"):
                return mirror_refusal(self.remote)  # only a mirror push writes a remote's tracking refs
            items.append(PushLine(src, ZERO if not src else src, dst, (self.listed or {}).get(dst, ZERO)))
        return refuse_protected(policy, items, self.remote, self.remote_is_empty, self.ag_home, "push-guard",
                                ["git", "push", self.remote] + specs)

    def remote_is_empty(self):
        """The remote advertised no branch at all for this push (not asked: not known to be empty)."""
        return self.advertised is not None and not any(ref.startswith("refs/heads/") for ref in self.advertised)
