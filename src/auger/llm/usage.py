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

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            _add_counts(self.cache_read_tokens, other.cache_read_tokens),
            _add_counts(self.cache_write_tokens, other.cache_write_tokens),
            None if self.cost is None or other.cost is None else self.cost + other.cost,
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
        )


ZERO = Usage(cost=0.0)
"""The usage of nothing at all: its cost is known to be zero."""


class Pricing(msgspec.Struct, frozen=True):
    """USD per million tokens; above `above` prompt tokens, `long` prices the whole request."""

    input: float
    output: float
    cache_read: float | None = None
    cache_write: float | None = None
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
        total += cache_write * (self.input if self.cache_write is None else self.cache_write)
        return total / 1_000_000
