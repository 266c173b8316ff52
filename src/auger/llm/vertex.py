"""Google Vertex AI: Claude through `streamRawPredict` (Anthropic Messages bodies,
https://docs.cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude/use-claude)
and Gemini through the native `streamGenerateContent`, both with a bearer token from
Application Default Credentials (google-auth, the `auger[vertex]` extra, imported on the first
request; its token refreshes go through auger's own HTTP stack, proxies included).

The base URL is `https://LOCATION-aiplatform.googleapis.com/v1` (`GOOGLE_CLOUD_LOCATION` or
`CLOUD_ML_REGION` wrote it; `aiplatform.googleapis.com` is the `global` location) and the
project is ADC's (google-auth reads `GOOGLE_CLOUD_PROJECT`); a base URL that already names
`/projects/P/locations/L` is used as it is.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from importlib.util import find_spec
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import quote, urlsplit

from auger.llm.anthropic import AnthropicProvider
from auger.llm.errors import ProviderError
from auger.llm.formats import Endpoint
from auger.llm.gemini import GeminiProvider
from auger.llm.http import HttpClient
from auger.llm.provider import Exchange, Request
from auger.llm.records import Record
from auger.llm.transport import HttpRequest, HttpTransport, Transport, TransportError

API = "vertex"
BODY_VERSION = "vertex-2023-10-16"  # the `anthropic_version` Vertex's Claude bodies carry
SCOPE = "https://www.googleapis.com/auth/cloud-platform"
_EXTRA = "pip install 'auger[vertex]'"
_HOST = re.compile(r"(?:([a-z0-9-]+)-)?aiplatform\.googleapis\.com")
_RESOURCE = re.compile(r"/projects/[^/]+/locations/[^/]+$")


class _Fetched:
    """A response as google-auth's transport interface reads it."""

    def __init__(self, status: int, headers: dict[str, str], data: bytes) -> None:
        self.status = status
        self.headers = headers
        self.data = data


class GoogleAccount:
    """ADC's credentials and project; a token refreshed (on the event loop's HTTP stack)
    whenever google-auth says it is no longer valid."""

    def __init__(self, transport: Transport) -> None:
        self._transport = transport
        self._credentials: Any = None
        self._project: str | None = None
        self._lock = asyncio.Lock()

    def _load(self) -> None:
        try:
            import google.auth
        except ImportError:
            raise ProviderError(
                "auth", f"vertex reads Google credentials with google-auth: {_EXTRA}"
            ) from None
        try:
            self._credentials, self._project = google.auth.default(scopes=[SCOPE])
        except google.auth.exceptions.DefaultCredentialsError as exc:
            raise ProviderError(
                "auth", f"vertex: {_reason(exc)} — run `gcloud auth application-default login`"
            ) from None

    async def project(self) -> str:
        """The project ADC names (or `GOOGLE_CLOUD_PROJECT`)."""
        if self._credentials is None:
            await asyncio.to_thread(self._load)
        if not self._project:
            raise ProviderError(
                "auth", "vertex: no Google Cloud project — set GOOGLE_CLOUD_PROJECT"
            )
        return self._project

    async def token(self) -> str:
        """A valid access token, refreshed first when it has expired (or was never fetched)."""
        async with self._lock:
            if self._credentials is None:
                await asyncio.to_thread(self._load)
            if not self._credentials.valid:
                loop = asyncio.get_running_loop()
                await asyncio.to_thread(self._refresh, loop)
            return str(self._credentials.token)

    def _refresh(self, loop: asyncio.AbstractEventLoop) -> None:
        import google.auth.exceptions
        import google.auth.transport

        account = self

        class Fetch(google.auth.transport.Request):
            def __call__(
                self,
                url: str,
                method: str = "GET",
                body: bytes | None = None,
                headers: dict[str, str] | None = None,
                timeout: float | None = None,
                **kwargs: Any,
            ) -> _Fetched:
                call = account._fetch(method, url, body or b"", dict(headers or {}))
                try:
                    return asyncio.run_coroutine_threadsafe(call, loop).result(timeout or 60)
                except (TransportError, TimeoutError) as exc:
                    raise google.auth.exceptions.TransportError(str(exc)) from exc

        try:
            self._credentials.refresh(Fetch())
        except google.auth.exceptions.RefreshError as exc:
            raise ProviderError(
                "auth",
                f"vertex: the Google credentials could not be refreshed ({_reason(exc)}) — "
                "run `gcloud auth application-default login`",
            ) from None
        except google.auth.exceptions.TransportError as exc:
            raise ProviderError("network", f"vertex: refreshing the token: {exc}") from None

    async def _fetch(self, method: str, url: str, body: bytes, headers: dict[str, str]) -> _Fetched:
        sent = {k.lower(): v for k, v in headers.items()}
        async with self._transport.stream(HttpRequest(method, url, sent, body)) as response:
            return _Fetched(response.status, dict(response.headers), await response.aread())


def _reason(exc: BaseException) -> str:
    first = exc.args[0] if exc.args else exc
    return str(first)[:200]


class VertexClient(HttpClient):
    """POSTs with ADC's bearer token below the project's location."""

    account: GoogleAccount
    _located = False

    async def prepare(self, request: HttpRequest) -> HttpRequest:
        """The request with a current bearer token."""
        token = await self.account.token()
        headers = request.headers | {"authorization": f"Bearer {token}"}
        return HttpRequest(request.method, request.url, headers, request.content)

    async def events(
        self, path: str, body: dict[str, Any], exchange: Exchange
    ) -> AsyncGenerator[tuple[str, str], None]:
        """The stream's events, below `/projects/P/locations/L`."""
        if not self._located:
            self.base_url = await located(self.base_url, self.account)
            self._located = True
        async for event in super().events(path, body, exchange):
            yield event


async def located(base_url: str, account: GoogleAccount) -> str:
    """`base_url` down to the project's location."""
    parts = urlsplit(base_url)
    if _RESOURCE.search(parts.path):
        return base_url
    host = _HOST.fullmatch(parts.hostname or "")
    if host is None:
        raise ProviderError(
            "bad_request",
            f"vertex: cannot tell the location from {base_url} — end it with "
            "/projects/PROJECT/locations/LOCATION",
        )
    location = host.group(1) or "global"
    return f"{base_url}/projects/{await account.project()}/locations/{location}"


class VertexClaude(AnthropicProvider):
    """Claude on Vertex (`…/publishers/anthropic/models/M:streamRawPredict`)."""

    api: ClassVar[str] = API
    Client: ClassVar[type[HttpClient]] = VertexClient

    def auth_headers(self, api_key: str | None) -> dict[str, str]:
        """None: ADC's token goes on each request."""
        return {}

    def events(
        self, path: str, body: dict[str, Any], exchange: Exchange
    ) -> AsyncGenerator[tuple[str, str], None]:
        """The Messages body as Vertex takes it: the model in the path, the version inside."""
        sent = {k: v for k, v in body.items() if k != "model"}
        sent["anthropic_version"] = BODY_VERSION
        model = quote(str(body["model"]), safe="@")
        path = f"/publishers/anthropic/models/{model}:streamRawPredict"
        return self._http.events(path, sent, exchange)


class VertexGemini(GeminiProvider):
    """Gemini on Vertex (`…/publishers/google/models/M:streamGenerateContent`)."""

    api: ClassVar[str] = API
    Client: ClassVar[type[HttpClient]] = VertexClient

    def auth_headers(self, api_key: str | None) -> dict[str, str]:
        """None: ADC's token goes on each request."""
        return {}

    def path(self, model: str) -> str:
        """Below the project's location."""
        return f"/publishers/google/models/{model}:streamGenerateContent?alt=sse"


class VertexProvider:
    """Vertex AI: Claude models to `VertexClaude`, the others to `VertexGemini`; one account."""

    def __init__(
        self, name: str, claude: VertexClaude, gemini: VertexGemini, account: GoogleAccount
    ) -> None:
        self.name = name
        self._claude = claude
        self._gemini = gemini
        for provider in (claude, gemini):
            provider._http.account = account  # type: ignore[attr-defined]

    @classmethod
    def from_endpoint(cls, endpoint: Endpoint, transport: Any = None) -> VertexProvider:
        """A provider for `endpoint` (the wire-format table's constructor)."""
        transport = transport or HttpTransport()
        claude = VertexClaude.from_endpoint(endpoint, transport)
        gemini = VertexGemini.from_endpoint(endpoint, transport)
        assert isinstance(claude, VertexClaude) and isinstance(gemini, VertexGemini)
        return cls(endpoint.name, claude, gemini, GoogleAccount(transport))

    def stream(self, request: Request, exchange: Exchange) -> AsyncIterator[Record]:
        """The records of one response, from the model's publisher."""
        claude = request.model.name.startswith("claude")
        return (self._claude if claude else self._gemini).stream(request, exchange)

    async def aclose(self) -> None:
        """Release connections."""
        await self._claude.aclose()
        await self._gemini.aclose()


def sign_in_state(env: Mapping[str, str], home: Path) -> str:
    """Which Application Default Credentials google-auth would find, judged from `env` and the
    files under `home` alone (no service is asked)."""
    if find_spec("google.auth") is None:
        return f"needs google-auth: {_EXTRA}"
    if named := env.get("GOOGLE_APPLICATION_CREDENTIALS"):
        if Path(named).is_file():
            return f"ADC file {named} (GOOGLE_APPLICATION_CREDENTIALS)"
        return f"GOOGLE_APPLICATION_CREDENTIALS names no file: {named}"
    gcloud = Path(env.get("CLOUDSDK_CONFIG") or home / ".config" / "gcloud")
    if (gcloud / "application_default_credentials.json").is_file():
        return "gcloud's application-default credentials"
    return (
        "not signed in — run `gcloud auth application-default login` "
        "(a VM's service account is used where there is one)"
    )
