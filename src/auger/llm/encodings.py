"""A response body's `Content-Encoding` undone, for the encodings the transport asks for.

gzip and deflate only: zlib decodes both, and every provider compresses with gzip when asked.
`br` and `zstd` are not asked for: Python 3.11's standard library decodes neither (zstd comes
in 3.14's `compression.zstd`) and no dependency of auger's does; a server that uses one anyway
gets a clear error instead of its bytes passed on as text.
"""

from __future__ import annotations

import zlib

ACCEPTED = "gzip, deflate"
_WBITS = {"gzip": 31, "x-gzip": 31, "deflate": 15}


class BodyDecoder:
    """Decodes a body chunk by chunk. `deflate` is zlib's format (RFC 9110 §8.4.1.2), but some
    servers send it raw: the first chunk tells which."""

    def __init__(self, wbits: int) -> None:
        self._zlib = zlib.decompressobj(wbits)
        self._raw_allowed = wbits == 15

    def decompress(self, data: bytes) -> bytes:
        """The decoded bytes `data` completes."""
        if self._raw_allowed:
            self._raw_allowed = False
            try:
                return self._zlib.decompress(data)
            except zlib.error:
                self._zlib = zlib.decompressobj(-zlib.MAX_WBITS)
        return self._zlib.decompress(data)

    def flush(self) -> bytes:
        """What is left once the body has ended."""
        return self._zlib.flush()


def decoder_for(content_encoding: str) -> BodyDecoder | None:
    """The decoder for a `Content-Encoding` value (`None`: the bytes are the body);
    `ValueError` for an encoding auger cannot undo."""
    name = content_encoding.strip().lower()
    if name in ("", "identity"):
        return None
    if name not in _WBITS:
        raise ValueError(
            f"a body in content-encoding {content_encoding!r}, which auger cannot decode"
        )
    return BodyDecoder(_WBITS[name])
