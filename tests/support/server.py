"""A real HTTP server on 127.0.0.1 that plays back queued replies and records what it was sent."""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One canned response; `chunks` (sent one by one) win over `body`."""

    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    chunks: list[bytes] | None = None
    chunk_delay: float = 0.0
    cut_after: int | None = None  # close the connection after this many body bytes


@dataclass
class Seen:
    """A request as the server received it; header names are lower-cased, `body` parsed as JSON."""

    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    received: float = 0.0  # time.perf_counter() when the request line arrived
    raw: bytes = b""  # the body as it came (what a signature covers)


_NO_REPLY = Reply(500, json.dumps({"error": {"message": "no reply queued"}}).encode())


def sse(*events: tuple[str, dict[str, Any]] | dict[str, Any], done: bool = False) -> bytes:
    """An SSE body: `(name, data)` pairs become named events, bare dicts data-only ones."""
    out = []
    for event in events:
        if isinstance(event, tuple):
            name, data = event
            out.append(f"event: {name}\ndata: {json.dumps(data)}\n\n")
        else:
            out.append(f"data: {json.dumps(event)}\n\n")
    if done:
        out.append("data: [DONE]\n\n")
    return "".join(out).encode()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def parse_request(self) -> bool:
        self.received = time.perf_counter()
        return super().parse_request()

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet."""

    def _serve(self) -> None:
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {}
        headers = {k.lower(): v for k, v in self.headers.items()}
        seen = Seen(self.command, self.path, headers, body, self.received, raw)
        reply = self.server.fake._take(seen)
        chunks = reply.chunks if reply.chunks is not None else [reply.body]
        streamed = reply.chunks is not None or reply.cut_after is not None
        default_type = "text/event-stream" if reply.status == 200 else "application/json"
        out_headers = {"content-type": default_type} | {
            k.lower(): v for k, v in reply.headers.items()
        }
        if not streamed:
            out_headers["content-length"] = str(len(reply.body))
        out_headers["connection"] = "close"
        self.close_connection = True
        try:
            self.send_response(reply.status)
            for name, value in out_headers.items():
                self.send_header(name, value)
            self.end_headers()
            self._send_body(chunks, reply)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client went away

    def _send_body(self, chunks: list[bytes], reply: Reply) -> None:
        left = reply.cut_after
        for i, chunk in enumerate(chunks):
            if i and reply.chunk_delay:
                time.sleep(reply.chunk_delay)
            if left is not None and len(chunk) >= left:
                self.wfile.write(chunk[:left])
                self.wfile.flush()
                return
            self.wfile.write(chunk)
            self.wfile.flush()
            if left is not None:
                left -= len(chunk)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fake: FakeServer


class FakeServer:
    """Serves queued `Reply`s in order on 127.0.0.1 and keeps every request in `requests`."""

    def __init__(self) -> None:
        self.requests: list[Seen] = []
        self._replies: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.fake = self
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        # a short poll keeps close() quick: shutdown waits for the serving loop to look again
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )
        self._thread.start()

    def queue(self, *replies: Reply) -> None:
        """Add replies, served one per request; with none left the server answers 500."""
        with self._lock:
            self._replies.extend(replies)

    def _take(self, seen: Seen) -> Reply:
        with self._lock:
            self.requests.append(seen)
            return self._replies.popleft() if self._replies else _NO_REPLY

    def close(self) -> None:
        """Stop serving and free the port."""
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def __enter__(self) -> FakeServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
