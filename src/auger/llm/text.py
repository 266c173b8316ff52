"""Text that did not come from UTF-8: undecodable bytes made visible instead of fatal.

Python carries bytes that are not UTF-8 (a file named `b'caf\\xe9.txt'`, latin-1 on stdin) as
lone surrogates, which no UTF-8 encoder accepts: one of them in a tool result or a prompt would
fail the JSON of the request, the session line and the stream. Here each becomes the escape a
reader understands: a byte `\\xe9` as the four characters `\\xe9`, another surrogate as `\\udXXX`.
"""

from __future__ import annotations

import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"


def escape_surrogates(text: str) -> str:
    """`text` with every lone surrogate replaced by a visible escape; unchanged without one."""
    return _SURROGATE.sub(_escape, text)


def escape_deep(value: Any) -> Any:
    """`escape_surrogates` applied to every string (keys too) in JSON-like data."""
    if isinstance(value, str):
        return escape_surrogates(value)
    if isinstance(value, dict):
        return {escape_deep(k): escape_deep(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [escape_deep(v) for v in value]
    return value


def decode_input(data: bytes) -> str:
    """Bytes from outside (stdin, a pipe) as text: UTF-8, any other byte escaped as `\\xNN`."""
    return data.decode("utf-8", "backslashreplace")
