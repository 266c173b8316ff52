"""Provider failures, classified, and the retry policy that decides what to try again."""

from __future__ import annotations

import random

import msgspec

RETRYABLE = frozenset({"rate_limit", "overloaded", "server", "network", "incomplete"})


class ProviderError(Exception):
    """A model call failed; `kind` says how: `auth`, `bad_request`, `context_overflow`,
    `not_found`, or one of the `RETRYABLE` kinds."""

    def __init__(
        self,
        kind: str,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.status = status
        self.retry_after = retry_after

    @property
    def retryable(self) -> bool:
        """Whether sending the same request again may succeed."""
        return self.kind in RETRYABLE


_OVERFLOW_HINTS = (
    "context length",
    "context_length",
    "context window",
    "maximum context",
    "prompt is too long",
    "too many tokens",
    "input is too long",
    "exceeds the context",
)


def classify_status(status: int, message: str) -> str:
    """The kind of an HTTP error response."""
    lowered = message.lower()
    if any(hint in lowered for hint in _OVERFLOW_HINTS):
        return "context_overflow"
    if status in (401, 403):
        return "auth"
    if status == 404:
        return "not_found"
    if status == 429:
        return "rate_limit"
    if status in (503, 529) or "overloaded" in lowered:
        return "overloaded"
    if status >= 500 or status == 408:
        return "server"
    return "bad_request"


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a `Retry-After` (or `retry-after-ms`) header value; `None` if absent."""
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        return None


class RetryPolicy(msgspec.Struct, frozen=True):
    """Exponential backoff with jitter for retryable failures; `Retry-After` wins when given."""

    attempts: int = 3
    base_delay: float = 1.0
    max_delay: float = 60.0

    def delay(self, attempt: int, error: ProviderError) -> float:
        """Seconds to wait before attempt `attempt + 1`."""
        if error.retry_after is not None:
            return min(error.retry_after, self.max_delay)
        backoff = self.base_delay * (2 ** (attempt - 1))
        return min(backoff * (0.75 + random.random() / 2), self.max_delay)
