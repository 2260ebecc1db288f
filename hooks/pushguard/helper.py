"""The remote-helper protocol (gitremote-helpers(7)) as git speaks it to a push helper: answer
``capabilities``, ``option``, ``list for-push`` through the real transport, judge each ``push``
batch as a whole, then forward it or refuse every ref of it. Every line is read before anything is
forwarded: a command or a batch line that is not what git sends (transport-helper.c) ends the
session with nothing forwarded."""
import sys

from .. import audit
from .. import rules
from ..backstop.casefold import remote_ignores_case
from ..backstop.prepush import mirror_refusal, refuse_protected
from ..backstop.reflines import PushLine, is_oid
from ..gitmodel.refformat import is_full_refname
from ..gitmodel.refnames import follow_symrefs
from ..policy import PolicyError, load_policy
from ..textsafe import safe
from .coverage import PREFIX, PROBE, SCHEME

ZERO = "0" * 40
# transport.c (transport_get): a URL git serves itself; any other "<scheme>://" goes to git-remote-<scheme>
NATIVE = ("file://", "git://", "ssh://", "git+ssh://", "ssh+git://")
# the options git sets on a push helper (transport-helper.c, transport.h); any other is "unsupported"
PUSH_OPTIONS = ("verbosity", "progress", "family", "dry-run", "atomic", "force", "force-if-includes", "pushcert",
                "push-option", "cas", "followtags", "object-format")


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


def main(argv, ag_home, stdin=None, stdout=None, stderr=None, resume=False):
    """``resume``: ``ag_home/push-guard`` read the first command (and answered ``capabilities``)
    itself: ``argv`` starts with what it answered (``capabilities`` or ``-``) and the line it read
    (empty: the end of input)."""
    stdin = stdin or sys.stdin.buffer
    stdout = stdout or sys.stdout.buffer
    stderr = stderr or sys.stderr
    pending = []
    argv_state = None
    if resume:
        if len(argv) < 2:
            return 2
        pending = [(argv[1] + "\n").encode("utf-8", "surrogateescape")] if argv[1] else [b""]
        argv_state = argv[0]
        argv = argv[2:]
        if argv and not pending[0]:
            return 0  # the input ended before a command
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
        backend = Proxy(remote, helper, address, url)
    session = Session(backend, remote if not remote.startswith(PREFIX) else url, ag_home, stderr, url)
    session.capable = resume and bool(pending) and argv_state == "capabilities"
    try:
        return serve(session, _Pending(pending, stdin) if pending else stdin, stdout, stderr)
    finally:
        backend.close()


class _Pending:
    """``stdin`` after the lines the launcher already read from it."""

    def __init__(self, lines, stdin):
        self.lines, self.stdin = lines, stdin

    def readline(self):
        return self.lines.pop(0) if self.lines else self.stdin.readline()


def parse_push(line):
    """``push [+]<src>:<dst>`` as git writes it: (spec, dst), or None. ``dst`` is a full ref name
    (git expands it before the helper sees it); ``src`` is a local name, an object name or empty (a
    deletion)."""
    if not line.startswith("push "):
        return None
    spec = line[len("push "):]
    src, colon, dst = spec[1:].rpartition(":") if spec.startswith("+") else spec.rpartition(":")
    if not colon or src.startswith("+") or not is_full_refname(dst):
        return None
    return spec, dst


def _read(stdin):
    """The next line without its LF; None at the end of input."""
    line = stdin.readline()
    return line.decode("utf-8", "surrogateescape")[:-1] if line.endswith(b"\n") else None


def serve(session, stdin, stdout, stderr):
    """Answer git's commands until the blank line (or the end of input) that ends the session."""
    while True:
        text = _read(stdin)
        if not text:
            return 0
        if text == "connect git-receive-pack" and session.capable and hasattr(session.backend, "family"):
            from .connect import run, target
            opened = target(session.backend.url, session.backend.family())
            if opened is not None:
                stdout.write(b"\n")
                stdout.flush()
                return run(opened[0], opened[1], session.ag_home, session.remote, session.backend.url)
            answer = ["fallback"]  # git pushes through list and push instead
        elif text.startswith("push "):
            batch = [text]
            while batch[-1]:
                more = _read(stdin)
                if more is None:
                    stderr.write("agentguard: the push guard's input ended inside a push; nothing was pushed\n")
                    return 1
                batch.append(more)
            specs = [parse_push(line) for line in batch[:-1]]
            if None in specs:
                bad = batch[specs.index(None)]
                audit.refuse(stderr, session.ag_home, "push-guard", unreadable(bad), ["git", "push", session.remote])
                return 1
            answer = session.push(specs)
        else:
            answer = session.command(text)
        if answer is None:
            stderr.write("agentguard: the push guard does not know the helper command %r\n" % safe(text, 80))
            return 1
        stdout.write("".join(a + "\n" for a in answer).encode("utf-8", "surrogateescape"))
        stdout.flush()


def unreadable(line):
    return rules.Refusal("unreadable-input", "a push agentguard cannot read",
                         "git asked the push guard for %r; refusing on doubt: nothing was pushed" % safe(line, 120),
                         ["agentguard doctor"])


def resolve(url):
    """The URL git pushes to for ``url`` when no pushInsteadOf matches it: ``url`` with the user's
    ``insteadOf`` rules applied, asked of git (``ls-remote --get-url`` on a remote made for it, so a
    URL that is also a remote's name is not taken for that remote). None when git cannot say."""
    from .. import gitio
    try:
        rc, out = gitio.run(["ls-remote", "--get-url", PROBE], env=gitio.with_config("remote.%s.url" % PROBE, url))
    except gitio.GitError:
        return None
    text = out.decode("utf-8", "surrogateescape").rstrip("\n")
    return text if rc == 0 and text and "\n" not in text else None


class Session:
    def __init__(self, backend, remote, ag_home, stderr, url=None):
        self.backend = backend
        self.url = url  # where the push goes (None: not known, so the remote may ignore letter case)
        self.remote = remote
        self.ag_home = ag_home
        self.stderr = stderr
        self.listed = None  # the remote's refs as listed for this push: ref -> oid
        self.advertised = None  # every ref name the listing had
        self.aliases = {}  # symbolic refs the listing named: ref -> target
        self.capable = False  # capabilities were answered: git may connect

    def command(self, text):
        if text == "capabilities":
            self.capable = True
            return self.backend.capabilities() + [""]
        if text.startswith("option "):
            if text[len("option "):].partition(" ")[0] not in PUSH_OPTIONS:
                return ["unsupported"]
            return [self.backend.option(text)]
        if text in ("list", "list for-push"):
            lines = self.backend.list(text)
            self.listed, self.advertised = {}, set()
            for entry in lines:
                if entry.startswith(":"):
                    continue  # an attribute of the listing (":object-format sha1")
                value, _, ref = entry.partition(" ")
                ref = ref.partition(" ")[0]  # without attributes ("unchanged")
                self.advertised.add(ref)
                if is_oid(value):
                    self.listed[ref] = value
                elif value.startswith("@"):
                    self.aliases[ref] = value[1:]
            return lines + [""]
        return None

    def push(self, specs):
        if self.listed is None:
            self.command("list for-push")  # git lists before it pushes; a caller that did not is judged the same
        refusal = self.judge(specs)
        if refusal is None:
            return self.backend.push([spec for spec, _ in specs]) + [""]
        audit.refuse(self.stderr, self.ag_home, "push-guard", refusal,
                     ["git", "push", self.remote] + [spec for spec, _ in specs])
        reason = "agentguard: %s" % refusal.rule
        return ["error %s %s" % (dst, reason) for _, dst in specs] + [""]

    def judge(self, specs):
        """The refusal for this batch (``parse_push`` results), or None. A destination that is a
        symbolic ref on the remote is judged as the ref it points to: the remote updates that one."""
        try:
            policy = load_policy(self.ag_home)
        except PolicyError as exc:
            return rules.guard_broken(str(exc), "this push")
        items = []
        for spec, dst in specs:
            src = spec.lstrip("+").rpartition(":")[0]
            if dst.startswith("refs/remotes/"):
                return mirror_refusal(self.remote)  # only a mirror push writes a remote's tracking refs
            target = self.target(dst, policy)
            if target is None:
                return rules.symref_unknown(self.remote, dst)
            items.append(PushLine(src, ZERO if not src else src, target, (self.listed or {}).get(dst, ZERO)))
        refusal = refuse_protected(policy, items, self.remote, self.remote_is_empty, self.ag_home, "push-guard",
                                   ["git", "push", self.remote] + [spec for spec, _ in specs],
                                   lambda: remote_ignores_case(self.url))
        from .relay import explain_aliases
        return explain_aliases(refusal, [(dst, item.remote_ref) for (_, dst), item in zip(specs, items)])

    def target(self, dst, policy):
        """The ref a push to ``dst`` updates on the remote: ``dst`` itself or, for a symbolic ref,
        the ref it ends at; None when that cannot be told and a protected branch may be at stake."""
        if policy.classify(dst):
            return dst
        aliases = self.aliases
        if dst not in aliases and self._looks_aliased(dst, policy):
            known = getattr(self.backend, "symrefs", None)
            if known is None:
                return None
            aliases = self.aliases = {**known, **aliases}
        return follow_symrefs(dst, aliases)

    def _looks_aliased(self, dst, policy):
        """``dst`` is listed at the same commit as a protected branch: what a symbolic ref to it
        looks like in a listing that names no symbolic ref (the receiving side's)."""
        listed = self.listed or {}
        oid = listed.get(dst)
        return oid is not None and any(value == oid and policy.classify(ref) and policy.classify(ref)[0] == "local"
                                       for ref, value in listed.items())

    def remote_is_empty(self):
        """The remote advertised no branch at all for this push (not asked: not known to be empty)."""
        return self.advertised is not None and not any(ref.startswith("refs/heads/") for ref in self.advertised)
