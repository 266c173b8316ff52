"""Claude on Amazon Bedrock: Anthropic Messages bodies through InvokeModelWithResponseStream
(https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModelWithResponseStream.html),
SigV4-signed, answered in AWS's binary event-stream framing.

Each `chunk` event carries one Messages stream event, base64-encoded, so the Messages state
machine (`AnthropicProvider.records`) reads them as it reads Anthropic's own. Credentials come
from botocore's standard chain (the `auger[bedrock]` extra, imported on the first request):
environment, shared config and credentials files with profiles, SSO, container and instance
roles. The region is the one in the base URL (`AWS_REGION` or `AWS_DEFAULT_REGION` wrote it
there), else the profile's (or `AWS_DEFAULT_REGION`, for a `BEDROCK_BASE_URL`).
"""

from __future__ import annotations

import asyncio
import base64
import json
import re
from collections.abc import AsyncGenerator, Mapping
from datetime import UTC, datetime, timedelta
from importlib.util import find_spec
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import quote, urlsplit

from auger.llm.anthropic import AnthropicProvider
from auger.llm.errors import ErrorKind, ProviderError, classify_status
from auger.llm.eventstream import EventStreamDecoder, FrameError
from auger.llm.http import HttpClient
from auger.llm.provider import Exchange
from auger.llm.sigv4 import AwsCredentials, clock_offset, sign
from auger.llm.transport import HttpRequest

API = "bedrock"
BODY_VERSION = "bedrock-2023-05-31"  # the `anthropic_version` Bedrock's Messages bodies carry
SERVICE = "bedrock"  # the signing name of bedrock-runtime
_EXTRA = "pip install 'auger[bedrock]'"
_HOST = re.compile(r"bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com")

# Exceptions a stream may end with, by `:exception-type` (the API reference's list).
_EXCEPTIONS: dict[str, ErrorKind] = {
    "throttlingException": "rate_limit",
    "serviceUnavailableException": "overloaded",
    "internalServerException": "server",
    "modelStreamErrorException": "server",
    "modelTimeoutException": "server",
    "validationException": "bad_request",
}


class _Chunks:
    """Event-stream messages as `(event, data)` pairs: each chunk's decoded Messages event."""

    progressed = True  # an event stream has no keep-alive comments: every byte is a message's

    def __init__(self, provider: str) -> None:
        self._provider = provider
        self._frames = EventStreamDecoder()

    def feed(self, chunk: bytes) -> list[tuple[str, str]]:
        """The Messages events completed by `chunk`; an exception or error message raises."""
        try:
            messages = self._frames.feed(chunk)
        except FrameError as exc:
            raise ProviderError("bad_response", f"{self._provider}: {exc}") from None
        out: list[tuple[str, str]] = []
        for message in messages:
            headers = message.headers
            text = message.payload.decode(errors="replace")
            if headers.get(":message-type") == "error":  # the framing's own error message
                code, why = headers.get(":error-code", "error"), headers.get(":error-message", "")
                raise ProviderError("server", f"{self._provider}: {code}: {why or text[:300]}")
            if headers.get(":message-type") == "exception":
                kind = str(headers.get(":exception-type", ""))
                detail = _message(text) or kind
                cause = _EXCEPTIONS.get(kind, "server")
                if classify_status(400, detail) == "context_overflow":
                    cause = "context_overflow"  # a validationException in the prompt's words
                raise ProviderError(cause, f"{self._provider}: {kind}: {detail}")
            if headers.get(":event-type") == "chunk":
                out.append(("message", _chunk(self._provider, text)))
        return out


def _message(text: str) -> str:
    try:
        data = json.loads(text)
    except ValueError:
        return text[:300]
    if not isinstance(data, dict):
        return ""
    return str(data.get("message") or data.get("Message") or "")[:300]


def _chunk(provider: str, text: str) -> str:
    try:
        return base64.b64decode(json.loads(text)["bytes"]).decode()
    except (ValueError, KeyError, TypeError):
        raise ProviderError(
            "bad_response", f"{provider}: an unreadable chunk: {text[:200]}"
        ) from None


class AwsAccount:
    """The region and credentials of botocore's standard chain, resolved once and refreshed
    by botocore when they are temporary."""

    def __init__(self) -> None:
        self._session: Any = None
        self._credentials: Any = None

    def _botocore(self) -> Any:
        if self._session is None:
            try:
                import botocore.session
            except ImportError:
                raise ProviderError(
                    "auth", f"bedrock reads AWS credentials with botocore: {_EXTRA}"
                ) from None
            self._session = botocore.session.get_session()
        return self._session

    def region(self, base_url: str) -> str:
        """The region of an AWS endpoint's host, else the profile's (botocore's)."""
        found = _HOST.fullmatch(urlsplit(base_url).hostname or "")
        region = found.group(1) if found else self._botocore().get_config_variable("region")
        if not region:
            raise ProviderError(
                "auth",
                "bedrock: no AWS region — set AWS_REGION, or a region in the AWS profile "
                "(AWS_DEFAULT_REGION beside a BEDROCK_BASE_URL)",
            )
        return str(region)

    def credentials(self) -> AwsCredentials:
        """The current credentials (blocking: a refresh may ask SSO or a metadata service)."""
        try:
            if self._credentials is None:
                self._credentials = self._botocore().get_credentials()
            frozen = self._credentials.get_frozen_credentials() if self._credentials else None
        except ProviderError:
            raise
        except Exception as exc:  # botocore's own errors: an expired SSO token, a bad profile
            self._credentials = None
            raise ProviderError("auth", f"bedrock: AWS credentials: {exc}") from None
        if frozen is None or not frozen.access_key:
            raise ProviderError(
                "auth",
                "bedrock: no AWS credentials — set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, "
                "choose a profile with AWS_PROFILE, or sign in with `aws sso login`",
            )
        return AwsCredentials(frozen.access_key, frozen.secret_key, frozen.token)


class BedrockClient(HttpClient):
    """POSTs signed requests and reads Bedrock's event stream; one clock-skew retry."""

    stream_type: ClassVar[str] = "application/vnd.amazon.eventstream"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.account = AwsAccount()
        self._region: str | None = None
        self._offset = 0.0  # seconds this machine's clock is behind the server's
        self._skewed: ProviderError | None = None

    def decoder(self) -> _Chunks:
        """Bedrock's chunks, decoded."""
        return _Chunks(self.provider)

    async def prepare(self, request: HttpRequest) -> HttpRequest:
        """The request signed with the current credentials, at the corrected time."""
        credentials = await asyncio.to_thread(self.account.credentials)
        now = datetime.now(UTC) + timedelta(seconds=self._offset)
        headers = sign(
            request.method,
            request.url,
            request.headers,
            request.content,
            credentials,
            self._region or "",
            SERVICE,
            now,
        )
        return HttpRequest(request.method, request.url, headers, request.content)

    async def events(
        self, path: str, body: dict[str, Any], exchange: Exchange
    ) -> AsyncGenerator[tuple[str, str], None]:
        """The stream's events; a request refused for a skewed clock is signed again once, at
        the server's time."""
        if self._region is None:
            self._region = await asyncio.to_thread(self.account.region, self.base_url)
            self.base_url = self.base_url.replace("{region}", self._region)
        for attempt in range(2):
            try:
                async for event in super().events(path, body, exchange):
                    yield event
                return
            except ProviderError as exc:
                if exc is not self._skewed or attempt:
                    raise
            finally:
                self._skewed = None

    def _http_error(self, response: Any, body: bytes) -> ProviderError:
        error = super()._http_error(response, body)
        offset = clock_offset(response.status, error.message, response.headers.get("date"))
        if offset is not None:
            self._offset = offset
            self._skewed = error
        return error


class BedrockProvider(AnthropicProvider):
    """Streams Claude from Bedrock (`POST /model/ID/invoke-with-response-stream`)."""

    api: ClassVar[str] = API
    Client: ClassVar[type[HttpClient]] = BedrockClient

    def auth_headers(self, api_key: str | None) -> dict[str, str]:
        """None: each request is signed instead."""
        return {}

    def events(
        self, path: str, body: dict[str, Any], exchange: Exchange
    ) -> AsyncGenerator[tuple[str, str], None]:
        """The Messages body as Bedrock takes it: the model in the path, the version inside."""
        sent = {k: v for k, v in body.items() if k not in ("model", "stream")}
        sent["anthropic_version"] = BODY_VERSION
        model = quote(str(body["model"]), safe="")
        return self._http.events(f"/model/{model}/invoke-with-response-stream", sent, exchange)


def sign_in_state(env: Mapping[str, str], home: Path) -> str:
    """Where AWS's credential chain would look first, judged from `env` and the files under
    `home` alone (no service is asked)."""
    if find_spec("botocore") is None:
        return f"needs botocore: {_EXTRA}"
    if env.get("AWS_ACCESS_KEY_ID") and env.get("AWS_SECRET_ACCESS_KEY"):
        return "AWS keys in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"
    if env.get("AWS_PROFILE"):
        return f"AWS profile {env['AWS_PROFILE']}"
    if env.get("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI") or env.get(
        "AWS_CONTAINER_CREDENTIALS_FULL_URI"
    ):
        return "the container's role"
    files = (
        env.get("AWS_SHARED_CREDENTIALS_FILE") or home / ".aws" / "credentials",
        env.get("AWS_CONFIG_FILE") or home / ".aws" / "config",
    )
    if any(Path(f).is_file() for f in files):
        return "the default AWS profile"
    return (
        "not signed in — set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY or AWS_PROFILE, or run "
        "`aws sso login` (an instance role is used where there is one)"
    )
