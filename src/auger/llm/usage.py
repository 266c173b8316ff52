"""Token usage and its price (SPEC §1.3)."""

from __future__ import annotations

from typing import Any

import msgspec


def _add_counts(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    if b is None:
        return a
    return a + b


class Usage(msgspec.Struct, frozen=True):
    """Tokens of one response or a sum of responses; `None` means unknown.

    `input_tokens` counts every token entering the context, cache reads and writes included;
    `output_tokens` includes reasoning. The cost of a sum is `None` if either side's is.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
    cost: float | None = None
    cache_write_1h_tokens: int | None = None  # of the writes, those kept an hour (Anthropic)

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            _add_counts(self.cache_read_tokens, other.cache_read_tokens),
            _add_counts(self.cache_write_tokens, other.cache_write_tokens),
            None if self.cost is None or other.cost is None else self.cost + other.cost,
            _add_counts(self.cache_write_1h_tokens, other.cache_write_1h_tokens),
        )

    def to_dict(self) -> dict[str, Any]:
        """The counts, leaving out the unknown ones."""
        out: dict[str, Any] = {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
        }
        if self.cache_read_tokens is not None:
            out["cache_read_tokens"] = self.cache_read_tokens
        if self.cache_write_tokens is not None:
            out["cache_write_tokens"] = self.cache_write_tokens
        if self.cost is not None:
            out["cost"] = self.cost
        if self.cache_write_1h_tokens is not None:
            out["cache_write_1h_tokens"] = self.cache_write_1h_tokens
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Usage:
        """The inverse of `to_dict()`."""
        return cls(
            data.get("input_tokens", 0),
            data.get("output_tokens", 0),
            data.get("cache_read_tokens"),
            data.get("cache_write_tokens"),
            data.get("cost"),
            data.get("cache_write_1h_tokens"),
        )


def tokens(value: object) -> int | None:
    """A token count from a server: `None` when absent; anything but a non-negative integer
    is a malformed response (a `TypeError` or `ValueError`, which the formats report as a
    `bad_response`)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"a token count is {type(value).__name__} {str(value)[:40]!r}")
    if value < 0:
        raise ValueError(f"a negative token count ({value})")
    return value


ZERO = Usage(cost=0.0)
"""The usage of nothing at all: its cost is known to be zero."""


class Pricing(msgspec.Struct, frozen=True):
    """USD per million tokens; above `above` prompt tokens, `long` prices the whole request.

    `cache_write` is the price of a 5-minute cache write, `cache_write_1h` of a 1-hour one."""

    input: float
    output: float
    cache_read: float | None = None
    cache_write: float | None = None
    cache_write_1h: float | None = None
    above: int | None = None
    long: Pricing | None = None

    def price(self, usage: Usage) -> float:
        """The USD cost of `usage` (one request's); cache reads and writes are priced
        separately when known, and a long prompt at the long-context rates."""
        if self.long is not None and self.above is not None and usage.input_tokens > self.above:
            return self.long.price(usage)
        cache_read = usage.cache_read_tokens or 0
        cache_write = usage.cache_write_tokens or 0
        fresh = max(usage.input_tokens - cache_read - cache_write, 0)
        total = fresh * self.input + usage.output_tokens * self.output
        total += cache_read * (self.input if self.cache_read is None else self.cache_read)
        hour = min(usage.cache_write_1h_tokens or 0, cache_write)
        total += (cache_write - hour) * (
            self.input if self.cache_write is None else self.cache_write
        )
        total += hour * (self.input if self.cache_write_1h is None else self.cache_write_1h)
        return total / 1_000_000
