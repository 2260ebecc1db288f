"""The push guard on git's own connection: the ref updates of a push, judged in the receive-pack
conversation they travel in (one connection, no listing of the remote beforehand).

git speaks to the push guard's ``connect`` capability (gitremote-helpers(7)) and then runs its own
push over the guard's stdin and stdout; the remote's ``git-receive-pack`` answers git directly, and
what git sends to it passes through here (``ag_home/push-guard`` starts this only when git sends a
command list: an up-to-date push sends a flush and costs no Python). The update request
(gitprotocol-pack(5): ``shallow`` lines, then ``<old> <new> <ref>`` commands, or a push certificate
holding them, then a flush) is read whole and judged by the rule the pre-push hook shares
(``backstop.prepush.refuse_protected``); only then is it forwarded, and the rest (push options,
the pack) copied as it comes. A refused request is never forwarded: receive-pack gets a flush (no
commands: it changes nothing) and git gets receive-pack's kind of report, every ref ``ng``.
"""
import os
import re
import sys

from .. import audit
from .. import rules
from ..backstop.prepush import mirror_refusal, refuse_protected
from ..backstop.reflines import PushLine
from ..textsafe import safe

ZERO = "0" * 40
COMMAND = re.compile(r"\A([0-9a-f]{40}|[0-9a-f]{64}) ([0-9a-f]{40}|[0-9a-f]{64}) (refs/[^\0 ]+)\Z")
MAX_REQUEST = 64 * 1024 * 1024  # bytes of update request read before judging; beyond: refused


def read_exact(fd, n):
    chunks, left = [], n
    while left:
        data = os.read(fd, left)
        if not data:
            raise EOFError
        chunks.append(data)
        left -= len(data)
    return b"".join(chunks)


def pkt(data):
    return b"%04x" % (len(data) + 4) + data


def read_request(fd, head, prior=()):
    """(raw bytes, [payloads]) of the update request up to and with its flush: ``prior`` the payloads
    already read, ``head`` the four bytes read after them. Raises ValueError on what is not pkt-line
    framing, EOFError at the end."""
    raw, payloads, size = [pkt(p) for p in prior], list(prior), 0
    while True:
        if len(head) != 4 or not re.fullmatch(rb"[0-9a-f]{4}", head):
            raise ValueError("not a pkt-line length: %r" % head[:8])
        raw.append(head)
        n = int(head, 16)
        if n == 0:
            return b"".join(raw), payloads
        size += n
        if n < 5 or size > MAX_REQUEST:
            raise ValueError("a pkt-line git does not send in an update request")
        data = read_exact(fd, n - 4)
        raw.append(data)
        payloads.append(data)
        head = read_exact(fd, 4)


def parse_commands(payloads):
    """([(old, new, ref)], client capabilities) from the payloads; ValueError on a line that is not
    one git writes there."""
    commands: list = []
    caps: list = []
    in_cert = False
    for i, data in enumerate(payloads):
        text = data.decode("utf-8", "surrogateescape")
        text = text[:-1] if text.endswith("\n") else text
        if i == len(commands) + (1 if in_cert else 0) and "\0" in text and not caps:
            text, _, rest = text.partition("\0")
            caps = rest.split()
        if in_cert:
            if text == "push-cert-end":
                in_cert = False
            m = COMMAND.match(text)
            if m:
                commands.append(m.groups())
            continue
        if text == "push-cert":
            in_cert = True
            continue
        if text.startswith("shallow ") and not commands:
            continue
        m = COMMAND.match(text)
        if not m:
            raise ValueError(text)
        commands.append(m.groups())
    return commands, caps


def report(caps, commands, reason):
    """receive-pack's report for a request refused whole (``report-status``; side-band when asked)."""
    if "report-status" not in caps and "report-status-v2" not in caps:
        return b""
    body = pkt(b"unpack ok\n") + b"".join(pkt(("ng %s %s\n" % (ref, reason)).encode("utf-8", "surrogateescape"))
                                          for _, _, ref in commands) + b"0000"
    if "side-band-64k" in caps or "side-band" in caps:
        return pkt(b"\x01" + body) + b"0000"
    return body


class Judge:
    """The refusal for one update request, or None."""

    def __init__(self, remote, url, ag_home, listed=None, local=False):
        self.remote, self.url, self.ag_home, self.local = remote, url, ag_home, local
        self.listed = listed  # the remote's advertisement when the relay saw it: ref -> oid

    def refusal(self, commands, argv):
        from ..policy import PolicyError, load_policy
        try:
            policy = load_policy(self.ag_home)
        except PolicyError as exc:
            return rules.guard_broken(str(exc), "this push")
        items = []
        symrefs = None
        for old, new, ref in commands:
            if ref.startswith("refs/remotes/"):
                return mirror_refusal(self.remote)  # only a mirror push writes a remote's tracking refs
            target = ref
            if not policy.classify(ref) and old.strip("0") and self.may_be_aliased(old, policy):
                # an existing ref may be a symbolic ref there: receive-pack updates the ref it ends at
                if symrefs is None:
                    symrefs = self.symrefs()
                if symrefs is None:
                    return rules.symref_unknown(self.remote, ref)
                from ..gitmodel.refnames import follow_symrefs
                target = follow_symrefs(ref, symrefs)
                if target is None:
                    return rules.symref_unknown(self.remote, ref)
            items.append(PushLine("", new, target, old))
        from ..backstop.casefold import remote_ignores_case
        refusal = refuse_protected(policy, items, self.remote, self.remote_is_empty, self.ag_home,
                                   "push-guard", argv, lambda: remote_ignores_case(self.url))
        return explain_aliases(refusal, [(ref, item.remote_ref) for (_, _, ref), item in zip(commands, items)])

    def may_be_aliased(self, old, policy):
        """A ref the remote has at ``old`` may be a symbolic ref to a protected branch: always, unless
        the advertisement shows no protected branch at that commit (receive-pack lists a symbolic ref
        at its target's commit and names no target)."""
        if self.listed is None:
            return True
        return any(oid == old and (policy.classify(ref) or ("",))[0] == "local" for ref, oid in self.listed.items())

    def remote_is_empty(self):
        """The remote has no branch at all: its advertisement, else asked of it."""
        if self.listed is not None:
            return not any(ref.startswith("refs/heads/") for ref in self.listed)
        from ..backstop.prepush import has_no_branches
        return has_no_branches(self.url)

    def symrefs(self):
        """{name: target} of the remote's symbolic refs (a local path: asked of that repository with
        for-each-ref, which names every one; else of its v2 listing); None when it cannot be told."""
        from .. import gitio
        from .native import advertisement
        rc = 1
        try:
            if self.local:
                rc, out = gitio.run(["--git-dir=" + self.url, "for-each-ref", "--format=%(refname)%00%(symref)"],
                                    env=gitio.without_command_line_config())
        except gitio.GitError:
            rc = 1
        if rc == 0:
            found = {}
            for row in out.decode("utf-8", "surrogateescape").splitlines():
                name, _, target = row.partition("\0")
                if target:
                    found[name] = target
            return found
        listed = advertisement(self.url)
        return listed[1] if listed is not None else None


def explain_aliases(refusal, pairs):
    """``refusal`` naming each pushed ref that is a symbolic ref on the remote (``pairs``: (pushed,
    the ref it ends at))."""
    aliased = [(dst, target) for dst, target in pairs if dst != target]
    if refusal is not None and aliased:
        refusal.why += "; %s" % ", ".join("%s is a symbolic ref to %s there" % (safe(a, 80), safe(t, 80))
                                           for a, t in aliased)
    return refusal


def relay(head, prior, remote, url, ag_home, git_in=0, to_remote=1, to_git=4, stderr=None, listed=None,
          local=False):
    """Judge the update request read from ``git_in`` (``prior``, ``head``: ``read_request``), forward
    it and the rest to ``to_remote`` or refuse it (the report to ``to_git``). Returns the exit status."""
    stderr = stderr or sys.stderr
    argv = ["git", "push", remote]
    try:
        raw, payloads = read_request(git_in, head, prior)
        commands, caps = parse_commands(payloads)
    except EOFError:
        os.close(to_remote)
        return 1  # git went away inside its request: nothing was forwarded
    except ValueError as exc:
        unread = rules.Refusal("unreadable-input", "a push agentguard cannot read",
                                "git sent the push guard %r; refusing on doubt: nothing was pushed"
                                % safe(str(exc), 120), ["agentguard doctor"])
        return _refuse(stderr, ag_home, unread, argv, [], [], to_remote, to_git, git_in)
    argv += ["%s:%s" % (new, ref) for _, new, ref in commands]
    try:
        refusal = Judge(remote, url, ag_home, listed, local).refusal(commands, argv) if commands else None
    except Exception as exc:  # a bug must still fail closed
        refusal = rules.guard_broken("internal error (%s)" % type(exc).__name__)
    if refusal is not None:
        return _refuse(stderr, ag_home, refusal, argv, caps, commands, to_remote, to_git, git_in)
    _write(to_remote, raw)
    while True:
        data = os.read(git_in, 65536)
        if not data:
            break
        _write(to_remote, data)
    os.close(to_remote)
    return 0


def _refuse(stderr, ag_home, refusal, argv, caps, commands, to_remote, to_git, git_in):
    audit.refuse(stderr, ag_home, "push-guard", refusal, argv)
    try:
        _write(to_remote, b"0000")  # no commands: receive-pack ends having changed nothing
    except OSError:
        pass
    os.close(to_remote)
    try:
        _write(to_git, report(caps, commands, "agentguard: %s" % refusal.rule))
    except OSError:
        pass
    try:
        while os.read(git_in, 65536):  # the pack git sends after its commands goes nowhere
            pass
    except OSError:
        pass
    return 1


def _write(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def main(argv, ag_home):
    """``run.py push-relay <remote> <url> <next four bytes> [<payload>...]``, as ``ag_home/push-guard``
    runs it with what it read of the request: each payload with its NUL as a tab (the shell cannot
    hold a NUL; git sends no tab), given back here. Reads the rest from stdin."""
    if len(argv) < 3:
        sys.stderr.write("agentguard: push-relay is run by the push guard\n")
        return 2
    prior = [os.fsencode(p).replace(b"\t", b"\0") for p in argv[3:]]
    return relay(os.fsencode(argv[2]), prior, argv[0], argv[1], ag_home, local=True)
