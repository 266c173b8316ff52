"""The loopback callback of a browser sign-in: a one-shot HTTP listener on 127.0.0.1 that takes
the authorization code the browser is redirected back with (RFC 8252 §7.3)."""

from __future__ import annotations

import asyncio
from urllib.parse import parse_qs, urlsplit

from auger.config.signin.web import SignInError

_PAGE = (
    "<!doctype html><meta charset=utf-8><title>auger</title>"
    "<p style='font-family:sans-serif'>{}</p>"
)


class Callback:
    """Listens on `127.0.0.1:port` for `GET path?code=…&state=…`; `code()` waits for it."""

    def __init__(self, path: str, state: str) -> None:
        self.path = path
        self.state = state
        self.port = 0
        self._server: asyncio.Server | None = None
        self._result: asyncio.Future[str] | None = None

    async def start(self, ports: tuple[int, ...]) -> int:
        """Listen on the first free port of `ports` (0: any); the port taken."""
        self._result = asyncio.get_running_loop().create_future()
        for port in ports:
            try:
                self._server = await asyncio.start_server(self._serve, "127.0.0.1", port)
            except OSError:
                continue
            self.port = self._server.sockets[0].getsockname()[1]
            return self.port
        raise SignInError(
            f"ports {', '.join(map(str, ports))} on 127.0.0.1 are taken, so the browser cannot "
            "come back — close what uses them, or sign in with --device"
        )

    async def code(self, timeout: float) -> str:
        """The authorization code, once the browser brings it back."""
        assert self._result is not None
        try:
            return await asyncio.wait_for(asyncio.shield(self._result), timeout)
        except TimeoutError:
            raise SignInError(f"no answer from the browser within {timeout:g} s") from None

    async def close(self) -> None:
        """Stop listening."""
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = (await asyncio.wait_for(reader.readline(), 10)).decode("latin-1")
            while (await asyncio.wait_for(reader.readline(), 10)) not in (b"\r\n", b"\n", b""):
                pass
        except (TimeoutError, OSError, ValueError):
            writer.close()
            return
        parts = line.split()
        target = urlsplit(parts[1]) if len(parts) >= 2 else urlsplit("/")
        status, message = self._answer(target.path, parse_qs(target.query))
        body = _PAGE.format(message).encode()
        head = (
            f"HTTP/1.1 {status}\r\ncontent-type: text/html; charset=utf-8\r\n"
            f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
        )
        try:
            writer.write(head.encode() + body)
            await writer.drain()
        except OSError:
            pass
        writer.close()

    def _answer(self, path: str, query: dict[str, list[str]]) -> tuple[str, str]:
        assert self._result is not None
        if path != self.path:
            return "404 Not Found", "Not found."
        if query.get("state", [""])[0] != self.state:
            return "400 Bad Request", "This sign-in link is stale or forged (state mismatch)."
        if self._result.done():
            return "200 OK", "Already signed in; you may close this tab."
        if error := query.get("error", [""])[0]:
            reason = query.get("error_description", [error])[0]
            self._result.set_exception(SignInError(f"the sign-in was refused: {reason[:200]}"))
            return "400 Bad Request", "The sign-in was refused; see the terminal."
        code = query.get("code", [""])[0]
        if not code:
            return "400 Bad Request", "The sign-in came back without a code."
        self._result.set_result(code)
        return "200 OK", "Signed in to auger. You may close this tab."
