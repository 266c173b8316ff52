"""Fetching with retries."""

import time

BASE_RETRIES = 3
BACKOFF = 0.5


def _attempt(url: str) -> bytes:
    raise OSError(f"cannot reach {url}")  # the real transport lives elsewhere


def fetch(url: str, retries: int = BASE_RETRIES + 1, backoff: float = BACKOFF) -> bytes:
    """Get `url`, trying again after each failure until the retries run out."""
    for attempt in range(retries + 1):
        try:
            return _attempt(url)
        except OSError:
            if attempt == retries:
                raise
            time.sleep(backoff * 2**attempt)
    raise AssertionError("unreachable")
