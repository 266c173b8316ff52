"""Compressed response bodies, decoded by the transport from a real server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import zlib

import pytest

from auger.llm.transport import HttpRequest, HttpTransport, TransportError
from support.sockets import Server, read_request

_BODY = b'{"error": {"message": "squeezed"}}' * 20


def deflated(data: bytes, wbits: int) -> bytes:
    packer = zlib.compressobj(wbits=wbits)
    return packer.compress(data) + packer.flush()


async def fetch_encoded(packed: bytes, encoding: str) -> tuple[bytes, bytes]:
    """What the server was asked, and the body the transport made of `packed`."""
    seen: list[bytes] = []

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen.append(await read_request(reader))
        head = f"HTTP/1.1 200 OK\r\ncontent-encoding: {encoding}\r\ncontent-length: {len(packed)}"
        writer.write(head.encode() + b"\r\n\r\n" + packed)
        await writer.drain()

    transport = HttpTransport()
    try:
        async with Server(handler) as server:
            request = HttpRequest("GET", f"http://127.0.0.1:{server.port}/", {})
            async with transport.stream(request) as response:
                body = b"".join([chunk async for chunk in response.aiter_bytes()])
    finally:
        await transport.aclose()
    return seen[0], body


@pytest.mark.parametrize(
    ("encoding", "wbits"),
    [("gzip", 31), ("deflate", 15), ("deflate", -15), ("x-gzip", 31)],  # -15: raw deflate
)
async def test_a_compressed_body_is_decoded(encoding: str, wbits: int):
    asked, body = await fetch_encoded(deflated(_BODY, wbits), encoding)
    assert b"\r\naccept-encoding: gzip, deflate\r\n" in asked
    assert body == _BODY


async def test_an_encoding_not_asked_for_is_a_clear_error():
    with pytest.raises(TransportError) as caught:
        await fetch_encoded(b"\x1b\x00\xf8", "br")
    assert str(caught.value).endswith(
        "sent a body in content-encoding 'br', which auger cannot decode"
    )
