"""A local stand-in for the Hugging Face Hub's file downloads: two real HTTP servers on
127.0.0.1, the Hub and its CDN, speaking what `huggingface_hub.hf_hub_download` uses.

The Hub answers `HEAD`/`GET /{repo}/resolve/{revision}/{filename}` as huggingface.co does for
a file stored with LFS: a `302` to a signed CDN URL on another origin, carrying the file's
metadata itself — `X-Repo-Commit` (the commit the revision resolves to), `X-Linked-Etag` (the
sha256 of the content), `X-Linked-Size` — and an unknown file is a `404` with
`X-Error-Code: EntryNotFound`, an unknown repository a `401` with `X-Error-Code: RepoNotFound`.
The CDN sends the bytes with their `Content-Length`. `GET /api/agent-harnesses` (the registry
huggingface_hub 2 reads for its user agent, from `HF_ENDPOINT`) is an empty registry.

Sources: the resolve URL and its redirect, https://huggingface.co/docs/xet/file-id; the headers
read, `get_hf_file_metadata` and `hf_raise_for_status` in
https://github.com/huggingface/huggingface_hub/blob/main/src/huggingface_hub/file_download.py
and …/utils/_http.py.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

COMMIT = "0123456789abcdef0123456789abcdef01234567"


@dataclass
class HubFile:
    """One file of a repository; `short` sends only that many of its bytes from the CDN (the
    metadata still says the whole size): a download cut short. With `hold`, the CDN sends half
    the bytes, then the rest once `hold` is set: a slow download."""

    content: bytes
    short: int | None = None
    hold: threading.Event | None = None

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.content).hexdigest()


@dataclass
class Hub:
    """The Hub and its CDN; `files` maps `OWNER/REPO/FILENAME` to its file. `seen` holds every
    request either server got, as `(method, path)`."""

    files: dict[str, HubFile] = field(default_factory=dict)
    seen: list[tuple[str, str]] = field(default_factory=list)
    _servers: list[ThreadingHTTPServer] = field(default_factory=list)

    @property
    def url(self) -> str:
        """The Hub's endpoint (what `HF_ENDPOINT` names)."""
        return _origin(self._servers[0])

    def start(self) -> Hub:
        """Start both servers."""
        for handler in (_HubHandler, _CdnHandler):
            server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
            server.hub = self  # type: ignore[attr-defined]
            server.daemon_threads = True
            threading.Thread(target=server.serve_forever, daemon=True).start()
            self._servers.append(server)
        return self

    def stop(self) -> None:
        """Stop both servers."""
        for server in self._servers:
            server.shutdown()
            server.server_close()

    def repos(self) -> set[str]:
        return {name.rsplit("/", 1)[0] for name in self.files}

    def cdn_url(self, sha: str) -> str:
        return f"{_origin(self._servers[1])}/repos/{sha}?X-Amz-Signature=stand-in"


def _origin(server: ThreadingHTTPServer) -> str:
    host, port = server.server_address[:2]
    return f"http://{host!s}:{port}"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    @property
    def hub(self) -> Hub:
        hub: Hub = self.server.hub  # type: ignore[attr-defined]
        return hub

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_HEAD(self) -> None:
        self.hub.seen.append(("HEAD", self.path))
        self.answer(body=False)

    def do_GET(self) -> None:
        self.hub.seen.append(("GET", self.path))
        self.answer(body=True)

    def answer(self, body: bool) -> None:
        raise NotImplementedError

    def send(self, status: int, headers: dict[str, str], content: bytes = b"") -> None:
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        if "Content-Length" not in headers:
            self.send_header("Content-Length", str(len(content)))
        self.end_headers()
        if content:
            self.wfile.write(content)


class _HubHandler(_Handler):
    def answer(self, body: bool) -> None:
        if self.path == "/api/agent-harnesses":  # huggingface_hub's user-agent telemetry
            registry = json.dumps({"standardEnvVars": [], "harnesses": {}}).encode()
            self.send(200, {"Content-Type": "application/json"}, registry if body else b"")
            return
        owner, _, rest = self.path.lstrip("/").partition("/")
        repo, _, rest = rest.partition("/")
        kind, _, rest = rest.partition("/")
        _revision, _, filename = rest.partition("/")
        name = f"{owner}/{repo}"
        if kind != "resolve" or name not in self.hub.repos():
            message = b"Repository not found"
            error = {"X-Error-Code": "RepoNotFound", "X-Error-Message": message.decode()}
            self.send(401, error, message if body else b"")
            return
        found = self.hub.files.get(f"{name}/{filename}")
        if found is None:
            message = b"Entry not found"
            headers = {"X-Error-Code": "EntryNotFound", "X-Repo-Commit": COMMIT}
            self.send(404, headers, message if body else b"")
            return
        self.send(
            302,
            {
                "Location": self.hub.cdn_url(found.sha256),
                "X-Repo-Commit": COMMIT,
                "X-Linked-Etag": f'"{found.sha256}"',
                "X-Linked-Size": str(len(found.content)),
                "ETag": '"a1b2c3d4e5"',  # the git blob's id; the linked one wins
            },
        )


class _CdnHandler(_Handler):
    def answer(self, body: bool) -> None:
        sha = self.path.partition("?")[0].removeprefix("/repos/")
        found = next((f for f in self.hub.files.values() if f.sha256 == sha), None)
        if found is None:
            self.send(403, {}, b"AccessDenied" if body else b"")
            return
        content = found.content if found.short is None else found.content[: found.short]
        headers = {"Content-Type": "binary/octet-stream", "ETag": f'"{sha}"'}
        if found.hold is None or not body:
            self.send(200, headers, content if body else b"")
            return
        half = len(content) // 2
        self.send(200, {**headers, "Content-Length": str(len(content))}, content[:half])
        self.wfile.flush()
        found.hold.wait(30)
        self.wfile.write(content[half:])


def needs_client() -> None:
    """Skip without huggingface_hub (`auger[local]`), but fail under CI, which installs it."""
    import os

    import pytest

    try:
        import huggingface_hub  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("CI installs auger[local]: huggingface_hub is missing")
        pytest.skip("pip install -e '.[local]'")
