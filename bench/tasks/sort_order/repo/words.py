"""Word statistics for the search index."""

from collections import Counter


def top_words(text: str, n: int) -> list[tuple[str, int]]:
    """The `n` most frequent words of `text` with their counts, most frequent first
    (ties in alphabetical order)."""
    counts = Counter(text.lower().split())
    return sorted(counts.items(), key=lambda item: (item[1], item[0]))[:n]
