"""A stand-in for Bedrock's InvokeModelWithResponseStream on 127.0.0.1 that checks SigV4.

`BedrockServer(steps, secrets={access key: secret})` recomputes each request's signature from
the secret it knows (its own implementation of the documented algorithm, not auger's), refuses
a request signed more than five minutes from its own clock as AWS does (403 "Signature expired",
its `Date` header telling the time), enforces Bedrock's body rules (`anthropic_version`, no
`model` or `stream`), then plays the steps as `StrictServer("messages")` would — the same
signed thinking rules — framed as AWS event-stream `chunk` events.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import struct
import time
import zlib
from datetime import UTC, datetime, timedelta
from email.utils import formatdate
from typing import Any
from urllib.parse import quote, unquote

from support.server import Reply, Seen, _Handler
from support.strict import Step, StrictServer

PATH_END = "/invoke-with-response-stream"
STREAM_TYPE = "application/vnd.amazon.eventstream"


def frame(headers: dict[str, str], payload: bytes) -> bytes:
    """One event-stream message with string headers, CRCs included."""
    raw = b"".join(
        bytes([len(k)]) + k.encode() + b"\x07" + struct.pack(">H", len(v.encode())) + v.encode()
        for k, v in headers.items()
    )
    prelude = struct.pack(">II", 12 + len(raw) + len(payload) + 4, len(raw))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    body = prelude + raw + payload
    return body + struct.pack(">I", zlib.crc32(body))


def chunk(event: dict[str, Any]) -> bytes:
    """A Messages stream event as Bedrock frames it."""
    payload = json.dumps({"bytes": base64.b64encode(json.dumps(event).encode()).decode()})
    headers = {":event-type": "chunk", ":content-type": "application/json"}
    return frame(headers | {":message-type": "event"}, payload.encode())


def reframe(sse_body: bytes) -> bytes:
    """A Messages SSE body as Bedrock's event stream."""
    lines = sse_body.decode().splitlines()
    return b"".join(chunk(json.loads(x[len("data: ") :])) for x in lines if x.startswith("data: "))


def _error(status: int, message: str, kind: str) -> Reply:
    headers = {"x-amzn-errortype": kind, "content-type": "application/json"}
    return Reply(status, json.dumps({"message": message}).encode(), headers=headers)


def expected_signature(seen: Seen, secret: str, host: str) -> str:
    """The SigV4 signature of `seen`, recomputed from `secret` and its signed headers."""
    auth = seen.headers["authorization"]
    fields = dict(f.strip().split("=", 1) for f in auth.split(" ", 1)[1].split(","))
    _, date, region, service, _ = fields["Credential"].split("/")
    signed = fields["SignedHeaders"].split(";")
    values = seen.headers | {"host": host}
    path, _, query = seen.path.partition("?")
    canonical_query = "&".join(
        sorted(
            "=".join(quote(unquote(p), safe="-_.~") for p in pair.split("=", 1))
            for pair in query.split("&")
            if pair
        )
    )
    canonical = "\n".join(
        [
            seen.method,
            "/".join(quote(segment, safe="~") for segment in path.split("/")),
            canonical_query,
            "".join(f"{h}:{' '.join(values[h].split())}\n" for h in signed),
            ";".join(signed),
            hashlib.sha256(seen.raw).hexdigest(),
        ]
    )
    scope = f"{date}/{region}/{service}/aws4_request"
    digest = hashlib.sha256(canonical.encode()).hexdigest()
    to_sign = f"AWS4-HMAC-SHA256\n{seen.headers['x-amz-date']}\n{scope}\n{digest}"
    key = f"AWS4{secret}".encode()
    for part in (date, region, service, "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    return hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()


class BedrockServer(StrictServer):
    """Plays `steps` as Claude on Bedrock, refusing badly signed or badly shaped requests."""

    def __init__(
        self,
        steps: list[Step],
        *,
        secrets: dict[str, str],
        region: str = "us-west-2",
        token: str | None = None,
        skew: float = 0.0,
    ) -> None:
        super().__init__("messages", steps)
        self.secrets = secrets
        self.region = region
        self.token = token
        self.skew = skew  # seconds this server's clock is ahead of the machine's
        self.refused: list[str] = []
        server = self

        class Handler(_Handler):
            def date_time_string(self, timestamp: float | None = None) -> str:
                return formatdate(time.time() + server.skew, usegmt=True)

        self._server.RequestHandlerClass = Handler
        self.host = self.url.removeprefix("http://")

    def now(self) -> datetime:
        """This server's clock."""
        return datetime.now(UTC) + timedelta(seconds=self.skew)

    def _take(self, seen: Seen) -> Reply:
        refusal = self._refusal(seen)
        if refusal is not None:
            with self._lock:
                self.requests.append(seen)
                self.refused.append(refusal.body.decode())
            return refusal
        reply = super()._take(seen)
        if reply.status != 200:
            return _error(400, json.loads(reply.body)["error"]["message"], "ValidationException")
        return Reply(body=reframe(reply.body), headers={"content-type": STREAM_TYPE})

    def _refusal(self, seen: Seen) -> Reply | None:
        auth = seen.headers.get("authorization", "")
        if not auth.startswith("AWS4-HMAC-SHA256 "):
            return _error(
                403, "Missing Authentication Token", "MissingAuthenticationTokenException"
            )
        credential = auth.split("Credential=", 1)[1].split("/", 1)[0]
        if credential not in self.secrets:
            message = "The security token included in the request is invalid."
            return _error(403, message, "UnrecognizedClientException")
        if self.token is not None and seen.headers.get("x-amz-security-token") != self.token:
            return _error(
                403,
                "The security token included in the request is invalid.",
                "UnrecognizedClientException",
            )
        if f"/{self.region}/bedrock/aws4_request" not in auth:
            return _error(
                403, "Credential should be scoped to a valid region.", "InvalidSignatureException"
            )
        signature = auth.rsplit("Signature=", 1)[1]
        if signature != expected_signature(seen, self.secrets[credential], self.host):
            message = (
                "The request signature we calculated does not match the signature you provided."
            )
            return _error(403, message, "InvalidSignatureException")
        signed_at = datetime.strptime(seen.headers["x-amz-date"], "%Y%m%dT%H%M%SZ").replace(
            tzinfo=UTC
        )
        now = self.now()
        if abs((now - signed_at).total_seconds()) > 300:
            stamp = "%Y%m%dT%H%M%SZ"
            message = (
                f"Signature expired: {signed_at.strftime(stamp)} is now earlier than "
                f"{(now - timedelta(minutes=5)).strftime(stamp)} "
                f"({now.strftime(stamp)} - 5 min.)"
            )
            return _error(403, message, "InvalidSignatureException")
        if not (seen.path.startswith("/model/") and seen.path.endswith(PATH_END)):
            return _error(404, f"Unknown operation {seen.path}", "UnknownOperationException")
        extra = [k for k in ("model", "stream") if k in seen.body]
        if extra:
            message = f"Malformed input request: #: extraneous key [{extra[0]}] is not permitted"
            return _error(400, message, "ValidationException")
        if seen.body.get("anthropic_version") != "bedrock-2023-05-31":
            return _error(400, "Malformed input request: anthropic_version", "ValidationException")
        return None
