"""What a command handler receives as `ctx`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from auger.llm.records import Record
from auger.records import CommandOutput

if TYPE_CHECKING:
    from auger.runtime import Runtime


class CommandContext:
    """A running command: its arguments, and what it may do while it runs."""

    def __init__(self, runtime: Runtime, command: str, args: str) -> None:
        self.runtime = runtime
        self.command = command
        self.args = args
        self.turns = 0

    @property
    def settings(self) -> Any:
        """The merged settings."""
        return self.runtime.settings

    async def say(self, text: str) -> None:
        """Show `text` to whoever ran the command (a `command_output` record)."""
        await self.runtime.publish(CommandOutput(self.command, text))

    def emit(self, record: Record) -> None:
        """Send a record of your own to the stream."""
        self.runtime.emit(record)

    async def prompt(self, text: str) -> None:
        """Run a turn with `text` as the prompt; its records stream as part of this command."""
        from auger.loop import run_turn

        self.turns += 1
        await run_turn(self.runtime, text)

    def ask(self, question: str, options: list[str] | None = None, secret: bool = False) -> Any:
        """The user's answer, or `None` when the host cannot ask (or they declined)."""
        host = self.runtime.host
        return host.ask(question, options, secret) if "ask" in host.capabilities else None

    def confirm(self, question: str) -> bool:
        """Whether the user agreed; `False` when the host cannot ask."""
        host = self.runtime.host
        return host.confirm(question) if "confirm" in host.capabilities else False

    def notify(self, message: str, level: str = "info") -> None:
        """Tell the user something."""
        self.runtime.notify(message, level)
