"""A wire format's provider pointed at a `FakeServer`, built through the wire-format table."""

from __future__ import annotations

from typing import Any

from auger.llm.formats import FORMATS, Endpoint
from auger.llm.provider import PassThrough, Request
from auger.llm.records import Record
from support.server import FakeServer


async def stream(
    server: FakeServer, api: str, request: Request, *, compat: dict[str, Any] | None = None
) -> list[Record]:
    """Every record of one response of format `api`, served by `server`."""
    url = server.url if FORMATS[api].url == "host" else f"{server.url}/v1"  # type: ignore[index]
    endpoint = Endpoint("test", url, "sk-test", compat=compat or {})
    provider = FORMATS[api].build(endpoint)  # type: ignore[index]
    try:
        return [record async for record in provider.stream(request, PassThrough())]
    finally:
        await provider.aclose()
