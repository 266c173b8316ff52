"""A prompt-cache simulator: each provider's documented caching rules applied to request bodies.

`AnthropicCache` follows https://platform.claude.com/docs/en/build-with-claude/prompt-caching:
the prefix is tools, then system, then messages, block by block; a `cache_control` block is a
breakpoint (at most four); a read is the longest prefix cached at a breakpoint or at one of the
20 blocks before it; a breakpoint writes its prefix when that is at least the model's minimum
cacheable length; an entry lives its TTL ("5m" or "1h") from its last write or read. A request's
usage is split as the API reports it: cache reads, cache writes (by TTL), and the rest.

`OpenAICache` follows https://platform.openai.com/docs/guides/prompt-caching (models before
GPT-5.6): prompts of 1,024 tokens or more are cached automatically; a hit is the longest prefix
shared with an earlier request, counted from 1,024 tokens in steps of 128; in-memory entries are
cleared after 5 to 10 minutes of inactivity (5 here), `prompt_cache_retention: "24h"` ones keep.

Tokens are estimated from the JSON of each block (four characters a token), the same way for
every rule set, so the rule sets compare like with like.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

LOOKBACK = 20  # blocks before a breakpoint where a hit is looked for
MAX_BREAKPOINTS = 4
_TTL = {"5m": 300.0, "1h": 3600.0}


def estimate(value: Any) -> int:
    """The tokens of a JSON value: four characters a token, at least one."""
    return max(1, len(json.dumps(_plain(value), sort_keys=True)) // 4)


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


@dataclass(frozen=True)
class Block:
    """One block of a prompt: its tokens and, when it is a breakpoint, its TTL."""

    value: Any
    ttl: str | None = None


@dataclass
class Billed:
    """One request's input tokens as the provider bills them."""

    total: int = 0
    read: int = 0
    write_5m: int = 0
    write_1h: int = 0

    @property
    def write(self) -> int:
        """Tokens written, at either TTL."""
        return self.write_5m + self.write_1h

    @property
    def fresh(self) -> int:
        """Tokens neither read nor written: billed as plain input."""
        return self.total - self.read - self.write


def _mark(block: dict[str, Any]) -> str | None:
    control = block.get("cache_control")
    return str(control.get("ttl", "5m")) if isinstance(control, dict) else None


def _content(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return list(content or [])


def messages_blocks(body: dict[str, Any]) -> list[Block]:
    """A Messages API body as the cache sees it: tools, system, then every content block."""
    out = [Block(tool, _mark(tool)) for tool in body.get("tools") or []]
    system = body.get("system") or []
    for part in [{"type": "text", "text": system}] if isinstance(system, str) else system:
        out.append(Block(part, _mark(part)))
    for message in body.get("messages") or []:
        out += [Block([message["role"], block], _mark(block)) for block in _content(message)]
    return out


def chat_blocks(body: dict[str, Any]) -> list[Block]:
    """A Chat Completions body sent through OpenRouter to Claude, as Anthropic's cache sees it:
    tools, the system message, then the content parts, tool calls and tool results."""
    out = [Block(tool, _mark(tool)) for tool in body.get("tools") or []]
    for message in body.get("messages") or []:
        parts = _content(message)
        for part in parts:
            out.append(Block([message["role"], part], _mark(part)))
        for call in message.get("tool_calls") or []:
            out.append(Block(["tool_use", call]))
    return out


def responses_items(body: dict[str, Any]) -> list[Block]:
    """A Responses body in prompt order: instructions, tools, input items."""
    out = [Block(body.get("instructions") or "")]
    out += [Block(tool) for tool in body.get("tools") or []]
    return out + [Block(item) for item in body.get("input") or []]


def _prefixes(blocks: list[Block]) -> tuple[list[str], list[int]]:
    """Per block: the digest of the prefix ending with it, and the tokens up to it."""
    digest = hashlib.sha256()
    keys, totals, running = [], [], 0
    for block in blocks:
        digest.update(json.dumps(_plain(block.value), sort_keys=True).encode())
        keys.append(digest.hexdigest())
        running += estimate(block.value)
        totals.append(running)
    return keys, totals


@dataclass
class AnthropicCache:
    """Anthropic's prompt cache for one model (`minimum`: its minimum cacheable length)."""

    minimum: int = 1024
    entries: dict[str, float] = field(default_factory=dict)  # prefix digest -> expiry
    ttls: dict[str, str] = field(default_factory=dict)

    def send(self, blocks: list[Block], now: float) -> Billed:
        """Bill one request sent at `now` (seconds) and update the cache."""
        keys, totals = _prefixes(blocks)
        marks = [i for i, b in enumerate(blocks) if b.ttl is not None]
        if len(marks) > MAX_BREAKPOINTS:
            raise ValueError(f"{len(marks)} cache breakpoints: at most {MAX_BREAKPOINTS}")
        billed = Billed(total=totals[-1] if totals else 0)
        live = {k for k, expiry in self.entries.items() if expiry > now}
        hit = -1
        for mark in marks:
            for i in range(mark, max(mark - LOOKBACK, 0) - 1, -1):
                if keys[i] in live:
                    hit = max(hit, i)
                    break
        if hit >= 0:
            billed.read = totals[hit]
            self.entries[keys[hit]] = now + _TTL[self.ttls[keys[hit]]]
        start = billed.read
        for mark in marks:
            if mark <= hit or totals[mark] < self.minimum:
                continue
            tokens = totals[mark] - start
            ttl = blocks[mark].ttl or "5m"
            if ttl == "1h":
                billed.write_1h += tokens
            else:
                billed.write_5m += tokens
            start = totals[mark]
            self.entries[keys[mark]] = now + _TTL[ttl]
            self.ttls[keys[mark]] = ttl
        return billed


@dataclass
class OpenAICache:
    """OpenAI's automatic prompt cache; `retention` is `prompt_cache_retention`."""

    retention: str | None = None
    seen: dict[str, float] = field(default_factory=dict)  # prefix digest -> expiry
    totals: dict[str, int] = field(default_factory=dict)

    def send(self, blocks: list[Block], now: float) -> Billed:
        """Bill one request sent at `now` (seconds) and update the cache."""
        keys, totals = _prefixes(blocks)
        billed = Billed(total=totals[-1] if totals else 0)
        shared = 0
        for key, total in zip(keys, totals, strict=True):
            if self.seen.get(key, -1.0) > now:
                shared = total
        if shared >= 1024:
            billed.read = 1024 + (shared - 1024) // 128 * 128
        keep = 86_400.0 if self.retention == "24h" else 300.0
        for key, total in zip(keys, totals, strict=True):
            self.seen[key] = now + keep
            self.totals[key] = total
        return billed
