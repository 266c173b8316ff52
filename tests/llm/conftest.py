"""Helpers for the wire-format tests: recorded traffic and a provider on an in-memory transport."""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from auger.llm.provider import PassThrough, Provider, Request
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
from auger.llm.transport import HttpRequest, Response, Timeouts

# Real API traffic, kept in the repository (provenance and licence in its README.md).
RECORDED = Path(__file__).resolve().parents[1] / "fixtures" / "recorded"

_RECORDED_FIXTURES = {"anthropic_sse": "anthropic", "responses_sse": "openai-responses"}


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize `anthropic_sse` / `responses_sse` over every recorded `.sse` file."""
    for fixture, folder in _RECORDED_FIXTURES.items():
        if fixture not in metafunc.fixturenames:
            continue
        files = sorted((RECORDED / folder).glob("*.sse"))
        if not files:
            pytest.fail(f"no recorded traffic at {RECORDED / folder}", pytrace=False)
        metafunc.parametrize(fixture, files, ids=[f.stem for f in files])


@pytest.fixture
def recorded() -> Callable[[str, str], Path]:
    """The path of one recorded file, `recorded("anthropic", "name.sse")`; fails if missing."""

    def find(folder: str, name: str) -> Path:
        path = RECORDED / folder / name
        if not path.is_file():
            pytest.fail(f"no recorded traffic at {path}", pytrace=False)
        return path

    return find


class Wire:
    """Providers on an in-memory transport that streams `chunks` back for every request."""

    timeouts = Timeouts()

    def __init__(self) -> None:
        self.chunks: Sequence[bytes] = ()
        self.status = 200
        self.sent: list[HttpRequest] = []
        self.records: list[Record] = []
        self._providers: list[Provider] = []

    def provider(self, cls: Callable[..., Provider], **kwargs: Any) -> Provider:
        """A provider of class `cls` whose HTTP comes here."""
        base_url = kwargs.pop("base_url", "https://api.example.test/v1")
        api_key = kwargs.pop("api_key", "sk-test")
        provider = cls("test", base_url, api_key, transport=self, **kwargs)
        self._providers.append(provider)
        return provider

    @asynccontextmanager
    async def stream(self, request: HttpRequest) -> AsyncIterator[Response]:
        """The transport's side: keep `request`, answer with `chunks`."""
        self.sent.append(request)
        chunks = list(self.chunks)

        async def body() -> AsyncIterator[bytes]:
            for chunk in chunks:
                yield chunk

        yield Response(self.status, {"content-type": "text/event-stream"}, body())

    async def aclose(self) -> None:
        """The transport's side: nothing to close."""

    @property
    def body(self) -> dict[str, Any]:
        """The JSON body of the last request."""
        return json.loads(self.sent[-1].content)

    async def run(
        self, provider: Provider, request: Request, chunks: Sequence[bytes] | bytes
    ) -> list[Record]:
        """Every record `provider` streams when the response body arrives as `chunks`.

        The records also land in `self.records` as they come, for a stream that raises.
        """
        self.chunks = [chunks] if isinstance(chunks, bytes) else chunks
        self.records = []
        async for record in provider.stream(request, PassThrough()):
            self.records.append(record)
        return self.records

    async def replay(
        self, provider: Provider, request: Request, body: bytes, cuts: Sequence[int]
    ) -> list[Record]:
        """`run` with `body` cut at the given sorted offsets."""
        bounds = [0, *cuts, len(body)]
        return await self.run(provider, request, [body[a:b] for a, b in itertools.pairwise(bounds)])

    async def close_all(self) -> None:
        """Close every provider made here."""
        for provider in self._providers:
            await provider.aclose()


@pytest.fixture
async def wire() -> AsyncIterator[Wire]:
    """A `Wire`, its providers closed after the test."""
    w = Wire()
    yield w
    await w.close_all()


def check_stream(records: list[Record]) -> None:
    """The invariants of every provider stream (SPEC §1.1)."""
    assert isinstance(records[-2], TokenUsageDone)
    assert isinstance(records[-1], FinishReasonDone)
    assert not any(isinstance(r, TokenUsageDone | FinishReasonDone) for r in records[:-2])
    text: list[str] = []
    reasoning: list[str] = []
    arguments: dict[str, list[str]] = {}
    named: set[str] = set()
    for record in records[:-2]:
        if isinstance(record, TextDelta):
            text.append(record.content)
        elif isinstance(record, TextDone):
            assert record.content == "".join(text)
            text = []
        elif isinstance(record, ReasoningDelta):
            reasoning.append(record.content)
        elif isinstance(record, ReasoningDone):
            assert record.content == "".join(reasoning)
            reasoning = []
        elif isinstance(record, ToolCallDelta):
            assert record.arguments_delta
            assert (record.name is not None) == (record.call_id not in named)
            named.add(record.call_id)
            arguments.setdefault(record.call_id, []).append(record.arguments_delta)
        elif isinstance(record, ToolCallDone):
            assert record.arguments == ("".join(arguments.pop(record.call_id, [])) or "{}")
    assert not text and not reasoning and not arguments, "deltas without a done record"


@pytest.fixture
def check() -> Callable[[list[Record]], None]:
    """`check_stream`, for test modules."""
    return check_stream
