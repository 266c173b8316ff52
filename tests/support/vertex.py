"""Stand-ins for Google Vertex AI and Google's OAuth token endpoint, on 127.0.0.1.

- `TokenServer`: `https://oauth2.googleapis.com/token` as google-auth's `authorized_user`
  credentials call it (that URL is fixed in google-auth), served over TLS with a certificate
  from a test CA, reached through `TunnelProxy` (what `HTTPS_PROXY` names). It answers a
  refresh-token grant from the client in the fake ADC file with a new access token, and
  `invalid_grant` once the refresh token is revoked.
- `VertexServer`: `…/publishers/anthropic/models/M:streamRawPredict` (the Messages rules of
  `StrictServer`, plus Vertex's body: `anthropic_version` `vertex-2023-10-16`, no `model`) and
  `…/publishers/google/models/M:streamGenerateContent?alt=sse` (the rules of `GeminiServer`),
  each refusing a bearer token the token server did not issue (401 UNAUTHENTICATED).
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import ssl
import threading
from collections.abc import Callable
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import trustme

from support.gemini import GeminiServer, GeminiStep
from support.server import FakeServer, Reply, Seen, _Handler
from support.strict import Step, StrictServer

CLIENT_ID, CLIENT_SECRET = (
    "764086051850-test.apps.googleusercontent.com",
    "d-FL95Q19q7MQmFpd7hHD0Ty",
)
REFRESH_TOKEN = "1//0gtest-refresh-token"
RESOURCE = re.compile(
    r"^/v1/projects/(?P<project>[^/]+)/locations/(?P<location>[^/]+)/publishers/(?P<publisher>anthropic|google)/models/(?P<model>[^/:]+):(?P<method>\w+)"
)


def write_adc(path: Path) -> Path:
    """An `authorized_user` ADC file as `gcloud auth application-default login` writes it."""
    info = {
        "type": "authorized_user",
        "client_id": CLIENT_ID,
        "client_secret": CLIENT_SECRET,
        "refresh_token": REFRESH_TOKEN,
        "universe_domain": "googleapis.com",
    }
    path.write_text(json.dumps(info))
    return path


class _TlsServer(ThreadingHTTPServer):
    daemon_threads = True
    fake: FakeServer
    context: ssl.SSLContext

    def get_request(self) -> tuple[Any, Any]:
        sock, address = super().get_request()
        return self.context.wrap_socket(sock, server_side=True), address


class TokenServer(FakeServer):
    """Google's token endpoint over TLS: access tokens for the fake ADC's refresh token."""

    def __init__(self, ca: trustme.CA, *, lifetime: int = 3600) -> None:
        self.requests: list[Seen] = []
        self._lock = threading.Lock()
        self.lifetime = lifetime
        self.issued: list[str] = []
        self.revoked = False
        self._server = _TlsServer(("127.0.0.1", 0), _Handler)  # type: ignore[assignment]
        self._server.fake = self
        self._server.context = _context(ca)
        self.port = self._server.server_address[1]
        self.url = f"https://127.0.0.1:{self.port}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )
        self._thread.start()

    def _take(self, seen: Seen) -> Reply:
        with self._lock:
            self.requests.append(seen)
            form = {k: v[0] for k, v in parse_qs(seen.raw.decode()).items()}
            expected = {
                "grant_type": "refresh_token",
                "client_id": CLIENT_ID,
                "client_secret": CLIENT_SECRET,
                "refresh_token": REFRESH_TOKEN,
            }
            if seen.path != "/token" or form != expected:
                return _json(400, {"error": "invalid_request", "error_description": str(form)})
            if self.revoked:
                body = {
                    "error": "invalid_grant",
                    "error_description": "Token has been expired or revoked.",
                }
                return _json(400, body)
            token = f"ya29.a0test-{len(self.issued) + 1}"
            self.issued.append(token)
            return _json(
                200,
                {
                    "access_token": token,
                    "expires_in": self.lifetime,
                    "token_type": "Bearer",
                    "scope": "https://www.googleapis.com/auth/cloud-platform",
                },
            )


def _context(ca: trustme.CA) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("oauth2.googleapis.com").configure_cert(context)
    return context


def _json(status: int, body: dict[str, Any]) -> Reply:
    return Reply(status, json.dumps(body).encode(), headers={"content-type": "application/json"})


class TunnelProxy:
    """An HTTP CONNECT proxy whose every tunnel leads to `port` on 127.0.0.1; it keeps the
    targets it was asked for."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.targets: list[str] = []
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        self._open: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._tunnel, args=(client,), daemon=True).start()

    def _tunnel(self, client: socket.socket) -> None:
        head = b""
        while b"\r\n\r\n" not in head:
            data = client.recv(4096)
            if not data:
                client.close()
                return
            head += data
        self.targets.append(head.split(b" ")[1].decode())
        upstream = socket.create_connection(("127.0.0.1", self.port))
        self._open += [client, upstream]
        client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        threading.Thread(target=_pipe, args=(upstream, client), daemon=True).start()
        _pipe(client, upstream)

    def close(self) -> None:
        """Stop accepting and cut every tunnel."""
        self._listener.close()
        for sock in self._open:
            sock.close()


def _pipe(src: socket.socket, dst: socket.socket) -> None:
    try:
        while data := src.recv(65536):
            dst.sendall(data)
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            dst.shutdown(socket.SHUT_WR)


class VertexServer(FakeServer):
    """Claude and Gemini on Vertex, for bearer tokens `tokens()` says were issued."""

    def __init__(
        self,
        claude: list[Step],
        gemini: list[GeminiStep],
        tokens: Callable[[], list[str]],
        *,
        project: str = "my-project",
        location: str = "us-east5",
    ) -> None:
        super().__init__()
        self.claude = StrictServer("messages", claude)
        self.gemini = GeminiServer(gemini, key=None)
        self.tokens = tokens
        self.project, self.location = project, location
        self.bearers: list[str] = []

    def _take(self, seen: Seen) -> Reply:
        with self._lock:
            self.requests.append(seen)
        bearer = seen.headers.get("authorization", "").removeprefix("Bearer ")
        self.bearers.append(bearer)
        if bearer not in self.tokens():
            message = (
                "Request had invalid authentication credentials. Expected OAuth 2 access token."
            )
            return _json(
                401, {"error": {"code": 401, "message": message, "status": "UNAUTHENTICATED"}}
            )
        found = RESOURCE.match(seen.path)
        if found is None or (found["project"], found["location"]) != (self.project, self.location):
            return _json(
                404,
                {
                    "error": {
                        "code": 404,
                        "message": f"not found: {seen.path}",
                        "status": "NOT_FOUND",
                    }
                },
            )
        if found["publisher"] == "google":
            return self.gemini._take(seen)
        if found["method"] != "streamRawPredict" or "model" in seen.body:
            return _json(
                400,
                {
                    "error": {
                        "code": 400,
                        "message": "Invalid request",
                        "status": "INVALID_ARGUMENT",
                    }
                },
            )
        if seen.body.get("anthropic_version") != "vertex-2023-10-16":
            return _json(
                400,
                {
                    "error": {
                        "code": 400,
                        "message": "anthropic_version: vertex-2023-10-16 is required",
                        "status": "INVALID_ARGUMENT",
                    }
                },
            )
        return self.claude._take(seen)

    def close(self) -> None:
        """Stop this server and the two it plays through."""
        super().close()
        self.claude.close()
        self.gemini.close()
