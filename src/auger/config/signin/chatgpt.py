"""Sign in with ChatGPT: OAuth 2.0 with PKCE through a loopback callback, or OpenAI's device
code for machines without a browser — the flows the Codex CLI uses — and the refresh of its
tokens. Requests go to the Responses-shaped endpoint ChatGPT sign-in uses.

Documented at https://developers.openai.com/codex/auth (sign in with ChatGPT, device code);
the endpoints are those of openai/codex `codex-rs/login/src/server.rs` and
`device_code_auth.rs`.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import secrets
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from auger._version import __version__
from auger.config.signin.kind import Entry, Revoked, Screen, Sleep, models_stale, url_from
from auger.config.signin.loopback import Callback
from auger.config.signin.web import Answer, SignInError, call, text
from auger.llm.transport import Transport

CLIENT_ID = "app_EMoamEEZ73f0CkXaXp7hrann"  # the public client of Codex's sign-in
SCOPE = "openid profile email offline_access"
PORTS = (1455, 1457)  # the loopback ports the client's redirect allow-list holds
CALLBACK = "/auth/callback"
DEVICE_WAIT = 15 * 60.0  # how long a device code lives
_CLAIMS = "https://api.openai.com/auth"
API = "https://chatgpt.com/backend-api/codex"


class ChatGPT:
    """The ChatGPT sign-in."""

    name = "chatgpt"
    label = "ChatGPT (Plus, Pro, Business, Enterprise, Edu)"

    def urls(self, env: Mapping[str, str]) -> dict[str, str]:
        """The issuer (authorize, token, device endpoints live under it) and the model API."""
        return {
            "issuer": url_from(env, "CHATGPT_AUTH_BASE_URL", "https://auth.openai.com"),
            "api": url_from(env, "CHATGPT_BASE_URL", API),
        }

    async def refresh(self, entry: Entry, urls: dict[str, str], transport: Transport) -> Entry:
        """New tokens for the refresh token (which the server may rotate)."""
        refresh = entry.get("refresh")
        if not isinstance(refresh, str) or not refresh:
            raise Revoked("the ChatGPT sign-in holds no refresh token")
        form = {
            "grant_type": "refresh_token",
            "refresh_token": refresh,
            "client_id": CLIENT_ID,
            "scope": "openid profile email",
        }
        answer = await call(transport, urls["issuer"] + "/oauth/token", form=form)
        if answer.status in (400, 401, 403):
            raise Revoked(f"ChatGPT refused to renew the sign-in ({answer.reason()})")
        if not answer.ok:
            raise SignInError(f"ChatGPT's token endpoint answered {answer.reason()}")
        renewed = _entry(answer, entry)
        return await with_models(renewed, urls, transport) if models_stale(renewed) else renewed

    async def revoke(self, entry: Entry, urls: dict[str, str], transport: Transport) -> str:
        """Revoke the refresh token (RFC 7009, as Codex's logout does), else the access token."""
        refresh = entry.get("refresh")
        token, hint = (
            (refresh, "refresh_token") if refresh else (entry.get("access"), "access_token")
        )
        if not isinstance(token, str) or not token:
            return "there was no token to revoke"
        body: dict[str, Any] = {"token": token, "token_type_hint": hint}
        if hint == "refresh_token":
            body["client_id"] = CLIENT_ID
        try:
            answer = await call(transport, urls["issuer"] + "/oauth/revoke", body=body)
        except SignInError as exc:
            return f"OpenAI could not be asked to revoke it ({exc})"
        if not answer.ok:
            return f"OpenAI did not revoke it ({answer.reason()})"
        return "OpenAI revoked its tokens"

    def prepare(
        self, entry: Entry, headers: dict[str, str], body: dict[str, Any]
    ) -> tuple[dict[str, str], dict[str, Any]]:
        """The bearer token and the account; the body without `max_output_tokens`, which this
        endpoint refuses (its limit is the plan's)."""
        out = headers | {"authorization": f"Bearer {entry['access']}"}
        if account := entry.get("account_id"):
            out["chatgpt-account-id"] = str(account)
        return out, {k: v for k, v in body.items() if k != "max_output_tokens"}


def pkce() -> tuple[str, str]:
    """A fresh code verifier (86 URL-safe characters) and its challenge (RFC 7636 §4.1)."""
    verifier = _b64(secrets.token_bytes(64))
    return verifier, challenge(verifier)


def challenge(verifier: str) -> str:
    """The S256 challenge of `verifier`: BASE64URL(SHA256(verifier)), unpadded (§4.2)."""
    return _b64(hashlib.sha256(verifier.encode("ascii")).digest())


def authorize_url(issuer: str, redirect_uri: str, challenge: str, state: str) -> str:
    """Where the browser signs in."""
    query = {
        "response_type": "code",
        "client_id": CLIENT_ID,
        "redirect_uri": redirect_uri,
        "scope": SCOPE,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "id_token_add_organizations": "true",
        "codex_cli_simplified_flow": "true",
        "state": state,
        "originator": "auger",
    }
    return f"{issuer}/oauth/authorize?{urlencode(query)}"


async def browser_login(
    urls: dict[str, str],
    transport: Transport,
    screen: Screen,
    *,
    ports: tuple[int, ...] = PORTS,
    open_browser: Any = None,
    timeout: float = 600.0,
) -> Entry:
    """Sign in through the browser: PKCE, the loopback callback, the code exchanged."""
    verifier, challenge = pkce()
    state = secrets.token_urlsafe(24)
    callback = Callback(CALLBACK, state)
    port = await callback.start(ports)
    redirect_uri = f"http://localhost:{port}{CALLBACK}"
    url = authorize_url(urls["issuer"], redirect_uri, challenge, state)
    try:
        await screen.say(f"Sign in to ChatGPT in your browser:\n  {url}")
        opened = asyncio.ensure_future(open_browser(url)) if open_browser is not None else None
        async with screen.waiting("waiting for the browser"):
            code = await callback.code(timeout)
        if opened is not None:
            await opened
    finally:
        await callback.close()
    entry = await _exchange(urls["issuer"], transport, code, redirect_uri, verifier)
    return await with_models(entry, urls, transport)


async def device_login(
    urls: dict[str, str], transport: Transport, screen: Screen, sleep: Sleep
) -> Entry:
    """Sign in with a one-time code entered on any device (OpenAI's device authorization)."""
    issuer = urls["issuer"]
    answer = await call(
        transport, issuer + "/api/accounts/deviceauth/usercode", body={"client_id": CLIENT_ID}
    )
    if answer.status == 404:
        raise SignInError(
            "device-code sign-in is not enabled for this account — turn it on in ChatGPT's "
            "security settings, or sign in through a browser"
        )
    if not answer.ok:
        raise SignInError(f"ChatGPT refused a device code: {answer.reason()}")
    device = text(answer.data, "device_auth_id", "ChatGPT")
    user_code = answer.data.get("user_code") or answer.data.get("usercode")
    if not isinstance(user_code, str) or not user_code:
        raise SignInError("ChatGPT answered without a usable 'user_code'")
    interval = _seconds(answer.data.get("interval"), 5.0)
    await screen.say(
        f"Open {issuer}/codex/device and enter the code {user_code} (it expires in 15 minutes; "
        "never share it)."
    )
    deadline = time.monotonic() + DEVICE_WAIT
    async with screen.waiting("waiting for the code to be entered"):
        while True:
            poll = await call(
                transport,
                issuer + "/api/accounts/deviceauth/token",
                body={"device_auth_id": device, "user_code": user_code},
            )
            if poll.ok:
                break
            if poll.status not in (403, 404):
                raise SignInError(f"ChatGPT's device sign-in failed: {poll.reason()}")
            if time.monotonic() + interval > deadline:
                raise SignInError("the device code expired before it was entered")
            await sleep(interval)
    code = text(poll.data, "authorization_code", "ChatGPT")
    verifier = text(poll.data, "code_verifier", "ChatGPT")
    entry = await _exchange(issuer, transport, code, issuer + "/deviceauth/callback", verifier)
    return await with_models(entry, urls, transport)


async def with_models(entry: Entry, urls: dict[str, str], transport: Transport) -> Entry:
    """`entry` with the models the account may use (Codex's `GET /models`), by slug, with their
    context windows; the kept list stays when the server would not give one."""
    headers, _ = ChatGPT().prepare(entry, {}, {})
    try:
        answer = await call(
            transport, f"{urls['api']}/models?client_version={__version__}", headers=headers
        )
    except SignInError:
        return entry
    listed = answer.data.get("models")
    if not answer.ok or not isinstance(listed, list):
        return entry
    models: dict[str, Any] = {}
    for item in listed:
        slug = item.get("slug") if isinstance(item, dict) else None
        if isinstance(slug, str) and slug:
            window = item.get("context_window")
            model: dict[str, Any] = {"context_window": window} if isinstance(window, int) else {}
            if item.get("supported_reasoning_levels"):
                model["reasoning"] = True
            models[slug] = model
    return entry | {"models": models, "models_at": time.time()}


async def _exchange(
    issuer: str, transport: Transport, code: str, redirect_uri: str, verifier: str
) -> Entry:
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": redirect_uri,
        "client_id": CLIENT_ID,
        "code_verifier": verifier,
    }
    answer = await call(transport, issuer + "/oauth/token", form=form)
    if not answer.ok:
        raise SignInError(f"ChatGPT refused the sign-in code: {answer.reason()}")
    return _entry(answer, {})


def _entry(answer: Answer, old: Entry) -> Entry:
    """The entry kept for a token answer; what a refresh leaves out stays as it was."""
    access = text(answer.data, "access_token", "ChatGPT's token endpoint")
    id_token = answer.data.get("id_token")
    claims = _claims(id_token) if isinstance(id_token, str) else {}
    lifetime = answer.data.get("expires_in")
    expires = (
        time.time() + float(lifetime)
        if isinstance(lifetime, (int, float))
        else _claims_exp(access) or time.time() + 3600
    )
    refresh = answer.data.get("refresh_token")
    entry: Entry = {
        **{k: old[k] for k in ("models", "models_at") if k in old},
        "access": access,
        "refresh": refresh if isinstance(refresh, str) and refresh else old.get("refresh"),
        "expires": expires,
    }
    account = (claims.get(_CLAIMS) or {}).get("chatgpt_account_id") or old.get("account_id")
    if account:
        entry["account_id"] = account
    if email := claims.get("email") or old.get("email"):
        entry["email"] = email
    return entry


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _claims(jwt: str) -> dict[str, Any]:
    """A JWT's payload, unverified (it only names the account; the server checks the token)."""
    parts = jwt.split(".")
    if len(parts) != 3:
        return {}
    try:
        data = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _claims_exp(jwt: str) -> float | None:
    exp = _claims(jwt).get("exp")
    return float(exp) if isinstance(exp, (int, float)) else None


def _seconds(value: object, default: float) -> float:
    try:
        return max(0.0, float(value)) if value is not None else default  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return default
