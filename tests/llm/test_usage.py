"""Usage sums and prices (SPEC §1.3)."""

from __future__ import annotations

from auger.llm.usage import ZERO, Pricing, Usage


def test_adding_sums_the_counts() -> None:
    total = Usage(10, 2, 3, None, 0.5) + Usage(5, 1, 4, 7, 0.25)
    assert total == Usage(15, 3, 7, 7, 0.75)


def test_the_cost_of_a_sum_is_unknown_if_either_side_is() -> None:
    assert (Usage(1, 1, cost=1.0) + Usage(1, 1)).cost is None
    assert (ZERO + Usage(1, 1)).cost is None


def test_unknown_counts_are_left_out_of_the_dict() -> None:
    assert Usage(3, 4).to_dict() == {"input_tokens": 3, "output_tokens": 4}
    full = Usage(3, 4, 1, 2, 0.01).to_dict()
    assert full == {
        "input_tokens": 3,
        "output_tokens": 4,
        "cache_read_tokens": 1,
        "cache_write_tokens": 2,
        "cost": 0.01,
    }
    assert Usage.from_dict(full) == Usage(3, 4, 1, 2, 0.01)


def test_cache_reads_and_writes_are_priced_separately() -> None:
    pricing = Pricing(input=3.0, output=15.0, cache_read=0.3, cache_write=3.75)
    usage = Usage(
        input_tokens=1_000_000,
        output_tokens=100_000,
        cache_read_tokens=600_000,
        cache_write_tokens=100_000,
    )
    # 300k fresh input, 600k cache reads, 100k cache writes, 100k output
    expected = 0.3 * 3.0 + 0.6 * 0.3 + 0.1 * 3.75 + 0.1 * 15.0
    assert abs(pricing.price(usage) - expected) < 1e-9
