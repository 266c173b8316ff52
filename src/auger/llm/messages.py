"""Conversation messages: what is sent to a model, and what it answered."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

import msgspec

from auger.llm.usage import Usage


class TextPart(msgspec.Struct, frozen=True):
    """Plain text."""

    text: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"type": "text", "text": self.text}


class ImagePart(msgspec.Struct, frozen=True):
    """An image, base64-encoded."""

    media_type: str
    data: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"type": "image", "media_type": self.media_type, "data": self.data}


class ReasoningPart(msgspec.Struct, frozen=True):
    """Reasoning the model showed, as text; what a provider needs to take it back (a signature,
    encrypted content) is a `ProviderData` part right after it."""

    text: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"type": "reasoning", "text": self.text}


ProviderDataKind = Literal[
    "thinking_signature",  # Messages: {"signature"} of the thinking just before it
    "redacted_thinking",  # Messages: {"data"} of a `redacted_thinking` block
    "server_block",  # Messages: a server tool block (`server_tool_use`, `*_tool_result`), whole
    "encrypted_reasoning",  # Responses: {"id", "encrypted_content"} of the reasoning before it
    "web_search_call",  # Responses: a `web_search_call` item, as it goes back
    "phase",  # Responses: {"phase"} of the message items after it
    "thought_signature",  # Gemini: {"signature"} of the thought just before it
    "part_signature",  # Gemini: {"signature"} of the part just after it
    "reasoning_details",  # Chat Completions (OpenRouter): {"reasoning_details": [...]}
    "call_signatures",  # Chat Completions (Gemini): {"thought_signatures": {call_id: signature}}
]
"""What a `ProviderData` part holds; each wire format reads only its own kinds."""

SIGNS_REASONING: frozenset[ProviderDataKind] = frozenset(
    {"thinking_signature", "encrypted_reasoning", "thought_signature"}
)
"""The kinds that take back the reasoning part just before them."""


_DATA_KEYS: dict[str, tuple[str, ...]] = {
    "thinking_signature": ("signature",),
    "redacted_thinking": ("data",),
    "encrypted_reasoning": ("encrypted_content",),
    "phase": ("phase",),
    "thought_signature": ("signature",),
    "part_signature": ("signature",),
    "reasoning_details": ("reasoning_details",),
    "call_signatures": ("thought_signatures",),
}


class ProviderData(msgspec.Struct, frozen=True):
    """Opaque data a provider sent that must go back to it as it came, in the place it came.

    It goes back only to its message's wire format; while `prefix` is set, only to the same
    provider and model, and only after the same request prefix (system prompt, tools, earlier
    messages) it was written after (`auger.llm.replay`). `legacy`: the prefix was taken over
    the stored form of sessions written before this part existed (`auger.llm.stored`).
    """

    kind: ProviderDataKind
    data: dict[str, Any]
    prefix: str | None = None
    legacy: bool = False

    def __post_init__(self) -> None:
        missing = [key for key in _DATA_KEYS.get(self.kind, ()) if key not in self.data]
        if missing:
            raise ValueError(f"{self.kind} provider data without {', '.join(missing)}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        out: dict[str, Any] = {"type": "provider_data", "kind": self.kind, "data": self.data}
        if self.prefix is not None:
            out["prefix"] = self.prefix
        if self.legacy:
            out["legacy"] = True
        return out


class ToolCall(msgspec.Struct, frozen=True):
    """A tool call the model made; `arguments` is the raw JSON string it sent."""

    call_id: str
    name: str
    arguments: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "type": "tool_call",
            "call_id": self.call_id,
            "name": self.name,
            "arguments": self.arguments,
        }


UserPart = TextPart | ImagePart
AssistantPart = TextPart | ReasoningPart | ProviderData | ToolCall


class UserMessage(msgspec.Struct, frozen=True):
    """What the user (or the runtime on their behalf) said."""

    content: tuple[UserPart, ...]
    role: ClassVar[str] = "user"

    @classmethod
    def of(cls, text: str) -> UserMessage:
        """A user message holding one text part."""
        return cls((TextPart(text),))

    @property
    def text(self) -> str:
        """The text parts joined."""
        return "".join(p.text for p in self.content if isinstance(p, TextPart))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"role": "user", "content": [p.to_dict() for p in self.content]}


class AssistantMessage(msgspec.Struct, frozen=True):
    """One model response, in the order its blocks arrived.

    `api` names the wire format that produced it, so its `ProviderData` parts are sent back
    only to the format that understands them.
    """

    content: tuple[AssistantPart, ...]
    usage: Usage = Usage()
    stop_reason: str = "stop"
    provider: str = ""
    model: str = ""
    api: str = ""
    role: ClassVar[str] = "assistant"

    @property
    def text(self) -> str:
        """The text parts joined."""
        return "".join(p.text for p in self.content if isinstance(p, TextPart))

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        """The tool calls, in the model's order."""
        return tuple(p for p in self.content if isinstance(p, ToolCall))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "role": "assistant",
            "content": [p.to_dict() for p in self.content],
            "usage": self.usage.to_dict(),
            "stop_reason": self.stop_reason,
            "provider": self.provider,
            "model": self.model,
            "api": self.api,
        }


class ToolResultMessage(msgspec.Struct, frozen=True):
    """What a tool call returned, as the model is told it."""

    call_id: str
    name: str
    content: tuple[UserPart, ...]
    is_error: bool = False
    error_type: str | None = None
    """How the call failed (`validation_error`, `tool_failed`, …): for hosts, never sent."""
    role: ClassVar[str] = "tool"

    @property
    def text(self) -> str:
        """The text parts joined."""
        return "".join(p.text for p in self.content if isinstance(p, TextPart))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "role": "tool",
            "call_id": self.call_id,
            "name": self.name,
            "content": [p.to_dict() for p in self.content],
            "is_error": self.is_error,
            **({"error_type": self.error_type} if self.error_type else {}),
        }


Message = UserMessage | AssistantMessage | ToolResultMessage


_USER_PARTS: dict[str, type[UserPart]] = {"text": TextPart, "image": ImagePart}
_ASSISTANT_PARTS: dict[str, type[AssistantPart]] = {
    "text": TextPart,
    "reasoning": ReasoningPart,
    "provider_data": ProviderData,
    "tool_call": ToolCall,
}


class _AssistantFields(msgspec.Struct, frozen=True):
    usage: Usage = Usage()
    stop_reason: str = "stop"
    provider: str = ""
    model: str = ""
    api: str = ""


class _ToolFields(msgspec.Struct, frozen=True):
    call_id: str
    name: str
    is_error: bool = False
    error_type: str | None = None


def _parts(data: Any, kinds: dict[str, type[Any]]) -> tuple[Any, ...]:
    if not isinstance(data, list):
        raise ValueError("a message's content is not a list")
    parts = []
    for part in data:
        kind = part.get("type") if isinstance(part, dict) else None
        cls = kinds.get(kind) if isinstance(kind, str) else None
        if cls is None:
            raise ValueError(f"unknown message part type {kind!r}")
        parts.append(msgspec.convert(part, cls))
    return tuple(parts)


def message_from_dict(data: Any) -> Message:
    """The inverse of a message's `to_dict()`.

    Raises `ValueError` (a `msgspec.ValidationError` naming the field) for anything else:
    wrong types, unknown roles or parts, negative token counts.
    """
    role = data.get("role") if isinstance(data, dict) else None
    if role == "user":
        return UserMessage(_parts(data.get("content"), _USER_PARTS))
    if role == "assistant":
        parts = _parts(data.get("content"), _ASSISTANT_PARTS)
        fields = msgspec.convert(data, _AssistantFields)
        usage = fields.usage
        counts = (
            usage.input_tokens,
            usage.output_tokens,
            usage.cache_read_tokens or 0,
            usage.cache_write_tokens or 0,
        )
        if min(counts) < 0:
            raise ValueError("negative token counts")
        return AssistantMessage(
            parts, usage, fields.stop_reason, fields.provider, fields.model, fields.api
        )
    if role == "tool":
        parts = _parts(data.get("content"), _USER_PARTS)
        tool = msgspec.convert(data, _ToolFields)
        return ToolResultMessage(tool.call_id, tool.name, parts, tool.is_error, tool.error_type)
    raise ValueError(f"unknown message role {role!r}")
