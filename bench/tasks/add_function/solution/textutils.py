"""Small text helpers used by the blog generator."""


def truncate(text: str, width: int) -> str:
    """`text` cut to `width` characters, ending with an ellipsis when it was cut."""
    return text if len(text) <= width else text[: width - 1] + "…"


def slugify(text: str) -> str:
    """`text` for a URL: lower case, each run of other characters one '-', none at the ends."""
    import re

    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
