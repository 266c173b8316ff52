"""Usage sums and prices (SPEC §1.3)."""

from __future__ import annotations

import pytest

from auger.llm.catalog import lookup, model_from_entry
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


def test_a_prompt_beyond_the_long_context_threshold_prices_the_whole_request_higher() -> None:
    # gpt-6.2-sol: "For requests with more than 272K input tokens, input and cache rates double
    # and output costs 1.5 times the short-context rate for the full request."
    model = lookup("openai", "gpt-6.2-sol", "responses")
    assert model.pricing is not None
    at = Usage(input_tokens=272_000, output_tokens=10_000, cache_read_tokens=200_000)
    beyond = Usage(input_tokens=272_001, output_tokens=10_000, cache_read_tokens=200_000)
    assert model.pricing.price(at) == pytest.approx(
        (72_000 * 2 + 200_000 * 0.1 + 10_000 * 10) / 1e6
    )
    assert model.pricing.price(beyond) == pytest.approx(
        (72_001 * 4 + 200_000 * 0.2 + 10_000 * 15) / 1e6
    )


def test_a_model_declared_in_settings_can_have_a_long_context_tier() -> None:
    entry = {
        "input": 1.0,
        "output": 2.0,
        "long_context": {"above": 10, "input": 3.0, "output": 4.0},
    }
    pricing = model_from_entry("p", "m", "chat-completions", entry).pricing
    assert pricing is not None
    assert pricing.price(Usage(10, 1)) == pytest.approx(12 / 1e6)
    assert pricing.price(Usage(11, 1)) == pytest.approx(37 / 1e6)
