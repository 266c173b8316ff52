"""The status line: model, context used, and the session's tokens and cost."""

from __future__ import annotations

from typing import Any


def tokens(n: int) -> str:
    """A token count the way people read it: `950`, `12.3k`, `1.2M`."""
    if n < 1000:
        return str(n)
    if n < 1_000_000:
        return f"{n / 1000:.1f}k".replace(".0k", "k")
    return f"{n / 1_000_000:.1f}M".replace(".0M", "M")


class Status:
    """What the status line shows; `feed` keeps the context size from the stream's usage."""

    def __init__(self) -> None:
        self.model = ""
        self.window = 0
        self.context = 0
        self.usage: Any = None
        self.mode = ""  # the permission mode

    def feed(self, record: Any) -> None:
        """Note the latest response's size: what the next request will carry, about."""
        if record.type == "token_usage_done":
            self.context = record.usage.input_tokens + record.usage.output_tokens

    def line(self) -> str:
        """`model · ctx 12% of 200k · ↑12.3k ↓1.2k · $0.0123 · ▸ ask`."""
        if not self.model:
            return "starting…"
        parts = [self.model]
        if self.window:
            share = 100 * self.context / self.window
            parts.append(f"ctx {share:.0f}% of {tokens(self.window)}")
        usage = self.usage
        if usage is not None:
            parts.append(f"↑{tokens(usage.input_tokens)} ↓{tokens(usage.output_tokens)}")
            parts.append("$—" if usage.cost is None else f"${usage.cost:.4f}")
        if self.mode:
            parts.append(f"▸ {self.mode}")
        return " · ".join(parts)
