"""A provider that plays queued replies, so extensions and hosts can be tested offline."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Iterable
from pathlib import Path
from typing import Any

import msgspec

from auger.llm.errors import ErrorKind, ProviderError, error_kind
from auger.llm.formats import Endpoint
from auger.llm.provider import Exchange, Request
from auger.llm.records import (
    FinishReasonDone,
    ReasoningDelta,
    ReasoningDone,
    Record,
    TextDelta,
    TextDone,
    TokenUsageDone,
    ToolCallDelta,
    ToolCallDone,
)
from auger.llm.usage import Usage


class Text(msgspec.Struct, frozen=True):
    """Assistant text, streamed in `chunks` pieces (default: word by word)."""

    text: str
    chunks: tuple[str, ...] | None = None


class Reasoning(msgspec.Struct, frozen=True):
    """Reasoning, streamed word by word."""

    text: str


class Call(msgspec.Struct, frozen=True):
    """A tool call; `arguments` may be a dict (sent as JSON) or a raw string."""

    name: str
    arguments: dict[str, Any] | str = msgspec.field(default_factory=dict)
    call_id: str | None = None


class Fail(msgspec.Struct, frozen=True):
    """Raise a `ProviderError` at this point of the stream."""

    kind: ErrorKind = "server"
    message: str = "scripted failure"
    retry_after: float | None = None


class Delay(msgspec.Struct, frozen=True):
    """Wait this many seconds before the next part."""

    seconds: float


Part = Text | Reasoning | Call | Fail | Delay


class Reply(msgspec.Struct, frozen=True):
    """One scripted model response: its parts in order, its usage and finish reason.

    `finish` defaults to `tool_calls` when the reply has calls, else `stop`. `usage` defaults
    to a rough count (four characters a token).
    """

    parts: tuple[Part, ...]
    usage: Usage | None = None
    finish: str | None = None

    @classmethod
    def of(cls, *parts: Part | str, usage: Usage | None = None, finish: str | None = None) -> Reply:
        """A reply from parts; a bare string is a `Text` part."""
        return cls(tuple(Text(p) if isinstance(p, str) else p for p in parts), usage, finish)


def _words(text: str) -> list[str]:
    pieces: list[str] = []
    start = 0
    for i, ch in enumerate(text):
        if ch == " " and i > start:
            pieces.append(text[start:i])
            start = i
    if start < len(text):
        pieces.append(text[start:])
    return pieces


Script = Reply | Callable[[Request], Reply]


class ScriptedProvider:
    """Plays queued replies in order; every request it received is kept in `requests`.

    A reply may also be a function of the request. With nothing queued, a request fails
    with a `bad_request` error that says so. Like the HTTP providers, each request goes
    through the `before_provider_request` handlers (URL `scripted://NAME`, a JSON body of the
    request) and then `after_provider_response` (200, or 400 with nothing queued); `sent`
    keeps the headers and body each request left the handlers with.
    """

    def __init__(self, replies: Iterable[Script | str] = (), *, name: str = "scripted") -> None:
        self.name = name
        self._queue: list[Script] = [Reply.of(r) if isinstance(r, str) else r for r in replies]
        self.requests: list[Request] = []
        self.sent: list[tuple[dict[str, str], dict[str, Any]]] = []
        self._calls = 0

    @classmethod
    def from_endpoint(cls, endpoint: Endpoint, transport: Any = None) -> ScriptedProvider:
        """Replies from the JSON file `endpoint.script` (the wire-format table's constructor)."""
        if not endpoint.script:
            raise ValueError(
                f'scripted provider {endpoint.name!r} needs "script": a JSON file of replies'
            )
        path = Path(endpoint.script).expanduser()
        try:
            replies = [reply_from_dict(r) for r in json.loads(path.read_text())]
        except (OSError, ValueError) as exc:
            raise ValueError(f"cannot load script {path}: {exc}") from None
        return cls(replies, name=endpoint.name)

    def queue(self, *replies: Script | str) -> None:
        """Add replies; a bare string is a text reply."""
        self._queue.extend(Reply.of(r) if isinstance(r, str) else r for r in replies)

    @property
    def pending(self) -> int:
        """How many replies are still queued."""
        return len(self._queue)

    async def stream(self, request: Request, exchange: Exchange) -> AsyncIterator[Record]:
        """Play the next reply."""
        self.requests.append(request)
        url = f"scripted://{self.name}"
        self.sent.append(await exchange.before_request(url, {}, request_body(request)))
        await exchange.after_response(url, 200 if self._queue else 400, {})
        if not self._queue:
            raise ProviderError("bad_request", f"{self.name}: no scripted reply left")
        script = self._queue.pop(0)
        reply = script(request) if callable(script) else script
        async for record in self._play(reply, request):
            yield record

    async def _play(self, reply: Reply, request: Request) -> AsyncIterator[Record]:
        produced = 0
        has_calls = False
        for part in reply.parts:
            if isinstance(part, Delay):
                await asyncio.sleep(part.seconds)
            elif isinstance(part, Fail):
                raise ProviderError(part.kind, part.message, retry_after=part.retry_after)
            elif isinstance(part, Text):
                for piece in part.chunks or _words(part.text):
                    yield TextDelta(piece)
                yield TextDone(part.text)
                produced += len(part.text)
            elif isinstance(part, Reasoning):
                for piece in _words(part.text):
                    yield ReasoningDelta(piece)
                yield ReasoningDone(part.text)
                produced += len(part.text)
            else:
                has_calls = True
                self._calls += 1
                call_id = part.call_id or f"call_{self._calls}"
                args = part.arguments
                raw = args if isinstance(args, str) else json.dumps(args)
                yield ToolCallDelta(call_id, part.name, raw)
                yield ToolCallDone(call_id, part.name, raw)
                produced += len(raw)
        usage = reply.usage or Usage(_estimate(request), max(produced // 4, 1))
        yield TokenUsageDone(request.model.price(usage))
        finish = reply.finish or ("tool_calls" if has_calls else "stop")
        yield FinishReasonDone(finish, finish)

    async def aclose(self) -> None:
        """Nothing to release."""


def request_body(request: Request) -> dict[str, Any]:
    """The request as the JSON body a provider would send (the scripted provider's wire)."""
    body: dict[str, Any] = {
        "model": request.model.name,
        "system": request.system,
        "messages": [m.to_dict() for m in request.messages],
        "tools": [msgspec.to_builtins(tool) for tool in request.tools],
    }
    if request.max_tokens is not None:
        body["max_tokens"] = request.max_tokens
    if request.reasoning is not None:
        body["reasoning"] = request.reasoning
    return body


def _estimate(request: Request) -> int:
    chars = len(request.system) + sum(len(json.dumps(m.to_dict())) for m in request.messages)
    return max(chars // 4, 1)


def reply_from_dict(data: dict[str, Any] | str) -> Reply:
    """A reply from JSON: `{"text": …}`, `{"parts": [{"text": …}, {"tool": …, "args": …}, …]}`.

    Part keys: `text`, `reasoning`, `tool` (+ `args`, `id`), `error` (+ `kind`,
    `retry_after`), `delay`. Reply keys: `usage` (`input`, `output`), `finish`.
    """
    if isinstance(data, str):
        return Reply.of(data)
    raw_parts = data.get("parts") or [data]
    parts: list[Part] = []
    for p in raw_parts:
        if "text" in p:
            parts.append(Text(p["text"], tuple(p["chunks"]) if "chunks" in p else None))
        elif "reasoning" in p:
            parts.append(Reasoning(p["reasoning"]))
        elif "tool" in p:
            parts.append(Call(p["tool"], p.get("args", {}), p.get("id")))
        elif "error" in p:
            kind = error_kind(p.get("kind", "server"))
            parts.append(Fail(kind, p["error"], p.get("retry_after")))
        elif "delay" in p:
            parts.append(Delay(float(p["delay"])))
    usage = data.get("usage")
    return Reply(
        tuple(parts),
        Usage(usage.get("input", 0), usage.get("output", 0)) if usage else None,
        data.get("finish"),
    )
