"""A scripted fake model server for driving a real agent harness with no model and no network.

A dialect is a function ``respond(path, body, step) -> (status, content_type, bytes) | None``:
``body`` is the parsed JSON request, ``step`` the number of tool results already in the request's
conversation (the dialect counts them with its ``count_results(body)``). While ``step`` is below the
number of scripted tool calls, the dialect answers with the next call, else with plain text.

The server binds 127.0.0.1 on a free port, records every request, and stops when the ``with``
block ends (or after ``limit`` seconds, whichever comes first)."""
import json
import os
import signal
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeModel:
    def __init__(self, dialect, calls, limit=120):
        """``dialect``: an object with ``count_results(body)`` and ``respond(server, path, body, step)``;
        ``calls``: the scripted tool calls, in the dialect's terms (e.g. ("Bash", {"command": ...}))."""
        self.dialect = dialect
        self.calls = list(calls)
        self.limit = limit
        self.requests = []  # (method, path, body)
        self.lock = threading.Lock()
        self.httpd = None
        self.thread = None

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.httpd.server_address[1]

    def __enter__(self):
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _body(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                    raw = self._chunked()
                if self.headers.get("Content-Encoding", "") in ("gzip", "zstd", "br"):
                    if self.headers.get("Content-Encoding") == "gzip":
                        import gzip
                        raw = gzip.decompress(raw)
                try:
                    return json.loads(raw.decode("utf-8")) if raw else {}
                except ValueError:
                    return {"_raw": raw.decode("utf-8", "replace")}

            def _chunked(self):
                out = b""
                while True:
                    size = int(self.rfile.readline().strip().split(b";")[0], 16)
                    if size == 0:
                        self.rfile.readline()
                        return out
                    out += self.rfile.read(size)
                    self.rfile.readline()

            def _answer(self, method):
                body = self._body() if method == "POST" else {}
                with model.lock:
                    model.requests.append((method, self.path, body))
                try:
                    step = model.dialect.count_results(body) if method == "POST" else 0
                    answer = model.dialect.respond(model, method, self.path, body, step)
                except Exception as exc:  # a bug in a dialect: say so to the harness (and the test's log)
                    answer = (500, "application/json", json.dumps({"error": repr(exc)}).encode())
                if answer is None:
                    answer = (404, "application/json", b'{"error": "not found"}')
                status, ctype, data = answer
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self):
                self._answer("POST")

            def do_GET(self):
                self._answer("GET")

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self._deadline = threading.Timer(self.limit, self.httpd.shutdown)
        self._deadline.daemon = True
        self._deadline.start()
        return self

    def __exit__(self, *exc):
        self._deadline.cancel()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)

    def next_call(self, step):
        """The scripted call for ``step``, or None once every call was made."""
        return self.calls[step] if step < len(self.calls) else None


class Result(dict):
    """A driver's outcome, also read by attribute: code (None on timeout), stdout, stderr, requests,
    tool_results."""

    __getattr__ = dict.__getitem__


def longest_results(requests, suffix, results_of):
    """``results_of(body)`` of the longest conversation POSTed to a path ending in ``suffix`` (each
    request repeats the conversation so far)."""
    best = []
    for method, path, body in requests:
        if method == "POST" and path.split("?")[0].endswith(suffix) and isinstance(body, dict):
            found = results_of(body)
            if len(found) >= len(best):
                best = found
    return best


def sse(events):
    """Server-sent events: ``events`` = [(event name or None, JSON-able data)]."""
    out = []
    for name, data in events:
        if name:
            out.append("event: %s\n" % name)
        out.append("data: %s\n\n" % (data if isinstance(data, str) else json.dumps(data)))
    return "".join(out).encode()


def stamp():
    return int(time.time())


NODE_BIN = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "node", "node_modules", ".bin")


def binary(name):
    """The harness binary installed by tests/node (npm), or None."""
    path = os.path.join(NODE_BIN, name)
    return path if os.access(path, os.X_OK) else None


def run_bounded(argv, cwd, env, timeout, stdin=b""):
    """Run a harness in its own process group; on timeout kill the whole group.
    Returns (returncode or None on timeout, stdout text, stderr text)."""
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = proc.communicate(stdin, timeout=timeout)
        code = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        code = None
    try:  # whatever the harness left running in its group (servers, shells)
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    return code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
