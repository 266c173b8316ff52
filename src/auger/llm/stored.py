"""Assistant messages as sessions stored them before provider data had its own part: upgraded
when they are read, and their old form rebuilt for the fingerprints taken over it.

That form kept every piece of opaque provider data in a reasoning part's `signature`, as a
string whose beginning said what it was: `redacted:` and `block:` (Messages), `thought:` and
`next:` (Gemini), a JSON object (Responses: a reasoning item's id and encrypted content, a
`web_search_call` item, `{"phase": …}`; Chat Completions: `{"chat": …}`), any other string a
Messages thinking signature — each wrapped as `{"sealed": …, "prefix": …}` when bound to the
request prefix it answered. The prefix is a digest of the messages in that old form, so a part
upgraded from a sealed signature keeps it with `legacy` set, and `legacy_form` gives back the
bytes it was taken over (`auger.llm.replay`). Every function here takes and gives plain dicts.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import msgspec

from auger.llm.messages import SIGNS_REASONING

_SEALED = '{"sealed":'
_CHAT = {"reasoning_details": "reasoning_details", "thought_signatures": "call_signatures"}
_PREFIXES = {
    "redacted_thinking": "redacted:",
    "server_block": "block:",
    "thought_signature": "thought:",
    "part_signature": "next:",
}
_encode = msgspec.json.encode


def _signed(part: Any) -> bool:
    return (
        isinstance(part, dict)
        and part.get("type") == "reasoning"
        and isinstance(part.get("signature"), str)
    )


def upgrade(message: dict[str, Any]) -> dict[str, Any]:
    """`message` (a stored message's dict) in today's form: each signed reasoning part becomes
    its text and `provider_data` parts; a signature no format can read is dropped."""
    content = message.get("content")
    if not isinstance(content, list) or not any(_signed(p) for p in content):
        return message
    api = message.get("api")
    parts: list[Any] = []
    for part in content:
        if not _signed(part):
            parts.append(part)
            continue
        text = part.get("text")
        data = _provider_data(part["signature"], api if isinstance(api, str) else "")
        if text or any(d["kind"] in SIGNS_REASONING for d in data):
            parts.append({"type": "reasoning", "text": text})
        parts.extend(data)
    return {**message, "content": parts}


def _unseal(signature: str) -> tuple[str, str | None]:
    if signature.startswith(_SEALED):
        try:
            data = json.loads(signature)
            return str(data["sealed"]), str(data["prefix"])
        except (ValueError, KeyError, TypeError):
            pass
    return signature, None


def _provider_data(signature: str, api: str) -> list[dict[str, Any]]:
    raw, prefix = _unseal(signature)
    bound = {} if prefix is None else {"prefix": prefix, "legacy": True}
    read = _READERS.get(api)
    found = read(raw) if read is not None else []
    return [{"type": "provider_data", "kind": kind, "data": data, **bound} for kind, data in found]


def _gemini(raw: str) -> list[tuple[str, dict[str, Any]]]:
    for kind in ("thought_signature", "part_signature"):
        if raw.startswith(_PREFIXES[kind]):
            return [(kind, {"signature": raw[len(_PREFIXES[kind]) :]})]
    return []


def _messages(raw: str) -> list[tuple[str, dict[str, Any]]]:
    for kind in ("redacted_thinking", "server_block"):
        if raw.startswith(_PREFIXES[kind]):
            rest = raw[len(_PREFIXES[kind]) :]
            if kind == "redacted_thinking":
                return [(kind, {"data": rest})]
            block = _object(rest)
            return [] if block is None else [(kind, block)]
    return [("thinking_signature", {"signature": raw})]


def _vertex(raw: str) -> list[tuple[str, dict[str, Any]]]:
    return _gemini(raw) or _messages(raw)  # Vertex serves both: a Claude signature has no colon


def _responses(raw: str) -> list[tuple[str, dict[str, Any]]]:
    item = _object(raw)
    if item is None:
        return []
    if raw.startswith('{"phase":'):
        return [("phase", {"phase": str(item["phase"])})]
    kind = "web_search_call" if item.get("type") == "web_search_call" else "encrypted_reasoning"
    return [(kind, item)]


def _chat(raw: str) -> list[tuple[str, dict[str, Any]]]:
    extras = (_object(raw) or {}).get("chat") if raw.startswith('{"chat":') else None
    if not isinstance(extras, dict):
        return []
    return [(_CHAT[key], {key: extras[key]}) for key in extras if key in _CHAT]


_READERS: dict[str, Callable[[str], list[tuple[str, dict[str, Any]]]]] = {
    "messages": _messages,
    "bedrock": _messages,
    "vertex": _vertex,
    "gemini": _gemini,
    "responses": _responses,
    "chat-completions": _chat,
}
"""How each format that wrote the old form read its signatures back (the old form is closed:
a format added since never wrote one)."""


def _object(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def legacy_form(message: dict[str, Any]) -> dict[str, Any]:
    """`message` (a message's dict in today's form) as the old form stored it: the inverse of
    `upgrade` for every part it makes, and what the old fingerprints were taken over."""
    content = message.get("content")
    if not isinstance(content, list) or not any(_is_data(p) for p in content):
        return message
    parts: list[dict[str, Any]] = []
    extras: dict[str, Any] | None = None  # the `{"chat": …}` part being collected
    for part in content:
        if not _is_data(part):
            parts.append(part)
            extras = None
            continue
        kind, data = part["kind"], part["data"]
        if kind in _CHAT.values():
            if extras is None:
                extras = {}
                parts.append({"type": "reasoning", "text": ""})
            extras |= data
            parts[-1]["signature"] = _encode({"chat": extras}).decode()
            continue
        extras = None
        signature = _signature(kind, data)
        if part.get("prefix") is not None:
            signature = _encode({"sealed": signature, "prefix": part["prefix"]}).decode()
        last = parts[-1] if parts else None
        if (
            kind in SIGNS_REASONING
            and last
            and last["type"] == "reasoning"
            and "signature" not in last
        ):
            parts[-1] = {**last, "signature": signature}
        else:
            parts.append({"type": "reasoning", "text": "", "signature": signature})
    return {**message, "content": parts}


def _is_data(part: Any) -> bool:
    return isinstance(part, dict) and part.get("type") == "provider_data"


def _signature(kind: str, data: dict[str, Any]) -> str:
    if kind in ("thinking_signature", "thought_signature", "part_signature"):
        return _PREFIXES.get(kind, "") + str(data["signature"])
    if kind == "redacted_thinking":
        return _PREFIXES[kind] + str(data["data"])
    return _PREFIXES.get(kind, "") + json.dumps(data)
