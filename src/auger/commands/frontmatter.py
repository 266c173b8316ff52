"""Markdown files with YAML front matter (SKILL.md, prompt templates)."""

from __future__ import annotations

from typing import Any


class FrontMatterError(ValueError):
    """The front matter is not a YAML mapping."""


def split(text: str) -> tuple[dict[str, Any], str]:
    """The front matter (`{}` when there is none) and the body after it."""
    if not text.startswith("---"):
        return {}, text
    end = text.find("\n---", 3)
    if end < 0:
        return {}, text
    import yaml  # only files that have front matter pay for the parser

    try:
        data = yaml.safe_load(text[3:end]) or {}
    except yaml.YAMLError as exc:
        raise FrontMatterError(f"front matter is not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise FrontMatterError("front matter must be a mapping of keys to values")
    body = text[end + 4 :]
    return data, body.removeprefix("\n")
