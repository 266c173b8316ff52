"""The agent's state: where it works, the conversation, the model, the registry, one usage
ledger, and the limits of a turn."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from auger.engine.registry import Registry
from auger.llm.errors import RetryPolicy
from auger.llm.provider import Model, Provider, ToolSpec
from auger.llm.usage import Usage
from auger.session.conversation import Conversation
from auger.tools.base import Tool
from auger.tools.files import FileReads
from auger.tools.jobs import Jobs
from auger.tools.sandbox import Sandbox

if TYPE_CHECKING:
    from auger.engine.models import ModelResolver

Opening = Literal["new", "restore", "reload"]


class CompactionSettings(msgspec.Struct, frozen=True):
    """`compaction` in settings. A size left unset scales with the model's window: a quarter
    of it, at most 16,384 reserved and 20,000 kept (so an 8k window reserves and keeps 2,048)."""

    enabled: bool = True
    reserve_tokens: int | None = None
    keep_recent_tokens: int | None = None

    def reserve(self, window: int) -> int:
        """The tokens kept free below `window` for the reply (and the next tool result)."""
        if self.reserve_tokens is not None:
            return self.reserve_tokens
        return min(RESERVE_CAP, int(window * WINDOW_FRACTION))

    def keep_recent(self, window: int) -> int:
        """About how many tokens of recent messages a compaction keeps verbatim."""
        if self.keep_recent_tokens is not None:
            return self.keep_recent_tokens
        return min(KEEP_RECENT_CAP, int(window * WINDOW_FRACTION))

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> CompactionSettings:
        """Read `settings["compaction"]`, with defaults for what is missing."""
        raw = settings.get("compaction")
        if not isinstance(raw, dict):
            return cls()
        reserve, keep = raw.get("reserve_tokens"), raw.get("keep_recent_tokens")
        return cls(
            bool(raw.get("enabled", True)),
            None if reserve is None else int(reserve),
            None if keep is None else int(keep),
        )


CLOSING_TIMEOUT = 30.0
RESERVE_CAP = 16_384
KEEP_RECENT_CAP = 20_000
WINDOW_FRACTION = 0.25


class Limits(msgspec.Struct, frozen=True):
    """How far one turn may go, and how it asks the model."""

    max_steps: int = 100
    retry: RetryPolicy = msgspec.field(default_factory=RetryPolicy)
    reasoning: str | None = None
    compaction: CompactionSettings = msgspec.field(default_factory=CompactionSettings)
    idle_first: bool = False
    """The terminal's order (`idle` before `turn_end`, SPEC §2.2)."""
    closing_timeout: float = CLOSING_TIMEOUT
    """Seconds the handlers of one closing event (`agent_end`, `turn_end`, `idle`,
    `session_end`, `session_shutdown`) may take before they are cut short."""
    search: bool = False
    """Offer the provider's own web search (`--search`, `tools.web_search`)."""

    @classmethod
    def from_settings(
        cls,
        settings: Mapping[str, Any],
        *,
        max_steps: int = 100,
        retry: RetryPolicy | None = None,
        reasoning: str | None = None,
        idle_first: bool = False,
    ) -> Limits:
        """The limits given, with `retry`, `compaction` and `extensions.closing_timeout`
        read from settings where not given."""
        return cls(
            max_steps,
            retry or _retry(settings),
            reasoning,
            CompactionSettings.from_settings(settings),
            idle_first,
            _closing_timeout(settings),
            _search(settings),
        )


def _retry(settings: Mapping[str, Any]) -> RetryPolicy:
    raw = settings.get("retry") or {}
    if not isinstance(raw, dict):
        return RetryPolicy()
    return RetryPolicy(
        attempts=int(raw.get("attempts", 3)),
        base_delay=float(raw.get("base_delay", 1.0)),
        max_delay=float(raw.get("max_delay", 60.0)),
    )


def _search(settings: Mapping[str, Any]) -> bool:
    """On when asked for, unless a deny rule names the tool: the provider runs the search
    itself, so no per-call permission step can see it."""
    section = settings.get("tools")
    permissions = settings.get("permissions")
    deny = permissions.get("deny") if isinstance(permissions, dict) else None
    denied = isinstance(deny, list) and any(r in ("web_search", "WebSearch") for r in deny)
    return isinstance(section, dict) and section.get("web_search") is True and not denied


def _closing_timeout(settings: Mapping[str, Any]) -> float:
    section = settings.get("extensions")
    value = section.get("closing_timeout") if isinstance(section, dict) else None
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return float(value)
    return CLOSING_TIMEOUT


class Ledger:
    """What was used: the session's branch so far and the running turn. Every response's
    usage is added here, and only here."""

    def __init__(self, total: Usage) -> None:
        self.total = total
        self.turn = Usage()

    def begin_turn(self, zero: Usage) -> None:
        """A turn starts from `zero` (the model's priced or unpriced zero)."""
        self.turn = zero

    def add(self, usage: Usage) -> None:
        """One response's usage, for the turn and the session."""
        self.total = self.total + usage
        self.turn = self.turn + usage


class Place(msgspec.Struct, frozen=True):
    """Where the agent works: the project, auger's home, the user's home, and the environment
    tools run commands with (never holding a stored credential)."""

    cwd: Path
    home: Path
    user_home: Path
    env: Mapping[str, str]
    clock: Callable[[], float]


class Workplace(msgspec.Struct, frozen=True):
    """Where tools run and what they share: the place, background jobs, what the model last
    read of each file, and the sandbox."""

    place: Place
    jobs: Jobs
    files: FileReads
    sandbox: Sandbox


class AgentState:
    """What the engine's parts share: the place, the conversation, the model and provider,
    the registry, the ledger, background jobs and the limits."""

    def __init__(
        self,
        place: Place,
        conversation: Conversation,
        registry: Registry,
        limits: Limits,
        settings: Mapping[str, Any],
        *,
        allow: Sequence[str] | None = None,
        sandbox: Sandbox | None = None,
    ) -> None:
        self.place = place
        self.conversation = conversation
        self.registry = registry
        self.limits = limits
        self.settings = settings
        self.jobs = Jobs(place.clock)
        self.files = FileReads()
        """What the model last read or wrote of each file (to refuse writing over a change)."""
        self.sandbox = sandbox or Sandbox("off", place.cwd)
        """Where `bash`, `write` and `edit` may write (SPEC §6)."""
        self.ledger = Ledger(Usage())
        self.allow = None if allow is None else frozenset(allow)
        self.boundary: Callable[[], Awaitable[None]] | None = None
        """Run at each request boundary and before each prompt (the Engine's: it reloads
        changed extension files); a child agent's has none."""
        self.quit_requested = False
        self.models: ModelResolver | None = None
        """What turns `provider/name` into a model (the Engine's; a sub-agent's definition
        may name its own model)."""
        self.end_with: str | None = None
        """Set by a tool that ends the turn after its round (a plan presented headless): the
        turn's final text."""
        self.opening: Opening | None = "new"
        """How the next stream opens: `session_start` for a new or restored session, or
        `session_end` + `session_start` after a reload; `None` once it has."""
        self._model: Model | None = None
        self._provider: Provider | None = None

    @property
    def model(self) -> Model:
        """The current model."""
        assert self._model is not None, "no model chosen yet"
        return self._model

    @property
    def provider(self) -> Provider:
        """The current model's provider."""
        assert self._provider is not None, "no model chosen yet"
        return self._provider

    def use(self, model: Model, provider: Provider) -> None:
        """Talk to `model` through `provider` from the next model call on."""
        self._model, self._provider = model, provider

    def prompt(self) -> tuple[str, tuple[ToolSpec, ...]]:
        """The system prompt and the tools a request made now would carry (between turns)."""
        return self.registry.system_prompt(), self.tool_specs()

    def tool_specs(self) -> tuple[ToolSpec, ...]:
        """What the model is told of the tools it may call now."""
        return tuple(t.spec for t in self.tools.values())

    def workplace(self) -> Workplace:
        """Where tools run (the dispatch's and `!command`'s)."""
        return Workplace(self.place, self.jobs, self.files, self.sandbox)

    @property
    def tools(self) -> dict[str, Tool]:
        """The tools the model may call now (an extension may add some while running)."""
        tools = self.registry.tools
        if self.allow is None:
            return tools
        return {k: v for k, v in tools.items() if k in self.allow}
