"""What a request builder sends for earlier messages: arguments a server can parse, tool-call ids
it accepts, images as `data:` URLs — pure functions shared by the wire formats."""

from __future__ import annotations

import hashlib
import re
from typing import Any, Literal

from auger.llm.arguments import arguments_or_empty, parse_arguments
from auger.llm.messages import ImagePart


def tool_input(arguments: str) -> dict[str, Any]:
    """A call's arguments as an object a server accepts: `{}` when the model's string is not
    a JSON object or nests too deeply (the tool's result already told the model so)."""
    return arguments_or_empty(arguments)


def tool_arguments(arguments: str) -> str:
    """A call's arguments as a JSON string a server can parse: the model's own when it is a
    JSON object (nested no deeper than a live call may be), else `{}` — a server may answer a
    history holding an unparseable one with an error on every later request."""
    try:
        parse_arguments(arguments)
    except ValueError:
        return "{}"
    return arguments if arguments.strip() else "{}"


IdStyle = Literal["any", "anthropic", "mistral"]
"""What tool-call ids a server accepts: any string, `[a-zA-Z0-9_-]{1,64}` (Anthropic), or
exactly nine letters and digits (Mistral)."""


class CallIds:
    """Maps the tool-call ids of a history to ids `style` accepts, the same id always to the
    same answer and different ids to different answers (ids from another provider may not fit)."""

    def __init__(self, style: IdStyle) -> None:
        self._style = style
        self._map: dict[str, str] = {}
        self._used: set[str] = set()

    def __call__(self, call_id: str) -> str:
        """The id to send for `call_id`."""
        if self._style == "any":
            return call_id
        if (known := self._map.get(call_id)) is not None:
            return known
        sent = self._fit(call_id, 0)
        attempt = 0
        while sent in self._used:
            attempt += 1
            sent = self._fit(call_id, attempt)
        self._map[call_id] = sent
        self._used.add(sent)
        return sent

    def _fit(self, call_id: str, attempt: int) -> str:
        if self._style == "anthropic":
            fitted = re.sub(r"[^a-zA-Z0-9_-]", "_", call_id)[:64] or "call"
            return fitted if attempt == 0 else f"{fitted[:58]}_{attempt}"
        fitted = re.sub(r"[^a-zA-Z0-9]", "", call_id)
        if attempt == 0 and len(fitted) == 9:
            return fitted
        digest = hashlib.sha256(f"{call_id}:{attempt}".encode()).hexdigest()
        return digest[:9]


def data_url(image: ImagePart) -> str:
    """`image` as a base64 `data:` URL."""
    return f"data:{image.media_type};base64,{image.data}"
