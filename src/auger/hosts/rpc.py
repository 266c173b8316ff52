"""`auger rpc`: JSONL commands on stdin; every record on stdout exactly as `--json` prints it.

A command is one JSON object a line, `{"id": 1, "type": "prompt", "text": "…"}`; its `id` (any
JSON value, optional) comes back in its response. Types and their fields:

- `prompt` (`text`), `command` (`name`, `args`): stream records, then answer; one at a time;
- `cancel`: stops the running one (commands are read while one runs);
- `get_state`, `get_history` (the session's branch as the records its stream yielded, for a
  client that opens a saved session), `set_model` (`model`), `list_sessions`;
- `compact` (`instruction`), `fork` (`entry_id`), `switch` (`path`): only while nothing runs;
  what they stream (a `compact` record, notices) opens the next prompt's stream.

Every command gets exactly one response line, `{"id": …, "type": "response", "command": …,
"ok": true, …}`, or `"ok": false` with `"error": {"message": …}`. Reaching end of input waits
for the running command, then closes the session.

While a command runs, auger may ask the client: a line `{"type": "request", "id": "q1",
"kind": "permission" | "ask" | "confirm", …}` (a permission request carries `request`, the
`permission_request` record; `ask` carries `question`, `options`, `secret`; `confirm` carries
`question`). The client answers with the command `{"type": "answer", "question": "q1",
"value": …}`: a decision (`allow_once`, `allow_always`, `deny`), the answer text (or `null`),
or a boolean. Questions still open at end of input are declined.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any, BinaryIO

import msgspec

from auger.config import ConfigError
from auger.host import Capability, NullHost
from auger.hosts.headless import json_line
from auger.records import PermissionAnswer, PermissionRequest, TurnEnd
from auger.runtime import Runtime

STREAMING = frozenset({"prompt", "command"})
_encode = msgspec.json.Encoder().encode


class CommandError(Exception):
    """A command that cannot run: its response says why."""


class RpcHost(NullHost):
    """Asks the client: each question is a `request` line, answered by an `answer` command."""

    capabilities: frozenset[Capability] = frozenset({"ask", "confirm", "permission"})

    def __init__(self) -> None:
        self._write: Callable[[bytes], None] | None = None
        self._waiting: dict[str, asyncio.Future[Any]] = {}
        self._asked = 0

    def attach(self, write: Callable[[bytes], None]) -> None:
        """Write questions with `write` from now on."""
        self._write = write

    async def _request(self, kind: str, **fields: Any) -> Any:
        if self._write is None:
            return None
        self._asked += 1
        id_ = f"q{self._asked}"
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting[id_] = future
        self._write(_encode({"type": "request", "id": id_, "kind": kind, **fields}) + b"\n")
        try:
            return await future
        finally:
            self._waiting.pop(id_, None)

    def answer(self, id_: Any, value: Any) -> bool:
        """Resolve question `id_`; whether it was open."""
        future = self._waiting.get(id_) if isinstance(id_, str) else None
        if future is None or future.done():
            return False
        future.set_result(value)
        return True

    def decline_all(self) -> None:
        """Every open question is declined (the client has gone)."""
        for future in list(self._waiting.values()):
            if not future.done():
                future.set_result(None)

    async def ask(
        self, question: str, options: list[str] | None = None, secret: bool = False
    ) -> str | None:
        """The client's answer text, or `None`."""
        value = await self._request("ask", question=question, options=options, secret=secret)
        return value if isinstance(value, str) else None

    async def confirm(self, question: str) -> bool:
        """Whether the client answered `true`."""
        return await self._request("confirm", question=question) is True

    async def request_permission(self, request: PermissionRequest) -> PermissionAnswer:
        """The client's decision (one of the request's options), or an object `{"decision",
        "feedback", "stop"}` that also says what the model is told instead or to stop the turn;
        anything else denies."""
        value = await self._request("permission", request=request.to_dict())
        if isinstance(value, dict):
            feedback, stop = value.get("feedback"), value.get("stop") is True
            value = value.get("decision")
            if value == "deny":
                return PermissionAnswer(
                    "deny", feedback if isinstance(feedback, str) else None, stop
                )
        return PermissionAnswer(value if value in request.options else "deny")


class RpcServer:
    """Answers the commands of one client, one Runtime, writing to `out` (bytes)."""

    def __init__(self, runtime: Runtime, out: BinaryIO, host: RpcHost | None = None) -> None:
        self.runtime = runtime
        self._out = out
        self._running: asyncio.Task[None] | None = None
        self._host = host
        if host is not None:
            host.attach(self._write)

    def _write(self, data: bytes) -> None:
        self._out.write(data)
        self._out.flush()

    def _respond(self, id_: Any, command: str, ok: bool, **fields: Any) -> None:
        self._write(
            _encode({"id": id_, "type": "response", "command": command, "ok": ok, **fields}) + b"\n"
        )

    async def serve(self, lines: AsyncIterator[bytes]) -> None:
        """Answer every command of `lines`; at its end, finish the running one and close."""
        async for line in lines:
            if line.strip():
                await self.handle(line)
        if self._host is not None:
            self._host.decline_all()
        if self._running is not None:
            await asyncio.gather(self._running, return_exceptions=True)
        await self.runtime.close()

    async def handle(self, line: bytes) -> None:
        """Answer one command line (a streaming one answers when its task ends)."""
        try:
            command = msgspec.json.decode(line)
        except msgspec.DecodeError as exc:
            self._respond(None, "", False, error={"message": f"not JSON: {exc}"})
            return
        except RecursionError:
            self._respond(None, "", False, error={"message": "a command nested too deep"})
            return
        if not isinstance(command, dict):
            self._respond(None, "", False, error={"message": "a command must be a JSON object"})
            return
        id_, kind = command.get("id"), command.get("type")
        if not isinstance(kind, str):
            self._respond(id_, "", False, error={"message": 'a command needs a "type"'})
            return
        if kind in STREAMING:
            if self._running is not None:
                self._respond(id_, kind, False, error={"message": "a command is already running"})
                return
            self._running = asyncio.create_task(self._stream(id_, kind, command))
            return
        handler = self._handlers().get(kind)
        if handler is None:
            self._respond(id_, kind, False, error={"message": f"unknown command type {kind!r}"})
            return
        try:
            fields = await handler(command)
        except Exception as exc:  # a failing command is its response; the server goes on
            self._respond(id_, kind, False, error={"message": str(exc)})
            return
        self._respond(id_, kind, True, **fields)

    def _handlers(self) -> dict[str, Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]]:
        return {
            "cancel": self._cancel,
            "get_state": self._state,
            "get_history": self._history,
            "set_model": self._set_model,
            "compact": self._compact,
            "fork": self._fork,
            "switch": self._switch,
            "list_sessions": self._list_sessions,
            "answer": self._answer,
        }

    async def _stream(self, id_: Any, kind: str, command: dict[str, Any]) -> None:
        rt = self.runtime
        end: TurnEnd | None = None
        try:
            if kind == "prompt":
                stream = rt.prompt(_text(command, "text"))
            else:
                stream = rt.run_command(_text(command, "name"), str(command.get("args") or ""))
            async for record in stream:
                self._write(json_line(record))
                if isinstance(record, TurnEnd):
                    end = record
        except Exception as exc:  # a failing command is its response; the server goes on
            self._respond(id_, kind, False, error={"message": str(exc)})
            return
        finally:
            self._running = None
        if end is None:
            self._respond(id_, kind, True)
        else:
            self._respond(id_, kind, True, stop_reason=end.stop_reason)

    async def _answer(self, command: dict[str, Any]) -> dict[str, Any]:
        if self._host is None or not self._host.answer(
            command.get("question"), command.get("value")
        ):
            raise CommandError(f"no open question {command.get('question')!r}")
        return {}

    async def _cancel(self, command: dict[str, Any]) -> dict[str, Any]:
        running = self._running is not None
        self.runtime.cancel()
        return {"cancelled": running}

    async def _state(self, command: dict[str, Any]) -> dict[str, Any]:
        rt = self.runtime
        return {
            "session_id": rt.session_id,
            "model": rt.model.id,
            "cwd": str(rt.cwd),
            "running": self._running is not None,
            "messages": len(rt.messages),
            "usage": rt.usage_total.to_dict(),
            "tools": list(rt.tools),
            "commands": {c.name: c.description for c in rt.commands.values()},
        }

    async def _history(self, command: dict[str, Any]) -> dict[str, Any]:
        return {"records": [record.to_dict() for record in self.runtime.history()]}

    async def _set_model(self, command: dict[str, Any]) -> dict[str, Any]:
        await self.runtime.set_model(_text(command, "model"))
        return {"model": self.runtime.model.id}

    def _idle(self) -> None:
        if self._running is not None:
            raise CommandError("a command is already running")

    async def _compact(self, command: dict[str, Any]) -> dict[str, Any]:
        self._idle()
        instruction = command.get("instruction")
        if instruction is not None and not isinstance(instruction, str):
            raise CommandError('"instruction" must be a string')
        return {"compacted": await self.runtime.compact(instruction)}

    async def _fork(self, command: dict[str, Any]) -> dict[str, Any]:
        self._idle()
        entry_id = command.get("entry_id")
        if entry_id is not None and not isinstance(entry_id, str):
            raise CommandError('"entry_id" must be a string')
        path = await self.runtime.fork(entry_id)
        return {
            "forked": path is not None,
            "session_id": self.runtime.session_id,
            "path": None if path is None else str(path),
        }

    async def _switch(self, command: dict[str, Any]) -> dict[str, Any]:
        self._idle()
        switched = await self.runtime.switch(_text(command, "path"))
        return {"switched": switched, "session_id": self.runtime.session_id}

    async def _list_sessions(self, command: dict[str, Any]) -> dict[str, Any]:
        from auger import sessions

        rt = self.runtime
        return {"sessions": [s.to_dict() for s in sessions.list(rt.home, rt.cwd)]}


def _text(command: dict[str, Any], key: str) -> str:
    value = command.get(key)
    if not isinstance(value, str):
        raise CommandError(f'"{key}" must be a string')
    return value


async def stdin_lines() -> AsyncIterator[bytes]:
    """The lines of standard input, read by a thread so any kind of stdin works."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[bytes | None] = asyncio.Queue()

    def read() -> None:
        for line in sys.stdin.buffer:
            loop.call_soon_threadsafe(queue.put_nowait, line)
        loop.call_soon_threadsafe(queue.put_nowait, None)

    threading.Thread(target=read, daemon=True).start()
    while (line := await queue.get()) is not None:
        yield line


def main(args: list[str]) -> int:
    """`auger rpc [options]`."""
    from auger.hosts.launch import options, parse
    from auger.loader import build

    opts = parse("rpc", args, "JSONL commands on stdin, records on stdout.", sessions=True)

    async def run() -> int:
        cwd = Path(os.getcwd())
        try:
            host = RpcHost()
            runtime = await build(options(opts, cwd), host)
        except ConfigError as exc:
            sys.stderr.write(f"auger: {exc}\n")
            return 2
        await RpcServer(runtime, sys.stdout.buffer, host).serve(stdin_lines())
        return 0

    return asyncio.run(run())
