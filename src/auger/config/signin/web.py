"""The small JSON exchanges of sign-in flows (token endpoints, device codes), over auger's own
HTTP transport: a form or JSON body out, a JSON object back."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

import msgspec

from auger.llm.transport import HttpRequest, Transport, TransportError


class SignInError(Exception):
    """A sign-in that could not be completed; the message says why, in one line."""


class Unreachable(SignInError):
    """The endpoint could not be reached (refused, timed out, broken HTTP)."""


class Answer(msgspec.Struct, frozen=True):
    """A JSON answer: its status and object (`{}` when the body was not a JSON object)."""

    status: int
    data: dict[str, Any]

    @property
    def ok(self) -> bool:
        """A 2xx answer."""
        return 200 <= self.status < 300

    def reason(self) -> str:
        """What an error answer says: OAuth's `error_description`/`error`, or the status."""
        error = self.data.get("error")
        if isinstance(error, dict):
            error = error.get("message") or error.get("code")
        text = self.data.get("error_description") or error or self.data.get("message")
        return str(text)[:200] if text else f"HTTP {self.status}"


async def call(
    transport: Transport,
    url: str,
    *,
    form: dict[str, str] | None = None,
    body: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
) -> Answer:
    """GET `url`, or POST `form` (urlencoded) or `body` (JSON) to it; the JSON answer."""
    sent = {"accept": "application/json"} | {k.lower(): v for k, v in (headers or {}).items()}
    content = b""
    if form is not None:
        sent["content-type"] = "application/x-www-form-urlencoded"
        content = urlencode(form).encode()
    elif body is not None:
        sent["content-type"] = "application/json"
        content = json.dumps(body).encode()
    method = "GET" if form is None and body is None else "POST"
    try:
        async with transport.stream(HttpRequest(method, url, sent, content)) as response:
            raw = await response.aread()
            status = response.status
    except TransportError as exc:
        raise Unreachable(f"cannot reach {url.split('?')[0]}: {exc}") from None
    try:
        data = json.loads(raw) if raw.strip() else {}
    except ValueError:
        data = {}
    return Answer(status, data if isinstance(data, dict) else {})


def text(data: dict[str, Any], field: str, what: str) -> str:
    """`data[field]` as a non-empty string; anything else is a `SignInError` naming `what`."""
    value = data.get(field)
    if not isinstance(value, str) or not value:
        raise SignInError(f"{what} answered without a usable {field!r}")
    return value
