"""The local provider without llama.cpp: its server's lifecycle, on a fake starter and `Wire`."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from auger.llm.errors import ProviderError
from auger.llm.local import Compat, LocalProvider, model_path
from auger.llm.messages import UserMessage
from auger.llm.provider import Model, PassThrough, Request, ToolSpec
from auger.llm.records import ProviderNotice, Record, TextDone, ToolCallDone
from support.server import sse


def reply(content: str) -> bytes:
    return sse(
        {"choices": [{"index": 0, "delta": {"content": content}, "finish_reason": None}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        {"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 4}},
        done=True,
    )


class Starter:
    """Records each start; the 'server' is the test's `Wire`."""

    def __init__(self) -> None:
        self.starts: list[tuple[Path, int, Compat]] = []

    def __call__(self, path: Path, context: int, compat: Compat) -> tuple[Any, str]:
        self.starts.append((path, context, compat))
        return object(), "http://127.0.0.1:9/v1"


def request(path: Path, window: int = 8192, tools: tuple[ToolSpec, ...] = ()) -> Request:
    model = Model("local", str(path), "llamacpp", context_window=window)
    return Request(model, "", (UserMessage.of("hi"),), tools=tools)


async def records(provider: LocalProvider, req: Request) -> list[Record]:
    return [r async for r in provider.stream(req, PassThrough())]


@pytest.fixture
def gguf(tmp_path: Path) -> Path:
    path = tmp_path / "m.gguf"
    path.write_bytes(b"GGUF")
    return path


async def test_the_first_request_starts_the_server_and_says_so(wire, gguf) -> None:
    starter = Starter()
    provider = LocalProvider("local", {"threads": 2}, transport=wire, starter=starter)
    wire.chunks = [reply("Hello")]
    first = await records(provider, request(gguf))
    assert [type(r) for r in first[:2]] == [ProviderNotice, ProviderNotice]
    assert "loading m.gguf" in first[0].message and "8192 tokens" in first[0].message  # type: ignore[attr-defined]
    assert TextDone("Hello") in first
    assert wire.sent[-1].url == "http://127.0.0.1:9/v1/chat/completions"
    second = await records(provider, request(gguf))
    assert not any(isinstance(r, ProviderNotice) for r in second)
    assert [(p, n, c.threads) for p, n, c in starter.starts] == [(gguf, 8192, 2)]
    await provider.aclose()


async def test_another_window_or_file_restarts_it(wire, gguf, tmp_path) -> None:
    starter = Starter()
    provider = LocalProvider("local", transport=wire, starter=starter)
    other = tmp_path / "o.gguf"
    other.write_bytes(b"GGUF")
    for path, window in ((gguf, 8192), (gguf, 4096), (other, 4096), (other, 4096)):
        wire.chunks = [reply("x")]
        await records(provider, request(path, window))
    assert [(p.name, n) for p, n, _ in starter.starts] == [
        ("m.gguf", 8192),
        ("m.gguf", 4096),
        ("o.gguf", 4096),
    ]
    await provider.aclose()


async def test_a_missing_file_is_not_found(wire, tmp_path) -> None:
    provider = LocalProvider("local", transport=wire, starter=Starter())
    with pytest.raises(ProviderError) as caught:
        await records(provider, request(tmp_path / "nope.gguf"))
    assert caught.value.kind == "not_found" and "nope.gguf" in caught.value.message


async def test_text_calls_become_calls_by_default(wire, gguf) -> None:
    provider = LocalProvider("local", transport=wire, starter=Starter())
    wire.chunks = [reply('{"name": "read", "arguments": {"path": "a"}}')]
    out = await records(provider, request(gguf, tools=(ToolSpec("read", "Read"),)))
    assert [(r.name, r.arguments) for r in out if isinstance(r, ToolCallDone)] == [
        ("read", '{"path": "a"}')
    ]
    await provider.aclose()


def test_bad_compat_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="compat"):
        LocalProvider("local", {"thread": 2})


def test_model_path_looks_in_the_models_folder_first(tmp_path: Path) -> None:
    (tmp_path / "qwen.gguf").write_bytes(b"GGUF")
    assert model_path("qwen", tmp_path) == tmp_path / "qwen.gguf"
    assert model_path("qwen.gguf", tmp_path) == tmp_path / "qwen.gguf"
    assert model_path(str(tmp_path / "x.gguf"), None) == tmp_path / "x.gguf"
    assert model_path("rel/x.gguf", tmp_path) == Path("rel/x.gguf").absolute()


def test_without_xllamacpp_the_error_says_what_to_install(monkeypatch, gguf) -> None:
    import sys

    from auger.llm.local import start_server

    monkeypatch.setitem(sys.modules, "xllamacpp", None)  # import fails
    with pytest.raises(ProviderError, match=r"auger\[local\]"):
        start_server(gguf, 512, Compat())


def test_the_builtin_row_needs_no_key_and_gives_a_small_window(tmp_path: Path) -> None:
    from auger.config.models import build_provider, provider_config, resolve_model

    config = provider_config("local", {}, {})
    model = resolve_model(f"local/{tmp_path}/m.gguf", config)
    assert (model.api, model.name, model.context_window) == ("llamacpp", f"{tmp_path}/m.gguf", 8192)
    assert model.max_output == 2048
    settings = {"providers": {"local": {"models": {"big.gguf": {"context_window": 32768}}}}}
    big = resolve_model("local/big.gguf", provider_config("local", {}, settings))
    assert (big.context_window, big.max_output) == (32768, 2048)
    assert isinstance(build_provider(config), LocalProvider)


async def test_the_engine_shows_the_loading_notices_and_keeps_them_out_of_the_reply(
    wire, gguf, tmp_path
) -> None:
    from auger.records import Notify, TurnEnd
    from support.runtime import collect, make_runtime

    provider = LocalProvider("local", transport=wire, starter=Starter())
    wire.chunks = [reply("Hello")]
    model = Model("local", str(gguf), "llamacpp", context_window=8192)
    rt = make_runtime(tmp_path, provider, model=model)  # type: ignore[arg-type]
    records = await collect(rt, "hi")
    notices = [r.message for r in records if isinstance(r, Notify)]
    assert len(notices) == 2 and notices[0].startswith("loading m.gguf")
    assert not any(isinstance(r, ProviderNotice) for r in records)
    end = records[-1]
    assert isinstance(end, TurnEnd) and (end.stop_reason, end.text) == ("completed", "Hello")
    assert rt.messages[-1].text == "Hello"


async def test_a_hub_name_downloads_once_into_the_models_folder(wire, tmp_path) -> None:
    fetched: list[tuple[str, str, Path]] = []

    def fetch(repo: str, filename: str, folder: Path) -> Path:
        fetched.append((repo, filename, folder))
        folder.mkdir(parents=True)
        (folder / filename).write_bytes(b"GGUF")
        return folder / filename

    starter = Starter()
    models = tmp_path / "models"
    provider = LocalProvider(
        "local", models_dir=models, transport=wire, starter=starter, fetcher=fetch
    )
    name = "hf:Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF/q4.gguf"
    wire.chunks = [reply("x")]
    first = await records(provider, request(Path(name)))
    assert first[0] == ProviderNotice(
        "downloading q4.gguf from Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF…"
    )
    folder = models / "hub" / "Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF"
    assert fetched == [("Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF", "q4.gguf", folder)]
    assert starter.starts[0][0] == folder / "q4.gguf"
    await provider.aclose()
    again = LocalProvider(
        "local", models_dir=models, transport=wire, starter=starter, fetcher=fetch
    )
    second = await records(again, request(Path(name)))
    assert len(fetched) == 1 and not any("downloading" in getattr(r, "message", "") for r in second)
    await again.aclose()


async def test_a_malformed_hub_name_is_a_bad_request(wire, tmp_path) -> None:
    provider = LocalProvider("local", models_dir=tmp_path, transport=wire, starter=Starter())
    with pytest.raises(ProviderError) as caught:
        await records(provider, request(Path("hf:only-owner")))
    assert caught.value.kind == "bad_request" and "OWNER/REPO/FILE.gguf" in caught.value.message


class Showing(PassThrough):
    """An exchange whose host shows progress: keeps each label and how it ended."""

    def __init__(self) -> None:
        self.shown: list[tuple[str, str | None]] = []

    @contextlib.asynccontextmanager
    async def progress(self, label: str) -> AsyncIterator[None]:
        try:
            yield
        except BaseException as exc:
            self.shown.append((label, type(exc).__name__))
            raise
        self.shown.append((label, None))


async def test_the_host_shows_the_download_and_the_load_while_they_run(wire, tmp_path) -> None:
    def fetch(repo: str, filename: str, folder: Path) -> Path:
        folder.mkdir(parents=True)
        (folder / filename).write_bytes(b"GGUF")
        return folder / filename

    provider = LocalProvider(
        "local", models_dir=tmp_path, transport=wire, starter=Starter(), fetcher=fetch
    )
    wire.chunks = [reply("x")]
    exchange = Showing()
    [r async for r in provider.stream(request(Path("hf:o/r/q4.gguf")), exchange)]
    assert exchange.shown == [("downloading q4.gguf", None), ("loading q4.gguf", None)]
    await provider.aclose()


async def test_a_load_that_fails_still_ends_its_progress(wire, gguf) -> None:
    def broken(path: Path, context: int, compat: Compat) -> tuple[Any, str]:
        raise ProviderError("bad_request", f"llama.cpp could not load {path}")

    provider = LocalProvider("local", transport=wire, starter=broken)
    exchange = Showing()
    with pytest.raises(ProviderError):
        [r async for r in provider.stream(request(gguf), exchange)]
    assert exchange.shown == [("loading m.gguf", "ProviderError")]


def test_hf_endpoint_in_the_session_env_points_hub_downloads_at_a_mirror() -> None:
    from auger.config.models import build_provider, provider_config

    mirror = "http://127.0.0.1:9/hub-mirror"
    built = build_provider(provider_config("local", {"HF_ENDPOINT": mirror}, {}))
    assert isinstance(built, LocalProvider) and built.compat.hub_endpoint == mirror
    assert build_provider(provider_config("local", {}, {})).compat.hub_endpoint is None
