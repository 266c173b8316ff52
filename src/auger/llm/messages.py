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
        }


Message = UserMessage | AssistantMessage | ToolResultMessage


def _part(data: dict[str, Any]) -> Any:
    kind = data["type"]
    if kind == "text":
        return TextPart(data["text"])
    if kind == "image":
        return ImagePart(data["media_type"], data["data"])
    if kind == "reasoning":
        return ReasoningPart(data["text"], data.get("signature"))
    if kind == "tool_call":
        return ToolCall(data["call_id"], data["name"], data["arguments"])
    raise ValueError(f"unknown message part type {kind!r}")


def message_from_dict(data: dict[str, Any]) -> Message:
    """The inverse of a message's `to_dict()`."""
    role = data["role"]
    parts = tuple(_part(p) for p in data["content"])
    if role == "user":
        return UserMessage(parts)
    if role == "assistant":
        return AssistantMessage(
            parts,
            Usage.from_dict(data.get("usage", {})),
            data.get("stop_reason", "stop"),
            data.get("provider", ""),
            data.get("model", ""),
            data.get("api", ""),
        )
    if role == "tool":
        return ToolResultMessage(data["call_id"], data["name"], parts, data.get("is_error", False))
    raise ValueError(f"unknown message role {role!r}")
