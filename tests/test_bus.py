"""The chain rule of SPEC §2.1."""

from __future__ import annotations

import pytest

from auger.bus import Bus, Handler
from auger.events import BeforeProviderRequest, Input, SessionBeforeCompact, ToolCallEvent

REGISTRIES: dict[int, dict[str, list[Handler]]] = {}


def add(bus: Bus, name: str, handler: Handler) -> None:
    """Register `handler` as a registry does: in the mapping the bus reads, after it was made."""
    REGISTRIES[id(bus)].setdefault(name, []).append(handler)


def make_bus() -> tuple[Bus, list[tuple[str, str]]]:
    notices: list[tuple[str, str]] = []
    handlers: dict[str, list[Handler]] = {}
    bus = Bus(handlers, lambda message, level: notices.append((message, level)), ctx="CTX")
    REGISTRIES[id(bus)] = handlers
    return bus, notices


async def test_no_handlers_leaves_the_event_alone() -> None:
    bus, _ = make_bus()
    event = Input("hi")
    out = await bus.emit(event)
    assert out.event is event and not out.stopped


async def test_replacements_chain_in_order() -> None:
    bus, _ = make_bus()
    seen: list[str] = []

    def first(e: Input) -> str:
        seen.append(e.text)
        return e.text + " one"

    def second(e: Input) -> str:
        seen.append(e.text)
        return e.text + " two"

    add(bus, "input", Handler.of(first, "a"))
    add(bus, "input", Handler.of(second, "b"))
    out = await bus.emit(Input("hi"))
    assert seen == ["hi", "hi one"]
    assert out.event.text == "hi one two"


async def test_false_ends_the_chain() -> None:
    bus, _ = make_bus()
    called: list[str] = []
    add(bus, "input", Handler.of(lambda e: False, "a"))
    add(bus, "input", Handler.of(lambda e: called.append("later"), "b"))
    out = await bus.emit(Input("hi"))
    assert out.stopped and called == []


async def test_a_value_of_the_wrong_kind_is_ignored_with_a_warning() -> None:
    bus, notices = make_bus()
    add(bus, "input", Handler.of(lambda e: 42, "ext"))
    out = await bus.emit(Input("hi"))
    assert out.event.text == "hi"
    assert len(notices) == 1 and notices[0][1] == "warning"
    assert "input handler" in notices[0][0] and "(ext)" in notices[0][0]


@pytest.mark.parametrize(
    ("event", "value"),
    [
        (BeforeProviderRequest("u", {}, {}), {"headers": {"x-a": 1}}),
        (BeforeProviderRequest("u", {}, {}), {"headers": ["x-a"]}),
        (BeforeProviderRequest("u", {}, {}), {"body": "text"}),
        (SessionBeforeCompact(True), {"summary": 12}),
    ],
)
async def test_a_value_holding_the_wrong_types_is_ignored_saying_what_the_event_takes(
    event: BeforeProviderRequest | SessionBeforeCompact, value: object
) -> None:
    bus, notices = make_bus()

    def sloppy(e: object) -> object:
        return value

    add(bus, event.type, Handler.of(sloppy, "ext"))
    out = await bus.emit(event)
    assert out.event is event
    [(message, level)] = notices
    assert level == "warning"
    assert message == (
        f"{event.type} handler test_a_value_holding_the_wrong_types_is_ignored_saying_what_the_"
        f"event_takes.<locals>.sloppy (ext) returned dict {value!r}, but {event.type} takes "
        f"{event.takes}; ignored"
    )


async def test_a_raising_handler_is_reported_and_counts_as_none() -> None:
    bus, notices = make_bus()

    def boom(e: Input) -> None:
        raise ValueError("nope")

    add(bus, "input", Handler.of(boom, "a"))
    add(bus, "input", Handler.of(lambda e: "changed", "b"))
    out = await bus.emit(Input("hi"))
    assert notices == [("input handler failed: nope", "error")]
    assert out.event.text == "changed"


async def test_a_raising_tool_call_handler_blocks() -> None:
    bus, _ = make_bus()
    add(bus, "tool_call", Handler.of(lambda e: 1 / 0, "a"))
    out = await bus.emit(ToolCallEvent("bash", {}, "c1"))
    assert out.failure == "tool_call handler failed: division by zero"


async def test_first_tool_call_block_wins() -> None:
    bus, _ = make_bus()
    later: list[str] = []
    add(bus, "tool_call", Handler.of(lambda e: "first", "a"))
    add(bus, "tool_call", Handler.of(lambda e: later.append("x") or "second", "b"))
    out = await bus.emit(ToolCallEvent("bash", {}, "c1"))
    assert out.event.blocked == "first" and later == []


async def test_async_and_two_argument_handlers() -> None:
    bus, _ = make_bus()
    got: list[object] = []

    async def handler(e: Input, ctx: object) -> str:
        got.append(ctx)
        return "async"

    add(bus, "input", Handler.of(handler, "a"))
    out = await bus.emit(Input("hi"))
    assert got == ["CTX"] and out.event.text == "async"
