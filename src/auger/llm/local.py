"""llama.cpp in-process (`auger[local]`): a GGUF served by `xllamacpp`'s embedded server, no key.

The embedded server is llama.cpp's own `llama-server`, listening on a free loopback port; it
speaks Chat Completions, so the requests go through `OpenAIChatProvider` like any other
server's. It starts on the first request (a `ProviderNotice` says so, and how long it took), with
the model's context window as its context size and the chat template from the GGUF; it restarts
for another GGUF, and stops on `aclose`.
"""

from __future__ import annotations

import asyncio
import functools
import os
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import msgspec

from auger.llm.errors import ProviderError
from auger.llm.formats import Endpoint
from auger.llm.openai_chat import OpenAIChatProvider
from auger.llm.provider import Exchange, Request, progress
from auger.llm.records import ProviderNotice, Record

INSTALL = "pip install 'auger[local]'"


class Compat(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """`compat` of a local provider: how llama.cpp runs."""

    threads: int = 0  # 0: every core
    gpu_layers: int = 0  # layers offloaded to a GPU, with a GPU build of xllamacpp
    tool_call_fallback: bool = True  # small models write their calls as text
    small_model_guidance: bool | None = None  # None: with the fallback (`engine.prompt`)
    temperature: float | None = None  # None: llama.cpp's default (0.8)
    seed: int | None = None  # None: a new one each start
    hub_endpoint: str | None = None  # `hf:` downloads from here (HF_ENDPOINT); None: the Hub


class Served(msgspec.Struct, frozen=True):
    """A running server: the GGUF it holds, its context size and its base URL."""

    path: Path
    context: int
    base_url: str
    handle: Any


def model_path(name: str, models_dir: Path | None) -> Path:
    """The GGUF a model name means: a file in `models_dir` (`NAME` or `NAME.gguf`), else a path
    (`~` expanded, relative to the working directory)."""
    path = Path(name).expanduser()
    if not path.is_absolute() and models_dir is not None:
        for candidate in (models_dir / name, models_dir / f"{name}.gguf"):
            if candidate.is_file():
                return candidate
    return path.absolute()


def start_server(path: Path, context: int, compat: Compat) -> tuple[Any, str]:
    """Load `path` into an embedded llama.cpp server (blocking); its handle and base URL."""
    try:
        import xllamacpp
    except ImportError:
        raise ProviderError(
            "bad_request", f"the local provider needs llama.cpp: {INSTALL}"
        ) from None
    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.n_ctx = context
    params.n_parallel = 1  # one conversation: the whole context is its own
    params.n_gpu_layers = compat.gpu_layers
    threads = compat.threads or os.cpu_count() or 1
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.use_jinja = True  # the GGUF's own chat template
    if compat.temperature is not None:
        params.sampling.temp = compat.temperature
    if compat.seed is not None:
        params.sampling.seed = compat.seed
    params.verbosity = -1  # llama.cpp logs to the process's stderr otherwise
    try:
        server = xllamacpp.Server(params)
    except Exception as exc:  # the library raises RuntimeError and others for a bad file
        raise ProviderError("bad_request", f"llama.cpp could not load {path}: {exc}") from None
    return server, f"{server.listening_address}/v1"


Starter = Callable[[Path, int, Compat], tuple[Any, str]]

HUB = "hf:"  # `local/hf:OWNER/REPO/FILE.gguf`: a file of a Hugging Face repository


def hub_file(name: str) -> tuple[str, str] | None:
    """(repository, file) of a hub name, `None` for a path; a `ValueError` if it is malformed."""
    if not name.startswith(HUB):
        return None
    owner, _, rest = name.removeprefix(HUB).partition("/")
    repo, _, filename = rest.partition("/")
    if not (owner and repo and filename):
        raise ValueError(f"a hub model is named {HUB}OWNER/REPO/FILE.gguf, not {name!r}")
    return f"{owner}/{repo}", filename


def hub_download(repo: str, filename: str, folder: Path, endpoint: str | None = None) -> Path:
    """Download `filename` of `repo` from the Hub (or the mirror at `endpoint`) into `folder`
    (blocking); where it is. A failed download leaves no file behind."""
    try:
        from huggingface_hub import hf_hub_download
        from huggingface_hub.errors import (
            EntryNotFoundError,
            LocalEntryNotFoundError,
            RepositoryNotFoundError,
        )
        from tqdm.auto import tqdm
    except ImportError:
        raise ProviderError("bad_request", f"loading from the hub needs {INSTALL}") from None

    class Quiet(tqdm):  # type: ignore[misc]  # the host shows progress; nothing writes to stderr
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **{**kwargs, "disable": True})

    try:
        got = hf_hub_download(repo, filename, local_dir=folder, endpoint=endpoint, tqdm_class=Quiet)
    except LocalEntryNotFoundError as exc:  # the hub could not be reached, nothing cached
        raise ProviderError("network", f"cannot reach the hub for {repo}: {exc}") from None
    except (EntryNotFoundError, RepositoryNotFoundError) as exc:
        raise ProviderError("not_found", f"no {filename} in {repo} on the hub: {exc}") from None
    except Exception as exc:  # the hub's client raises many kinds: offline, timeouts, HTTP
        raise ProviderError("network", f"downloading {repo}/{filename} failed: {exc}") from None
    return Path(got)


Fetcher = Callable[[str, str, Path], Path]


class LocalProvider:
    """Streams from a GGUF that an embedded llama.cpp server holds."""

    def __init__(
        self,
        name: str,
        compat: dict[str, Any] | None = None,
        *,
        models_dir: Path | None = None,
        transport: Any = None,
        starter: Starter = start_server,
        fetcher: Fetcher | None = None,
    ) -> None:
        self.name = name
        try:
            self.compat = msgspec.convert(dict(compat or {}), type=Compat)
        except msgspec.ValidationError as exc:
            raise ValueError(f'provider {name!r}: "compat": {exc}') from None
        self._models_dir = models_dir
        self._transport = transport
        self._starter = starter
        self._fetcher = fetcher or functools.partial(
            hub_download, endpoint=self.compat.hub_endpoint
        )
        self._served: Served | None = None
        self._chat: OpenAIChatProvider | None = None
        self._lock = asyncio.Lock()

    @classmethod
    def from_endpoint(cls, endpoint: Endpoint, transport: Any = None) -> LocalProvider:
        """A provider for `endpoint` (its `base_url`, if any, is the folder of named models)."""
        models = Path(endpoint.base_url).expanduser() if endpoint.base_url else None
        return cls(endpoint.name, endpoint.compat, models_dir=models, transport=transport)

    async def stream(self, request: Request, exchange: Exchange) -> AsyncIterator[Record]:
        """The records of one response; the first request loads the model first (downloading
        it once, for a hub name)."""
        context = request.model.context_window
        async with self._lock:
            path = model_path(request.model.name, self._models_dir)
            try:
                hub = hub_file(request.model.name)
            except ValueError as exc:
                raise ProviderError("bad_request", f"{self.name}: {exc}") from None
            if hub is not None:
                if self._models_dir is None:
                    raise ProviderError("bad_request", f"{self.name}: no folder for hub models")
                folder = self._models_dir / "hub" / hub[0]
                path = folder / hub[1]
                if not path.is_file():
                    yield ProviderNotice(f"downloading {hub[1]} from {hub[0]}…")
                    async with progress(exchange, f"downloading {hub[1]}"):
                        path = await asyncio.to_thread(self._fetcher, hub[0], hub[1], folder)
            served = self._served
            if served is None or (served.path, served.context) != (path, context):
                if not path.is_file():
                    raise ProviderError("not_found", f"{self.name}: no GGUF file at {path}")
                await self._stop()
                yield ProviderNotice(f"loading {path.name} with llama.cpp ({context} tokens)…")
                started = time.monotonic()
                async with progress(exchange, f"loading {path.name}"):
                    handle, base_url = await asyncio.to_thread(
                        self._starter, path, context, self.compat
                    )
                self._served = Served(path, context, base_url, handle)
                compat = {"tool_call_fallback": self.compat.tool_call_fallback}
                self._chat = OpenAIChatProvider(
                    self.name, base_url, None, compat=compat, transport=self._transport
                )
                yield ProviderNotice(f"loaded {path.name} in {time.monotonic() - started:.1f}s")
        assert self._chat is not None
        async for record in self._chat.stream(request, exchange):
            yield record

    async def _stop(self) -> None:
        chat, self._chat, self._served = self._chat, None, None
        if chat is not None:
            await chat.aclose()
        # the server stops when its last reference goes (xllamacpp has no stop call)

    async def aclose(self) -> None:
        """Stop the server and release connections."""
        await self._stop()
