"""Provider error kinds: a closed set, and data from outside held to it where it is read."""

from __future__ import annotations

from pathlib import Path

import pytest

from auger.llm.errors import error_kind
from auger.llm.formats import FORMATS, Endpoint


def test_a_script_naming_an_unknown_error_kind_fails_to_load_saying_which_there_are(
    tmp_path: Path,
) -> None:
    script = tmp_path / "replies.json"
    script.write_text('["fine", {"error": "boom", "kind": "timeout"}]')
    with pytest.raises(ValueError) as caught:
        FORMATS["scripted"].build(Endpoint("s", script=str(script)))
    assert str(caught.value) == (
        f"cannot load script {script}: unknown error kind 'timeout'; kinds: auth, bad_request, "
        "bad_response, context_overflow, incomplete, network, not_found, overloaded, quota, "
        "rate_limit, server"
    )


def test_a_kind_that_is_not_a_string_is_no_kind() -> None:
    with pytest.raises(ValueError, match="unknown error kind 3;"):
        error_kind(3)
