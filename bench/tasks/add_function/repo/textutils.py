"""Small text helpers used by the blog generator."""


def truncate(text: str, width: int) -> str:
    """`text` cut to `width` characters, ending with an ellipsis when it was cut."""
    return text if len(text) <= width else text[: width - 1] + "…"
