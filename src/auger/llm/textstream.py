"""Text calls recovered as they stream (`auger.llm.textcalls` finds them in whole text).

However a server splits the text into deltas (llama.cpp sends `'```'`, `'json'`, `'\\n'`, `'{'`
…), a stretch that may open a call is held and decided only once what decides it has arrived:
a fence after its language tag and the first non-blank character after it, a `<tool_call>` tag
after the first non-blank character after it, a whole reply of JSON once its value closes and
something follows. Each decision is the whole-text parser's own rule, so the calls found are
the same for every split. Text before a call streams live; a held stretch that turns out not
to be a call streams at once.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Collection

from auger.llm.provider import ToolSpec
from auger.llm.records import (
    FinishReasonDone,
    ProviderNotice,
    Record,
    TextDelta,
    TextDone,
    TokenUsageDone,
    ToolCallDelta,
    ToolCallDone,
)
from auger.llm.textcalls import JsonScan, TextCall, find_calls

_TAG, _CLOSE, _FENCE = "<tool_call>", "</tool_call>", "```"
_MARKERS = (_TAG, _FENCE)
_LANGUAGE = re.compile(r"```[a-zA-Z_]*")


def _partial(text: str) -> int:
    """How many characters at the end of `text` may begin a marker."""
    for size in range(min(len(text), len(_TAG) - 1), 0, -1):
        if any(m.startswith(text[-size:]) for m in _MARKERS):
            return size
    return 0


def _first_solid(text: str, start: int) -> int | None:
    """The index of the first non-blank character from `start`; `None` if none has arrived."""
    for index in range(start, len(text)):
        if not text[index].isspace():
            return index
    return None


class _Block:
    """One text block: what streamed live, and what is held back because it may be a call."""

    def __init__(self, names: Collection[str]) -> None:
        self.names = names
        self.live = ""
        self.pending = ""  # the end of the live text that may begin a marker
        self.held = ""
        self.called = False  # the held text holds a call: it stays held to the end
        self.in_fence = False  # inside a fence streamed as text: its next ``` closes it
        self.scan = JsonScan()  # how far a whole reply of JSON has been read
        self.bare_call: bool | None = None  # whether that reply, once closed, is a call
        self.seen = 0  # how much of the held text was looked through for its closing marker

    def feed(self, piece: str) -> str:
        """Take one delta; the text to stream now."""
        out: list[str] = []
        text = piece
        while text:
            if self.held:
                self.held += text
                text = self._decide(out)
                if self.held:
                    break
                continue
            text, self.pending = self.pending + text, ""
            if not self.live and not out:  # the block's start: a whole reply of JSON?
                solid = _first_solid(text, 0)
                if solid is None:
                    self.pending = text
                    break
                if text[solid] in "{[":
                    self.held = text
                    text = self._decide(out)
                    continue
            cut, marker = self._marker(text)
            if marker is None:
                keep = len(text) - _partial(text)
                self._stream(text[:keep], out)
                self.pending = text[keep:]
                break
            self._stream(text[:cut], out)
            if marker == _FENCE and self.in_fence:
                self._stream(_FENCE, out)
                self.in_fence = False
                text = text[cut + len(_FENCE) :]
                continue
            self.held = text[cut:]
            text = self._decide(out)
        return "".join(out)

    def _marker(self, text: str) -> tuple[int, str | None]:
        found = [(i, m) for m in _MARKERS if (i := text.find(m)) >= 0]
        return min(found) if found else (len(text), None)

    def _stream(self, text: str, out: list[str]) -> None:
        self.live += text
        out.append(text)

    def _decide(self, out: list[str]) -> str:
        """Stream what of the held text is plainly not a call; the rest of it goes back to be
        read again (returned)."""
        held = self.held
        cut = None if self.called else self._verdict(held)
        if cut is None:
            return ""
        self.held, self.seen = "", 0
        self._stream(held[:cut], out)
        return held[cut:]

    def _verdict(self, held: str) -> int | None:
        """How much of `held` is text (the rest to read again); `None`: keep holding."""
        if held.startswith(_FENCE):
            tag = _LANGUAGE.match(held)
            assert tag is not None
            if tag.end() == len(held):
                return None  # the language tag may go on
            solid = _first_solid(held, tag.end())
            if solid is None:
                return None
            if held[solid] not in "{[":
                self.in_fence = True
                return solid
            close = held.find(_FENCE, self._seek(held, solid, _FENCE))
            return None if close < 0 else self._closed(held, close + len(_FENCE))
        if held.startswith(_TAG):
            solid = _first_solid(held, len(_TAG))
            if solid is None:
                return None
            if held[solid] not in "{[":
                return solid
            start = self._seek(held, solid, _CLOSE)
            ends = [(i, i + len(m)) for m in (_CLOSE, _TAG) if (i := held.find(m, start)) >= 0]
            if not ends:
                return None
            at, after = min(ends)
            return self._closed(held, after if held.startswith(_CLOSE, at) else at)
        # a whole reply of JSON (it opens the block, after blanks): a call only if nothing follows
        end = self.scan.feed(held)
        if end is None:
            return None
        if self.bare_call is None:
            self.bare_call = bool(find_calls(held[:end], self.names)[1])
        return None if self.bare_call and _first_solid(held, end) is None else end

    def _seek(self, held: str, solid: int, marker: str) -> int:
        """Where to look for `marker` in `held`: past what was looked through already (but for
        a marker cut by the last delta), so a long held call is read once, not once a delta."""
        start, self.seen = max(solid, self.seen - len(marker) + 1), len(held)
        return start

    def _closed(self, held: str, end: int) -> int | None:
        """A closed fence or tag: text unless it holds a call (then held to the end)."""
        if find_calls(held[:end], self.names)[1]:
            self.called = True
            return None
        return end

    def finish(self, calls_allowed: bool) -> tuple[str, str, tuple[TextCall, ...]]:
        """(the text still to stream, the block's whole text, the calls it holds)."""
        tail = self.pending + self.held
        rest, calls = find_calls(tail, self.names) if calls_allowed and self.held else (tail, ())
        if calls:
            tail = rest if not self.live or not rest else "\n" + rest
        return tail, self.live + tail, calls


class _Calls:
    """The records of calls found in text, each with an id of its own."""

    def __init__(self) -> None:
        self.step = secrets.token_hex(4)
        self.made = 0

    def records(self, calls: tuple[TextCall, ...]) -> list[Record]:
        out: list[Record] = []
        for call in calls:
            self.made += 1
            call_id = f"call_text_{self.step}_{self.made}"
            out += [
                ToolCallDelta(call_id, call.name, call.arguments),
                ToolCallDone(call_id, call.name, call.arguments),
            ]
        return out


async def recover(
    records: AsyncIterator[Record], tools: tuple[ToolSpec, ...]
) -> AsyncGenerator[Record, None]:
    """`records` with text that holds tool calls turned into `tool_call_delta`/`tool_call_done`.

    Text streams live up to the point where a call may begin (see the module); from there it is
    held until it is plainly not a call, or the response ends. A response that made native
    calls keeps its text as it is; so does one cut short (`length`), since its last call may be
    cut too.
    """
    names = {t.name for t in tools}
    block = _Block(names)
    waiting: list[_Block] = []  # closed blocks with held text, decided at the response's end
    usage: TokenUsageDone | None = None  # the last two records stay usage, then finish
    native = False
    made = _Calls()

    def settle(calls_allowed: bool) -> list[Record]:
        out: list[Record] = []
        for held in waiting:
            tail, whole, calls = held.finish(calls_allowed)
            if tail:
                out.append(TextDelta(tail))
            if whole:
                out.append(TextDone(whole))
            out += made.records(calls)
        waiting.clear()
        return out

    async for record in records:
        if isinstance(record, TextDelta) and not native:
            if live := block.feed(record.content):
                yield TextDelta(live)
        elif isinstance(record, TextDone) and not native:
            if block.held or block.pending:
                waiting.append(block)
            else:
                yield record
            block = _Block(names)
        elif isinstance(record, ToolCallDelta | ToolCallDone):
            if not native:
                native = True
                for settled in settle(False):
                    yield settled
            yield record
        elif isinstance(record, TokenUsageDone):
            usage = record
        elif isinstance(record, FinishReasonDone):
            for settled in settle(record.finish_reason == "stop"):
                yield settled
            if usage is not None:
                yield usage
                usage = None
            yield FinishReasonDone("tool_calls", record.raw) if made.made else record
        else:
            yield record
    for settled in settle(False):  # a stream that ended without its finish reason
        yield settled
    if usage is not None:
        yield usage


async def watch(
    records: AsyncIterator[Record], tools: tuple[ToolSpec, ...], found: Callable[[], None]
) -> AsyncGenerator[Record, None]:
    """`records` as they are, but for a response whose text, once whole, holds calls: those
    become calls, a `ProviderNotice` says the fallback is now on, and `found()` turns it on
    (for a provider whose fallback is off: nothing is held, nothing changes otherwise)."""
    names = {t.name for t in tools}
    texts: list[str] = []
    usage: TokenUsageDone | None = None
    native = False
    async for record in records:
        if isinstance(record, TextDone):
            texts.append(record.content)
        elif isinstance(record, ToolCallDelta | ToolCallDone):
            native = True
        elif isinstance(record, TokenUsageDone):
            usage = record
            continue
        elif isinstance(record, FinishReasonDone):
            calls = () if native or record.finish_reason != "stop" else _found(texts, names)
            if calls:
                found()
                yield ProviderNotice(
                    "the model wrote its tool calls as text: reading them as calls from now on "
                    "(compat.tool_call_fallback)"
                )
                for made in _Calls().records(calls):
                    yield made
                record = FinishReasonDone("tool_calls", record.raw)
            if usage is not None:
                yield usage
                usage = None
        yield record
    if usage is not None:
        yield usage


def _found(texts: list[str], names: Collection[str]) -> tuple[TextCall, ...]:
    return tuple(call for text in texts for call in find_calls(text, names)[1])
