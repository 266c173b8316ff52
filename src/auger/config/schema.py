"""The one table of settings keys: each key's type, whether it needs trust, how it merges.

Validation (a wrong type is a `ConfigError` naming the file, the key and the expected type;
an unknown key is a warning naming the closest known one), the trust filter (SPEC §7: of an
untrusted project's settings only the inert keys apply) and the merge (hook lists concatenate,
rule lists union) all read this table, so a key is classified exactly once.

A path segment `*` stands for any name (a provider, a hook event). An `open` key's value is
checked only for its own type: what is inside belongs to its consumer (an MCP server's spec).
A number's `minimum` is checked too, so no consumer ever sees a count it cannot use. Unknown
top-level objects are extensions' own namespaces (`g.settings`), so they are not warned about
unless their name is close to a known key.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping
from typing import Any, Literal, get_args

import msgspec

from auger.config.errors import ConfigError
from auger.llm.provider import ThinkingStyle

Trust = Literal["inert", "trust"]
Merge = Literal["replace", "concat"]
JsonType = Literal["string", "integer", "number", "boolean", "object", "array", "strings"]

PERMISSION_MODES = ("ask", "accept-edits", "read-only", "auto")
MODE_ALIASES = {"plan": "read-only"}
"""Other names of a mode the flags and `/permissions` take: read-only is the planning mode."""
SANDBOX_MODES = ("read-only", "workspace-write", "off")
THINKING_STYLES: tuple[str, ...] = get_args(ThinkingStyle)


class Key(msgspec.Struct, frozen=True):
    """One settings key."""

    path: str
    type: JsonType
    trust: Trust = "trust"
    merge: Merge = "replace"
    choices: tuple[str, ...] = ()
    open: bool = False
    minimum: float | None = None


def _model_keys(prefix: str) -> tuple[Key, ...]:
    """The keys of a model's catalog-shaped entry under `prefix` (SPEC §8: limits and prices)."""
    prices = tuple(
        Key(f"{where}.{name}", "number", minimum=0)
        for where in (prefix, f"{prefix}.long_context")
        for name in ("input", "output", "cache_read", "cache_write")
    )
    return (
        Key(prefix, "object"),
        Key(f"{prefix}.context_window", "integer", minimum=1),
        Key(f"{prefix}.max_output", "integer", minimum=1),
        Key(f"{prefix}.reasoning", "boolean"),
        Key(f"{prefix}.thinking", "string", choices=THINKING_STYLES),
        Key(f"{prefix}.long_context", "object"),
        Key(f"{prefix}.long_context.above", "integer", minimum=0),
        *prices,
    )


_INERT: Trust = "inert"

KEYS: tuple[Key, ...] = (
    Key("model", "string", _INERT),
    Key("retry", "object", _INERT),
    Key("retry.attempts", "integer", _INERT),
    Key("retry.base_delay", "number", _INERT),
    Key("retry.max_delay", "number", _INERT),
    Key("compaction", "object", _INERT),
    Key("compaction.enabled", "boolean", _INERT),
    Key("compaction.reserve_tokens", "integer", _INERT),
    Key("compaction.keep_recent_tokens", "integer", _INERT),
    Key("cache", "object"),
    Key("cache.ttl", "string", choices=("5m", "1h")),
    Key("cache.retention", "string", choices=("in_memory", "24h")),
    Key("http", "object", _INERT),
    Key("http.connect_timeout", "number", _INERT),
    Key("http.idle_timeout", "number", _INERT),
    Key("http.first_event_timeout", "number", _INERT),
    Key("http.attempt_timeout", "number", _INERT),
    Key("providers", "object"),
    Key("providers.*", "object"),
    Key("providers.*.api", "string"),
    Key("providers.*.base_url", "string"),
    Key("providers.*.base_url_env", "string"),
    Key("providers.*.api_key", "string"),
    Key("providers.*.api_key_env", "string"),
    Key("providers.*.headers", "object", open=True),
    Key("providers.*.models", "object"),
    *_model_keys("providers.*.models.*"),
    Key("providers.*.script", "string"),
    Key("providers.*.compat", "object", open=True),
    Key("providers.*.base_url_hint", "string"),
    Key("providers.*.base_url_from", "object", open=True),
    Key("providers.*.compat_for", "object", open=True),
    Key("hooks", "object", merge="concat"),
    Key("hooks.*", "array", merge="concat", open=True),
    Key("mcp", "object"),
    Key("mcp.servers", "object", open=True),
    Key("mcp.slow_start", "number"),
    Key("mcp.startup_timeout", "number"),
    Key("env", "object", open=True),
    Key("extensions", "object"),
    Key("extensions.disabled", "strings", merge="concat"),
    Key("extensions.closing_timeout", "number"),
    Key("permissions", "object"),
    Key("permissions.mode", "string", choices=PERMISSION_MODES),
    Key("permissions.allow", "strings", merge="concat"),
    Key("permissions.ask", "strings", merge="concat"),
    Key("permissions.deny", "strings", merge="concat"),
    Key("tools", "object"),
    Key("tools.web_search", "boolean"),
    Key("sandbox", "object"),
    Key("sandbox.mode", "string", choices=SANDBOX_MODES),
    Key("sandbox.network", "boolean"),
    Key("shell", "object"),
    Key("shell.env", "object"),
    Key("shell.env.include", "strings"),  # key-like variables model-run commands may get
    Key("shell.env.exclude", "strings", merge="concat"),
)
_BY_PATH = {k.path: k for k in KEYS}
_DEPTH = max(k.path.count(".") + 1 for k in KEYS)

_EXPECTED: dict[JsonType, str] = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "object": "an object",
    "array": "a list",
    "strings": "a list of strings",
}


def key_for(path: tuple[str, ...]) -> Key | None:
    """The table's entry for a concrete key path (`("providers", "x", "base_url")`)."""
    if len(path) > _DEPTH:
        return None
    for i in range(2 ** len(path)):  # each segment either itself or `*`; paths are short
        parts = [("*" if i >> n & 1 else seg) for n, seg in enumerate(path)]
        found = _BY_PATH.get(".".join(parts))
        if found is not None:
            return found
    return None


def _children(prefix: tuple[str, ...]) -> list[str]:
    """The known names one level below `prefix` (not counting `*`)."""
    depth = len(prefix)
    names = []
    for key in KEYS:
        parts = key.path.split(".")
        if len(parts) == depth + 1 and all(
            a in ("*", b) for a, b in zip(parts, prefix, strict=False)
        ):
            names.append(parts[-1])
    return [n for n in names if n != "*"]


def _type_ok(kind: JsonType, value: Any) -> bool:
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":  # JSON's NaN and Infinity are no count and no price
        return (
            isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        )
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "object":
        return isinstance(value, dict)
    if kind == "array":
        return isinstance(value, list)
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


_NAMES = {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}
_NAMES |= {int: "an integer", float: "a number", type(None): "null"}


def _shown(value: Any) -> str:
    name = _NAMES.get(type(value), type(value).__name__)
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        return f"{name} ({json.dumps(value)[:40]})"
    return name


def validate(data: Mapping[str, Any], where: str) -> list[str]:
    """Check `data` against the table: a wrong type raises `ConfigError`; returns a warning
    for each unknown key (with the closest known key)."""
    warnings: list[str] = []
    _walk(data, (), where, warnings)
    return warnings


def _walk(data: Mapping[str, Any], prefix: tuple[str, ...], where: str, out: list[str]) -> None:
    for name, value in data.items():
        path = (*prefix, name)
        dotted = json.dumps(".".join(path), ensure_ascii=False)  # quoted, newlines escaped
        key = key_for(path)
        if key is None:
            namespace = not prefix and isinstance(value, dict)  # maybe an extension's own
            cutoff = 0.9 if namespace else 0.75
            import difflib  # a near miss only: not at start-up

            close = difflib.get_close_matches(name, _children(prefix), n=1, cutoff=cutoff)
            if close:
                hint = json.dumps(".".join((*prefix, close[0])))
                out.append(f"{where}: unknown setting {dotted} — did you mean {hint}?")
            elif not namespace:
                out.append(f"{where}: unknown setting {dotted}")
            continue
        if not _type_ok(key.type, value):
            raise ConfigError(
                f"{where}: {dotted} must be {_EXPECTED[key.type]}, not {_shown(value)}"
            )
        if key.choices and value not in key.choices:
            raise ConfigError(f"{where}: {dotted} must be one of {', '.join(key.choices)}")
        if key.minimum is not None and value < key.minimum:
            raise ConfigError(
                f"{where}: {dotted} must be at least {key.minimum:g}, not {_shown(value)}"
            )
        if key.type == "object" and not key.open:
            _walk(value, path, where, out)


def untrusted_keys(data: Mapping[str, Any]) -> Iterator[tuple[str, ...]]:
    """The key paths of `data` that need trust: the deepest paths whose key is not inert,
    and every unknown top-level key (an extension's settings may name anything)."""
    for name, value in data.items():
        key = key_for((name,))
        if key is None or key.trust == "trust":
            yield (name,)
        elif key.type == "object" and isinstance(value, dict):
            for child in value:
                sub = key_for((name, child))
                if sub is None or sub.trust == "trust":
                    yield (name, child)


def merge(
    base: Mapping[str, Any], over: Mapping[str, Any], prefix: tuple[str, ...] = ()
) -> dict[str, Any]:
    """`over` merged into `base`: objects key by key, `concat` lists joined (the user's first,
    duplicates dropped), anything else replaced."""
    out = dict(base)
    for name, value in over.items():
        path = (*prefix, name)
        old = out.get(name)
        key = key_for(path)
        if isinstance(value, dict) and isinstance(old, dict):
            out[name] = merge(old, value, path)
        elif key is not None and key.merge == "concat" and isinstance(old, list):
            if isinstance(value, list):
                out[name] = [*old, *(v for v in value if v not in old)]
        else:
            out[name] = value
    return out
