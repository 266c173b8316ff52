"""Conversation messages: what is sent to a model, and what it answered."""

from __future__ import annotations

from typing import Any, ClassVar

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
    """Reasoning the model showed; `signature` is opaque provider data needed to send it back."""

    text: str
    signature: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        out: dict[str, Any] = {"type": "reasoning", "text": self.text}
        if self.signature is not None:
            out["signature"] = self.signature
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
AssistantPart = TextPart | ReasoningPart | ToolCall


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

    `api` names the wire format that produced it, so provider-specific parts (reasoning
    signatures) are sent back only to the format that understands them.
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
