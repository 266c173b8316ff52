"""Child agents (SPEC §8): engines in the same process, sharing the parent's place, model,
provider connections, sandbox, host and extensions, each with its own conversation, session
file, stream and ledger; their records reach the parent's stream wrapped."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence

import msgspec

from auger.bus import Bus
from auger.config.errors import ConfigError
from auger.engine.context import Agent, Context
from auger.engine.registry import PromptSection
from auger.engine.state import AgentState
from auger.engine.stream import Stream
from auger.engine.turn import run_turn
from auger.llm.provider import Model, Provider
from auger.llm.records import Record
from auger.llm.usage import Usage
from auger.records import StopReason, SubagentEnd, SubagentRecord, SubagentStart, TurnEnd
from auger.session.conversation import Conversation
from auger.session.entries import SUBAGENT_KIND, CustomEntry
from auger.session.store import SessionFile, SessionHeader

AGENT_SECTION = "agent"
"""The system-prompt section of a child: its definition's body."""


class ChildSpec(msgspec.Struct, frozen=True):
    """One child to run: its agent name, system prompt, prompt, and the tools it may have
    (`None`: all of the parent's)."""

    name: str
    system: str
    prompt: str
    tools: tuple[str, ...] | None = None
    model: str | None = None
    """`provider/name`, or a name of the parent's provider; `None`: the parent's model."""


class ChildResult(msgspec.Struct, frozen=True):
    """How one child ended: its final answer, stop reason, usage and session file."""

    agent_id: str
    name: str
    text: str
    stop_reason: StopReason
    usage: Usage
    session: str | None = None


def depth_of(ctx: Context) -> int:
    """How deep the agent behind `ctx` is nested (0: the main agent)."""
    return ctx.agent.depth if ctx.agent is not None else 0


async def run_children(
    parent: Context,
    call_id: str,
    specs: Sequence[ChildSpec],
    withheld: frozenset[str] = frozenset(),
) -> list[ChildResult]:
    """Run every child concurrently and return their results in order. A cancel reaches the
    children first: each ends its own turn (`turn_end`, `subagent_end`) before this raises.
    The children never get the `withheld` tools (the spawner itself, at the depth limit)."""
    tasks = [asyncio.create_task(_run_child(parent, call_id, s, withheld)) for s in specs]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


def _tools(parent: AgentState, spec: ChildSpec, withheld: frozenset[str]) -> list[str]:
    """The child's tools: those the definition names, never wider than the parent's."""
    return [
        name
        for name in parent.tools
        if name not in withheld and (spec.tools is None or name in spec.tools)
    ]


async def _model(parent: AgentState, spec: ChildSpec, stream: Stream) -> tuple[Model, Provider]:
    """The child's model and provider: the parent's, or the definition's — through the
    parent's provider (its connections) when it is the same one."""
    if spec.model is None or parent.models is None:
        return parent.model, parent.provider
    wanted = spec.model if "/" in spec.model else f"{parent.model.provider}/{spec.model}"
    try:
        model, provider = parent.models.resolve(wanted, None, parent.registry)
    except ConfigError as exc:
        stream.notify(
            f"agent {spec.name}: the model {wanted} is not available ({exc}); "
            f"using {parent.model.id}",
            "warning",
        )
        return parent.model, parent.provider
    if model.provider == parent.model.provider:
        await provider.aclose()
        return model, parent.provider
    return model, provider


def _session(parent: AgentState, agent_id: str, spec: ChildSpec) -> SessionFile:
    """The child's session file, beside the parent's in a folder named for it (so it is never
    listed as a session of its own)."""
    own = parent.conversation.session
    header = SessionHeader(
        id=agent_id,
        cwd=str(parent.place.cwd),
        title=f"{spec.name}: {' '.join(spec.prompt.split())[:60]}",
        parent_session=str(own.path),
        parent_session_id=own.header.id,
    )
    path = own.path.parent / own.header.id / f"{agent_id}.jsonl"
    return SessionFile.create(path, header, persist=own.persist)


async def _run_child(
    parent: Context, call_id: str, spec: ChildSpec, withheld: frozenset[str]
) -> ChildResult:
    pstate, pstream = parent._state, parent._stream
    agent = Agent(f"{spec.name}-{os.urandom(3).hex()}", spec.name, depth_of(parent) + 1, call_id)
    stream = Stream()
    ended: list[TurnEnd] = []

    def sink(record: Record) -> None:
        if isinstance(record, TurnEnd):
            ended.append(record)
        pstream.emit(SubagentRecord(agent.id, record))

    registry = pstate.registry.copy()
    prompts: dict[str, PromptSection] = {AGENT_SECTION: spec.system}
    registry.prompts = prompts | {
        k: v for k, v in registry.prompts.items() if k in registry.context
    }
    state = AgentState(
        pstate.place,
        Conversation(_session(pstate, agent.id, spec), stream.notify),
        registry,
        pstate.limits,
        pstate.settings,
        allow=_tools(pstate, spec, withheld),
        sandbox=pstate.sandbox,
    )
    state.opening = None
    bus = Bus(registry.handlers, stream.notify)
    stream.bus = bus
    bus.ctx = Context(state, stream, bus, parent._host, parent.controls, agent=agent)
    await pstream.publish(SubagentStart(agent.id, spec.name, call_id, spec.prompt, agent.depth))
    stream.open(sink)
    state.use(*await _model(pstate, spec, stream))
    state.ledger.total = state.model.no_usage
    try:
        await run_turn(state, stream, bus, spec.prompt)
    finally:
        stream.close()
        await state.jobs.aclose()
        state.conversation.session.close()
        if state.provider is not pstate.provider:
            await state.provider.aclose()
        usage = state.ledger.turn
        pstate.ledger.add(usage)
        end = ended[-1] if ended else TurnEnd("cancelled", usage)
        path = state.conversation.path
        session = str(path) if path is not None else None
        pstate.conversation.append_entry(
            CustomEntry(
                SUBAGENT_KIND,
                {
                    "agent_id": agent.id,
                    "name": spec.name,
                    "call_id": call_id,
                    "prompt": spec.prompt,
                    "stop_reason": end.stop_reason,
                    "text": end.text,
                    "session": session,
                },
            )
        )
        await pstream.publish(SubagentEnd(agent.id, end.stop_reason, usage, usage.cost, session))
    return ChildResult(agent.id, spec.name, end.text, end.stop_reason, usage, session)
