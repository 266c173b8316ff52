"""The Markdown table every benchmark prints: a measure, its median, its target."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

Row = tuple[str, float, str | None, str, float]
"""(label, value, target key or None, unit, scale from the value to the unit)."""


def table(rows: Sequence[Row], targets: Mapping[str, float], digits: int = 1) -> str:
    """The rows as a Markdown table, each target marked ✓ (met) or ✗ (missed)."""
    lines = ["| measure | median | target |", "|---|---|---|"]
    for label, value, key, unit, scale in rows:
        target = f"≤ {targets[key] * scale:g} {unit}" if key else "—"
        mark = "" if key is None else (" ✓" if value <= targets[key] else " ✗")
        lines.append(f"| {label} | {value * scale:.{digits}f} {unit}{mark} | {target} |")
    return "\n".join(lines)


def grid(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A plain Markdown table of already formatted cells."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)
