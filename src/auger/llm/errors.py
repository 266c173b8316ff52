"""Provider failures, classified, and the retry policy that decides what to try again."""

from __future__ import annotations

import math
import random
from typing import Literal, get_args

import msgspec

ErrorKind = Literal[
    "auth",
    "bad_request",
    "bad_response",
    "context_overflow",
    "not_found",
    "quota",
    "rate_limit",
    "overloaded",
    "server",
    "network",
    "incomplete",
]
"""How a model call failed: the closed set every provider classifies its failures into."""
RETRYABLE: frozenset[ErrorKind] = frozenset(
    {"rate_limit", "overloaded", "server", "network", "incomplete"}
)
_KINDS: dict[str, ErrorKind] = {kind: kind for kind in get_args(ErrorKind)}


def error_kind(value: object) -> ErrorKind:
    """`value` as an error kind, from data read from outside (a script's `kind`); a value that
    names none raises `ValueError` saying which there are."""
    kind = _KINDS.get(value) if isinstance(value, str) else None
    if kind is None:
        raise ValueError(f"unknown error kind {value!r}; kinds: {', '.join(sorted(_KINDS))}")
    return kind


class ProviderError(Exception):
    """A model call failed; `kind` says how: `auth`, `bad_request`, `bad_response`,
    `context_overflow`, `not_found`, `quota` (out of credit), or one of the `RETRYABLE` kinds."""

    def __init__(
        self,
        kind: ErrorKind,
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
        self.repeated = False  # the same request failed the same way before: deterministic

    @property
    def retryable(self) -> bool:
        """Whether sending the same request again may succeed."""
        return self.kind in RETRYABLE and not self.repeated


# Context-overflow messages: OpenAI, vLLM, DeepSeek, Mistral and OpenRouter ("maximum context
# length"), Anthropic ("prompt is too long", "exceed context limit"), Gemini ("exceeds the maximum
# number of tokens"), llama.cpp ("exceeds the available context size"), xAI ("maximum prompt
# length"), Groq ("reduce the length of the messages"), Ollama ("prompt too long; exceeded max
# context length"), LM Studio ("context length of only").
_OVERFLOW_HINTS = (
    "context length",
    "context_length",
    "context window",
    "maximum context",
    "prompt is too long",
    "prompt too long",
    "too many tokens",
    "input is too long",
    "exceeds the context",
    "exceed context limit",
    "exceeds the maximum number of tokens",
    "exceeds the available context size",
    "exceed_context_size",
    "maximum prompt length",
    "reduce the length of the messages",
)
_QUOTA_HINTS = ("insufficient_quota", "exceeded your current quota")


def classify_status(status: int, message: str) -> ErrorKind:
    """The kind of an HTTP error response."""
    lowered = message.lower()
    if any(hint in lowered for hint in _OVERFLOW_HINTS):
        return "context_overflow"
    if any(hint in lowered for hint in _QUOTA_HINTS):
        return "quota"  # a 429 that waiting does not cure
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
        seconds = float(value)
    except ValueError:
        return None
    return max(seconds, 0.0) if math.isfinite(seconds) else None  # `nan` is no delay


class RetryPolicy(msgspec.Struct, frozen=True):
    """Exponential backoff with jitter for retryable failures; `Retry-After` wins when given."""

    attempts: int = 3
    base_delay: float = 1.0
    max_delay: float = 60.0

    def delay(self, attempt: int, error: ProviderError) -> float:
        """Seconds to wait before attempt `attempt + 1`."""
        if error.retry_after is not None:
            return min(error.retry_after, self.max_delay)
        backoff = self.base_delay * 2.0 ** (attempt - 1)
        return min(backoff * (0.75 + random.random() / 2), self.max_delay)
