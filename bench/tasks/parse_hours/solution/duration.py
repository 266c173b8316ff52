"""Durations such as "2m30s" in the job scheduler's config."""

import re

_UNITS = {"h": 3600, "m": 60, "s": 1}


def parse_duration(text: str) -> int:
    """The number of seconds in `text`: numbers each followed by a unit (h, m, s)."""
    parts = re.findall(r"(\d+)([a-z])", text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise ValueError(f"not a duration: {text!r}")
    return sum(int(n) * _UNITS[u] for n, u in parts)
