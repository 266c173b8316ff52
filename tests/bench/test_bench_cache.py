"""bench/bench_cache.py bills a scripted session under each provider's caching rules, at the
catalog's prices for each TTL."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

import bench_cache  # noqa: E402

from auger.llm.catalog import lookup  # noqa: E402
from support.cache_sim import AnthropicCache, Block  # noqa: E402


@pytest.mark.parametrize(("ttl", "rate"), [("5m", "cache_write"), ("1h", "cache_write_1h")])
def test_a_write_is_billed_at_the_catalogs_rate_for_its_ttl(ttl: str, rate: str) -> None:
    model = lookup("anthropic", "claude-sonnet-5-5", "messages")
    assert model.pricing is not None
    blocks = [Block("x" * 398, None)] * 19 + [Block("x" * 398, ttl)]  # 2,000 tokens, written
    again = [*blocks, Block("x" * 398, ttl)]  # read back, 100 more written
    share, cost = bench_cache.bill(model, [(0.0, blocks), (10.0, again)], AnthropicCache())
    written = getattr(model.pricing, rate)
    expected = (2_100 * written + 2_000 * model.pricing.cache_read) / (4_100 * model.pricing.input)
    assert share == pytest.approx(2_000 / 4_100)
    assert cost == pytest.approx(expected)


@pytest.mark.slow
def test_the_bench_prints_every_rule_set_for_every_work() -> None:
    result = subprocess.run(
        [sys.executable, str(BENCH / "bench_cache.py")], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    rows = [line for line in result.stdout.splitlines() if line.startswith("| ")]
    assert len(rows) == 1 + 7  # the header and the rule sets
    assert all(line.count(" · ") == 3 for line in rows[1:])
