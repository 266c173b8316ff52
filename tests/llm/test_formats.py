"""The wire-format table: the one place that knows the API names."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from auger.llm.formats import API_NAMES, FORMATS, Endpoint, wire_format

SRC = Path(__file__).resolve().parents[2] / "src" / "auger"


def test_every_api_name_has_one_row() -> None:
    assert tuple(FORMATS) == API_NAMES
    assert all(FORMATS[api].api == api for api in API_NAMES)


@pytest.mark.parametrize("api", [a for a in API_NAMES if a != "scripted"])
def test_each_http_format_builds_its_provider_class(api: str) -> None:
    fmt = FORMATS[api]  # type: ignore[index]
    provider = fmt.build(Endpoint("p", "http://127.0.0.1:9/v1/", "k"))
    assert provider.name == "p"
    assert type(provider).__module__ == fmt.target.partition(":")[0]


def test_a_host_url_loses_a_trailing_version() -> None:
    assert FORMATS["messages"].base_url("https://api.anthropic.com/v1/") == (
        "https://api.anthropic.com"
    )
    assert FORMATS["responses"].base_url("https://api.openai.com/v1/") == (
        "https://api.openai.com/v1"
    )


def test_the_scripted_format_reads_its_script(tmp_path: Path) -> None:
    script = tmp_path / "replies.json"
    script.write_text('["hello"]')
    provider = FORMATS["scripted"].build(Endpoint("s", script=str(script)))
    assert provider.name == "s" and provider.pending == 1  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match='needs "script"'):
        FORMATS["scripted"].build(Endpoint("s"))


def test_an_unknown_name_has_no_row() -> None:
    assert wire_format("soap") is None
    assert wire_format(3) is None


def test_a_bad_compat_option_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="compat"):
        FORMATS["chat-completions"].build(Endpoint("p", "http://x/v1", compat={"nope": 1}))


def _compared_names(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for side in [node.left, *node.comparators]:
                values = side.elts if isinstance(side, ast.Tuple | ast.List | ast.Set) else [side]
                found += [
                    v.value for v in values if isinstance(v, ast.Constant) and v.value in API_NAMES
                ]
    return found


def test_no_module_but_the_table_compares_api_names() -> None:
    offenders = {}
    for path in SRC.rglob("*.py"):
        if path.name == "formats.py":
            continue
        if names := _compared_names(ast.parse(path.read_text())):
            offenders[str(path.relative_to(SRC))] = names
    assert offenders == {}
