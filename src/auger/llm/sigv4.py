"""AWS Signature Version 4 for one HTTP request, as a pure function of the request, the
credentials and the time (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html).

Small on purpose: tests check it against botocore's `SigV4Auth`; the time is an argument so
a clock the server says is off can be corrected (`clock_offset`).
"""

from __future__ import annotations

import hashlib
import hmac
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from urllib.parse import quote, unquote, urlsplit

import msgspec

ALGORITHM = "AWS4-HMAC-SHA256"


class AwsCredentials(msgspec.Struct, frozen=True):
    """An access key, its secret, and the session token of temporary credentials."""

    access_key: str
    secret_key: str
    token: str | None = None


def _hmac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


def _uri(path: str) -> str:
    # every service but S3 signs the path encoded once more than it is sent
    return quote(path or "/", safe="/~")


def _query(query: str) -> str:
    pairs = [pair.partition("=") for pair in query.split("&") if pair]
    encoded = sorted(
        (quote(unquote(k), safe="-_.~"), quote(unquote(v), safe="-_.~")) for k, _, v in pairs
    )
    return "&".join(f"{k}={v}" for k, v in encoded)


def sign(
    method: str,
    url: str,
    headers: dict[str, str],
    body: bytes,
    credentials: AwsCredentials,
    region: str,
    service: str,
    now: datetime,
) -> dict[str, str]:
    """`headers` (lower-case names) with `host`, `x-amz-date`, the session token and the
    `authorization` that signs them all, for a request sent at `now`."""
    parts = urlsplit(url)
    stamp = now.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    out = dict(headers) | {"host": parts.netloc, "x-amz-date": stamp}
    if credentials.token:
        out["x-amz-security-token"] = credentials.token
    signed = sorted(k for k in out if k not in ("user-agent", "authorization", "expect"))
    canonical = "\n".join(
        [
            method,
            _uri(parts.path),
            _query(parts.query),
            "".join(f"{k}:{' '.join(out[k].split())}\n" for k in signed),
            ";".join(signed),
            hashlib.sha256(body).hexdigest(),
        ]
    )
    scope = f"{stamp[:8]}/{region}/{service}/aws4_request"
    to_sign = f"{ALGORITHM}\n{stamp}\n{scope}\n{hashlib.sha256(canonical.encode()).hexdigest()}"
    key = ("AWS4" + credentials.secret_key).encode()
    for part in (stamp[:8], region, service, "aws4_request"):
        key = _hmac(key, part)
    signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    out["authorization"] = (
        f"{ALGORITHM} Credential={credentials.access_key}/{scope}, "
        f"SignedHeaders={';'.join(signed)}, Signature={signature}"
    )
    return out


# What AWS answers a request signed at a time too far from its own (HTTP 403).
_SKEW_HINTS = ("signature expired", "signature not yet current", "requesttimetooskewed")


def clock_offset(status: int, message: str, date: str | None) -> float | None:
    """Seconds to add to this machine's clock, when `message` says the signature's time was
    off and the response's `Date` header says by how much; else `None`."""
    if status != 403 or not date or not any(h in message.lower() for h in _SKEW_HINTS):
        return None
    try:
        server = parsedate_to_datetime(date)
    except (TypeError, ValueError):
        return None
    if server.tzinfo is None:
        return None
    return (server - datetime.now(UTC)).total_seconds()
