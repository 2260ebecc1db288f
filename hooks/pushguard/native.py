"""Forwarding to git's own transports (local paths, ``file://``, ssh, ``git://``): the remote's
refs from ``git ls-remote``, the push itself by ``git push --porcelain`` to the same URL, whose
report becomes the helper's ``ok``/``error`` lines.

The forwarded commands must not be rewritten to the guard again: they name the URL through a
token that a ``url.<url>.(push)insteadOf=<token>`` entry, added to their environment, turns back
into the URL. git applies a rewrite once, so the URL is then used as it is."""
import os

from .. import gitio

TOKEN = "agentguard-forward:"
# what git tells a push helper -> the forwarded push's option (None: answered, nothing to pass on)
FLAGS = {("dry-run", "true"): "--dry-run", ("atomic", "true"): "--atomic", ("force", "true"): "--force",
         ("progress", "true"): "--progress", ("progress", "false"): "--no-progress",
         ("pushcert", "true"): "--signed=true", ("pushcert", "if-asked"): "--signed=if-asked",
         ("force-if-includes", "true"): "--force-if-includes",
         ("family", "ipv4"): "-4", ("family", "ipv6"): "-6", ("followtags", "true"): None,
         ("dry-run", "false"): None, ("atomic", "false"): None, ("force", "false"): None,
         ("pushcert", "false"): None, ("force-if-includes", "false"): None, ("family", "all"): None}
# porcelain reasons git's helper protocol knows by another name (transport-helper.c)
REASONS = {"non-fast-forward": "non-fast forward"}


def unquote(value):
    """A value git may have C-quoted (push options)."""
    if not (len(value) >= 2 and value[0] == value[-1] == '"'):
        return value
    import ast
    try:
        return ast.literal_eval(value).encode("latin-1").decode("utf-8", "surrogateescape")
    except (ValueError, SyntaxError, UnicodeEncodeError):
        return value[1:-1]


def forward(url, args, key):
    """Run git ARGS with TOKEN standing for ``url`` (``url.<url>.<key>=TOKEN``); (status, stdout
    text). stderr is the user's."""
    rfd, wfd = os.pipe()
    devnull = os.open(os.devnull, os.O_RDONLY)
    try:
        pid = gitio.spawn_foreground(args, gitio.with_config("url.%s.%s" % (url, key), TOKEN), devnull, wfd)
    finally:
        os.close(wfd)
        os.close(devnull)
    chunks = []
    try:
        while True:
            data = os.read(rfd, 65536)
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(rfd)
    return gitio.wait(pid), b"".join(chunks).decode("utf-8", "surrogateescape")


def advertisement(url):
    """(refs {name: oid}, symrefs {name: target}) the remote at ``url`` advertises to a fetch, or
    None when it cannot be asked. Protocol v2 is asked for whatever the caller configured: only its
    ``ls-refs`` names the target of a symbolic ref other than HEAD (v0 shows HEAD's alone)."""
    rc, out = forward(url, ["-c", "protocol.version=2", "ls-remote", "--symref", TOKEN], "insteadOf")
    if rc != 0:
        return None
    refs, symrefs = {}, {}
    for row in out.splitlines():
        value, _, name = row.partition("\t")
        if value.startswith("ref: "):
            symrefs[name] = value[len("ref: "):]
        elif name and not name.endswith("^{}"):
            refs[name] = value
    return refs, symrefs


class Native:
    def __init__(self, url):
        self.url = url
        self.flags = ["--no-signed"]
        self.verbosity = 1
        self.symrefs = None  # the remote's symbolic refs, from its listing: name -> target

    def capabilities(self):
        return ["connect", "push", "option"]  # connect: helper.serve, through .connect

    def family(self):
        return "ipv4" if "-4" in self.flags else "ipv6" if "-6" in self.flags else None

    def option(self, text):
        name, _, value = text[len("option "):].partition(" ")
        if name == "verbosity" and value.isdigit():
            self.verbosity = int(value)
            return "ok"
        if name == "push-option":
            self.flags.append("--push-option=" + unquote(value))
            return "ok"
        if name == "cas":
            self.flags.append("--force-with-lease=" + unquote(value))
            return "ok"
        if (name, value) not in FLAGS:
            return "unsupported"
        flag = FLAGS[(name, value)]
        if flag and flag.startswith("--signed"):
            self.flags.remove("--no-signed")
        if flag:
            self.flags.append(flag)
        return "ok"

    def list(self, command):
        listed = advertisement(self.url)
        if listed is None:
            raise SystemExit(128)  # git has said why on stderr
        refs, self.symrefs = listed
        return ["%s %s" % (oid, ref) for ref, oid in refs.items() if ref != "HEAD"]

    def push(self, specs):
        """Push ``specs`` (``[+]<src>:<dst>``, checked by the caller); the helper's status lines."""
        quiet = ["-v"] * (self.verbosity - 1)  # not -q: a quiet push reports nothing, not even in porcelain
        args = ["push", "--porcelain", "--no-verify", "--recurse-submodules=no", "--no-follow-tags"]
        rc, out = forward(self.url, args + quiet + self.flags + [TOKEN] + specs, "pushInsteadOf")
        done = {}
        for row in out.splitlines():
            fields = row.split("\t")
            if len(fields) == 3 and len(fields[0]) == 1:
                flag, refs, summary = fields
                done[refs.rpartition(":")[2]] = (flag, summary)
        if rc == 128 and not done:
            raise SystemExit(128)  # the push died (git said why on stderr): so does the one it stands in for
        answer = []
        for spec in specs:
            dst = spec.rpartition(":")[2]
            flag, summary = done.get(dst, ("!", "(the push did not complete)"))
            if flag == "!":
                reason = summary[summary.find("(") + 1:-1] if summary.endswith(")") else summary
                answer.append("error %s %s" % (dst, REASONS.get(reason, reason)))
            else:
                answer.append("ok %s" % dst + (" forced update" if flag == "+" else ""))
        return answer

    def close(self):
        pass
