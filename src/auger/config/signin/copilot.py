"""Sign in to GitHub Copilot: GitHub's device flow (RFC 8628, with `slow_down`), the exchange of
the GitHub token for a short-lived Copilot token, and the models the seat offers.

The device flow is documented at https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps#device-flow;
the exchange (`/copilot_internal/v2/token`, `endpoints.api`), the client id and the identity
headers Copilot checks are those Copilot's own editor clients use (as described in
https://github.com/anomalyco/opencode/issues/19338 and #20759).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from auger.config.signin.kind import Entry, Revoked, Screen, Sleep, models_stale, url_from
from auger.config.signin.web import SignInError, call, text
from auger.llm.transport import Transport

CLIENT_ID = "Iv1.b507a08c87ecfe98"  # the Copilot editor GitHub App's public client id
HEADERS = {
    "user-agent": "GitHubCopilotChat/0.35.0",
    "editor-version": "vscode/1.107.0",
    "editor-plugin-version": "copilot-chat/0.35.0",
    "copilot-integration-id": "vscode-chat",
}
"""The identity a Copilot token is scoped to: sent on the exchange and on every request."""
API = "https://api.githubcopilot.com"
_GRANT = "urn:ietf:params:oauth:grant-type:device_code"


class Copilot:
    """The GitHub Copilot sign-in."""

    name = "copilot"
    label = "GitHub Copilot (a Copilot seat)"

    def urls(self, env: Mapping[str, str]) -> dict[str, str]:
        """GitHub (device flow), GitHub's API (the token exchange), and Copilot's API when it
        is moved (else the one the exchange names)."""
        return {
            "github": url_from(env, "COPILOT_GITHUB_BASE_URL", "https://github.com"),
            "github_api": url_from(env, "COPILOT_TOKEN_BASE_URL", "https://api.github.com"),
            "api": url_from(env, "COPILOT_BASE_URL", ""),
        }

    async def refresh(self, entry: Entry, urls: dict[str, str], transport: Transport) -> Entry:
        """A new Copilot token for the kept GitHub token (and the seat's models, once a day)."""
        github = entry.get("refresh")
        if not isinstance(github, str) or not github:
            raise Revoked("the Copilot sign-in holds no GitHub token")
        return await exchange(github, urls, transport, entry)

    async def revoke(self, entry: Entry, urls: dict[str, str], transport: Transport) -> str:
        """Nothing to ask: GitHub revokes an app's user token only for a request signed with the
        app's secret, which a public client has not; the user can, in their settings."""
        return "revoke its GitHub token at https://github.com/settings/applications"

    def prepare(
        self, entry: Entry, headers: dict[str, str], body: dict[str, Any]
    ) -> tuple[dict[str, str], dict[str, Any]]:
        """The Copilot token and identity headers; `x-initiator` says whether a person or the
        agent (a tool loop's next step) sent the request, and a request with images says so."""
        messages = body.get("messages") or [{}]
        last = messages[-1] if isinstance(messages[-1], dict) else {}
        out = headers | HEADERS | {"authorization": f"Bearer {entry['access']}"}
        out |= {
            "x-initiator": "user" if last.get("role") == "user" else "agent",
            "openai-intent": "conversation-edits",
        }
        if any(_has_image(m) for m in messages):
            out["copilot-vision-request"] = "true"
        return out, body


async def device_login(
    urls: dict[str, str], transport: Transport, screen: Screen, sleep: Sleep
) -> Entry:
    """GitHub's device flow, then the Copilot token and the seat's models."""
    github = urls["github"]
    start = await call(
        transport,
        github + "/login/device/code",
        form={"client_id": CLIENT_ID, "scope": "read:user"},
        headers={"user-agent": HEADERS["user-agent"]},
    )
    if not start.ok:
        raise SignInError(f"GitHub refused a device code: {start.reason()}")
    device = text(start.data, "device_code", "GitHub")
    user_code = text(start.data, "user_code", "GitHub")
    where = text(start.data, "verification_uri", "GitHub")
    interval = _number(start.data.get("interval"), 5.0)
    deadline = time.monotonic() + _number(start.data.get("expires_in"), 900.0)
    await screen.say(f"Open {where} and enter the code {user_code}")
    form = {"client_id": CLIENT_ID, "device_code": device, "grant_type": _GRANT}
    async with screen.waiting("waiting for the code to be entered"):
        while True:
            if time.monotonic() + interval > deadline:
                raise SignInError("the device code expired before it was entered")
            await sleep(interval)
            poll = await call(
                transport,
                github + "/login/oauth/access_token",
                form=form,
                headers={"user-agent": HEADERS["user-agent"]},
            )
            token = poll.data.get("access_token")
            if poll.ok and isinstance(token, str) and token:
                break
            error = poll.data.get("error")
            if error == "authorization_pending":
                continue
            if error == "slow_down":  # RFC 8628 §3.5: wait longer from now on
                interval = _number(poll.data.get("interval"), interval + 5.0)
                continue
            raise SignInError(f"GitHub's device sign-in failed: {poll.reason()}")
    return await exchange(token, urls, transport, {})


async def exchange(github: str, urls: dict[str, str], transport: Transport, old: Entry) -> Entry:
    """The entry for a GitHub token: a Copilot token, its API, and the seat's models."""
    answer = await call(
        transport,
        urls["github_api"] + "/copilot_internal/v2/token",
        headers=HEADERS | {"authorization": f"token {github}"},
    )
    if answer.status in (401, 403, 404):
        raise Revoked(f"GitHub refused a Copilot token ({answer.reason()})")
    if not answer.ok:
        raise SignInError(f"GitHub's Copilot token exchange answered {answer.reason()}")
    token = text(answer.data, "token", "GitHub's Copilot token exchange")
    expires = answer.data.get("expires_at")
    endpoints = answer.data.get("endpoints")
    named = endpoints.get("api") if isinstance(endpoints, dict) else None
    api = urls["api"] or (named.rstrip("/") if isinstance(named, str) and named else API)
    entry: Entry = {
        "access": token,
        "refresh": github,
        "expires": float(expires) if isinstance(expires, (int, float)) else time.time() + 1500,
        "api": api,
        **{k: old[k] for k in ("models", "models_at") if k in old},
    }
    if models_stale(entry):
        models = await seat_models(api, token, transport)
        if models is not None:
            entry |= {"models": models, "models_at": time.time()}
    return entry


async def seat_models(api: str, token: str, transport: Transport) -> dict[str, Any] | None:
    """The chat models the seat may use with tools, by id, with their limits (`None` when the
    list could not be had: the kept one stays)."""
    try:
        answer = await call(
            transport, api + "/models", headers=HEADERS | {"authorization": f"Bearer {token}"}
        )
    except SignInError:
        return None
    data = answer.data.get("data")
    if not answer.ok or not isinstance(data, list):
        return None
    models: dict[str, Any] = {}
    for item in data:
        caps = item.get("capabilities") if isinstance(item, dict) else None
        if not isinstance(caps, dict) or caps.get("type") != "chat":
            continue
        if not (caps.get("supports") or {}).get("tool_calls"):
            continue
        if (item.get("policy") or {}).get("state") == "disabled":
            continue
        endpoints = item.get("supported_endpoints")
        if isinstance(endpoints, list) and "/chat/completions" not in endpoints:
            continue  # auger speaks Chat Completions to Copilot
        limits = caps.get("limits") or {}
        entry: dict[str, Any] = {}
        if isinstance(limits.get("max_context_window_tokens"), int):
            entry["context_window"] = limits["max_context_window_tokens"]
        if isinstance(limits.get("max_output_tokens"), int):
            entry["max_output"] = limits["max_output_tokens"]
        if isinstance(item.get("id"), str):
            models.setdefault(item["id"], entry)
    return models


def _has_image(message: object) -> bool:
    content = message.get("content") if isinstance(message, dict) else None
    return isinstance(content, list) and any(
        isinstance(part, dict) and part.get("type") == "image_url" for part in content
    )


def _number(value: object, default: float) -> float:
    return float(value) if isinstance(value, (int, float)) and value >= 0 else default
