"""Stand-ins on 127.0.0.1 for the sign-in endpoints and the models behind them.

`AuthServer` plays OpenAI's ChatGPT sign-in (authorize with PKCE, token with the S256 challenge
recomputed from the verifier, refresh with rotation, the device-code endpoints), GitHub's device
flow (pending, `slow_down`) and Copilot's token exchange and model list; model requests go to a
`StrictServer` and are refused with 401 once their access token is used up, expired, or unknown.
Every broken rule is kept in `violations` and answered as the real server would (400/401).
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from support.server import Reply, Seen
from support.strict import Step, StrictServer

CHATGPT_CLIENT = "app_EMoamEEZ73f0CkXaXp7hrann"
COPILOT_CLIENT = "Iv1.b507a08c87ecfe98"
ACCOUNT = "acct-7"


def s256(verifier: str) -> str:
    """RFC 7636's S256 challenge of `verifier`."""
    digest = hashlib.sha256(verifier.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def jwt(claims: dict[str, Any]) -> str:
    """An unsigned JWT carrying `claims` (the client only reads them)."""
    payload = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    return f"eyJhbGciOiJub25lIn0.{payload}.sig"


def _json(status: int, data: dict[str, Any]) -> Reply:
    return Reply(status, json.dumps(data).encode(), {"content-type": "application/json"})


class AuthServer:
    """The stand-in; `steps` are the model's answers in wire format `api`."""

    def __init__(self, api: str = "responses", steps: list[Step] | None = None) -> None:
        self.model = StrictServer(api, steps or [Step("done")])
        self.violations: list[str] = []
        self.seen: list[tuple[str, str, dict[str, str], dict[str, Any]]] = []
        self.expires_in = 3600
        self.access_uses = 100  # model requests each access token is good for
        self.device_pending = 2  # polls answered "not yet" before a device code is approved
        self.slow_down = False  # GitHub answers one poll with slow_down (interval 1)
        self.polls: list[float] = []
        self._codes: dict[str, tuple[str, str]] = {}  # code -> (challenge, redirect_uri)
        self._refresh: set[str] = set()
        self._access: dict[str, int] = {}
        self._github: set[str] = set()
        self._lock = threading.Lock()
        server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        server.daemon_threads = True
        server.stand_in = self  # type: ignore[attr-defined]
        self._server = server
        self.url = f"http://127.0.0.1:{server.server_address[1]}"
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )
        self._thread.start()

    def env(self) -> dict[str, str]:
        """Every endpoint moved here."""
        return {
            "CHATGPT_AUTH_BASE_URL": self.url,
            "CHATGPT_BASE_URL": self.url + "/backend-api/codex",
            "CHATGPT_CALLBACK_PORT": "0",
            "COPILOT_GITHUB_BASE_URL": self.url,
            "COPILOT_TOKEN_BASE_URL": self.url,
        }

    def revoke(self) -> None:
        """Every refresh token (and GitHub token) stops working, as after a password change."""
        with self._lock:
            self._refresh.clear()
            self._github.clear()

    def tokens(self) -> tuple[str, str]:
        """A fresh (access, refresh) pair, as a sign-in would have left."""
        with self._lock:
            return self._issue()

    def paths(self) -> list[str]:
        """The paths requested, in order."""
        return [path for _, path, _, _ in self.seen]

    def close(self) -> None:
        """Stop serving."""
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()
        self.model.close()

    def __enter__(self) -> AuthServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the endpoints ------------------------------------------------------------------

    def handle(self, method: str, target: str, headers: dict[str, str], raw: bytes) -> Reply:
        url = urlsplit(target)
        form = {k: v[0] for k, v in parse_qs(raw.decode()).items()}
        try:
            body = json.loads(raw) if raw and raw[:1] in b"{[" else {}
        except ValueError:
            body = {}
        with self._lock:
            self.seen.append((method, url.path, headers, body or form))
            route = {
                "/oauth/authorize": lambda: self._authorize(parse_qs(url.query)),
                "/oauth/token": lambda: self._token(form, headers),
                "/oauth/revoke": lambda: self._revoke(body),
                "/api/accounts/deviceauth/usercode": lambda: self._usercode(body),
                "/api/accounts/deviceauth/token": lambda: self._device_token(body),
                "/login/device/code": lambda: self._github_code(form),
                "/login/oauth/access_token": lambda: self._github_token(form),
                "/copilot_internal/v2/token": lambda: self._exchange(headers),
                "/copilot/models": lambda: self._models(headers),
                "/backend-api/codex/models": lambda: self._chatgpt_models(headers),
            }.get(url.path)
            if route is not None:
                return route()
        if url.path in ("/backend-api/codex/responses", "/copilot/chat/completions"):
            return self._model(url.path, headers, body)
        return _json(404, {"error": "not_found"})

    def _refuse(self, status: int, error: str, why: str) -> Reply:
        self.violations.append(why)
        return _json(status, {"error": error, "error_description": why})

    def _issue(self) -> tuple[str, str]:
        access = "at-" + secrets.token_hex(6)
        refresh = "rt-" + secrets.token_hex(6)
        self._access[access] = self.access_uses
        self._refresh.add(refresh)
        return access, refresh

    def _tokens_reply(self) -> Reply:
        access, refresh = self._issue()
        claims = {
            "email": "ada@example.com",
            "https://api.openai.com/auth": {"chatgpt_account_id": ACCOUNT},
        }
        return _json(
            200,
            {
                "access_token": access,
                "refresh_token": refresh,
                "id_token": jwt(claims),
                "expires_in": self.expires_in,
            },
        )

    def _authorize(self, query: dict[str, list[str]]) -> Reply:
        q = {k: v[0] for k, v in query.items()}
        if q.get("client_id") != CHATGPT_CLIENT or q.get("response_type") != "code":
            return self._refuse(400, "invalid_request", "authorize: wrong client or response_type")
        if q.get("code_challenge_method") != "S256" or not q.get("code_challenge"):
            return self._refuse(400, "invalid_request", "authorize: PKCE S256 is required")
        redirect = q.get("redirect_uri", "")
        if not redirect.startswith("http://localhost:") or "offline_access" not in q.get(
            "scope", ""
        ):
            return self._refuse(400, "invalid_request", "authorize: redirect_uri or scope")
        code = "code-" + secrets.token_hex(6)
        self._codes[code] = (q["code_challenge"], redirect)
        location = redirect + "?" + urlencode({"code": code, "state": q.get("state", "")})
        return Reply(302, b"", {"location": location})

    def _token(self, form: dict[str, str], headers: dict[str, str]) -> Reply:
        if "x-www-form-urlencoded" not in headers.get("content-type", ""):
            return self._refuse(400, "invalid_request", "token: the body must be a form")
        if form.get("client_id") != CHATGPT_CLIENT:
            return self._refuse(401, "invalid_client", "token: unknown client")
        grant = form.get("grant_type")
        if grant == "authorization_code":
            found = self._codes.pop(form.get("code", ""), None)
            if found is None:
                return self._refuse(400, "invalid_grant", "token: unknown or used code")
            challenge, redirect = found
            if s256(form.get("code_verifier", "")) != challenge:
                return self._refuse(400, "invalid_grant", "token: code_verifier does not match")
            if form.get("redirect_uri") != redirect:
                return self._refuse(400, "invalid_grant", "token: redirect_uri differs")
            return self._tokens_reply()
        if grant == "refresh_token":
            token = form.get("refresh_token", "")
            if token not in self._refresh:
                # not a violation: the refresh token was revoked, as the test arranged
                return _json(
                    401, {"error": "invalid_grant", "error_description": "refresh token revoked"}
                )
            self._refresh.discard(token)  # rotated: each refresh token works once
            return self._tokens_reply()
        return self._refuse(400, "unsupported_grant_type", f"token: grant {grant!r}")

    def _revoke(self, body: dict[str, Any]) -> Reply:
        if (
            body.get("token_type_hint") != "refresh_token"
            or body.get("client_id") != CHATGPT_CLIENT
        ):
            return self._refuse(400, "invalid_request", "revoke: hint or client")
        self._refresh.discard(str(body.get("token")))
        return _json(200, {})

    def refresh_valid(self, token: str) -> bool:
        """Whether `token` would still be honoured."""
        with self._lock:
            return token in self._refresh

    def _usercode(self, body: dict[str, Any]) -> Reply:
        if body.get("client_id") != CHATGPT_CLIENT:
            return self._refuse(400, "invalid_request", "usercode: unknown client")
        return _json(200, {"device_auth_id": "dev-1", "user_code": "ABCD-1234", "interval": "0"})

    def _device_token(self, body: dict[str, Any]) -> Reply:
        if body != {"device_auth_id": "dev-1", "user_code": "ABCD-1234"}:
            return self._refuse(400, "invalid_request", "deviceauth/token: wrong ids")
        self.polls.append(time.monotonic())
        if self.device_pending > 0:
            self.device_pending -= 1
            return _json(403, {"error": {"message": "pending"}})
        verifier = secrets.token_urlsafe(48)
        code = "code-" + secrets.token_hex(6)
        self._codes[code] = (s256(verifier), self.url + "/deviceauth/callback")
        return _json(
            200,
            {
                "authorization_code": code,
                "code_challenge": s256(verifier),
                "code_verifier": verifier,
            },
        )

    def _github_code(self, form: dict[str, str]) -> Reply:
        if form.get("client_id") != COPILOT_CLIENT:
            return self._refuse(400, "invalid_client", "device/code: unknown client")
        return _json(
            200,
            {
                "device_code": "gh-dev",
                "user_code": "WXYZ-9876",
                "verification_uri": "https://github.com/login/device",
                "expires_in": 900,
                "interval": 0,
            },
        )

    def _github_token(self, form: dict[str, str]) -> Reply:
        want = {
            "client_id": COPILOT_CLIENT,
            "device_code": "gh-dev",
            "grant_type": "urn:ietf:params:oauth:grant-type:device_code",
        }
        if form != want:
            return self._refuse(400, "invalid_request", "access_token: wrong form")
        self.polls.append(time.monotonic())
        if self.slow_down:
            self.slow_down = False
            return _json(200, {"error": "slow_down", "interval": 1})
        if self.device_pending > 0:
            self.device_pending -= 1
            return _json(200, {"error": "authorization_pending"})
        token = "ghu_" + secrets.token_hex(6)
        self._github.add(token)
        return _json(200, {"access_token": token, "token_type": "bearer", "scope": "read:user"})

    def _identity(self, headers: dict[str, str]) -> str | None:
        for name in ("editor-version", "editor-plugin-version", "copilot-integration-id"):
            if not headers.get(name):
                return f"{name} is missing"
        return None

    def _exchange(self, headers: dict[str, str]) -> Reply:
        if problem := self._identity(headers):
            return self._refuse(400, "bad_request", "exchange: " + problem)
        auth = headers.get("authorization", "")
        if not auth.startswith("token ") or auth[6:] not in self._github:
            return _json(401, {"message": "Bad credentials"})
        access = f"tid=1;exp={int(time.time()) + 1500};proxy-ep=x-" + secrets.token_hex(4)
        self._access[access] = self.access_uses
        return _json(
            200,
            {
                "token": access,
                "expires_at": int(time.time()) + self.expires_in,
                "refresh_in": 1500,
                "endpoints": {"api": self.url + "/copilot"},
            },
        )

    def _models(self, headers: dict[str, str]) -> Reply:
        if self._identity(headers) or headers.get("authorization", "")[7:] not in self._access:
            return self._refuse(401, "unauthorized", "models: token or identity")
        chat = {"type": "chat", "supports": {"tool_calls": True, "streaming": True}}
        return _json(
            200,
            {
                "data": [
                    {
                        "id": "seat-model",
                        "capabilities": chat
                        | {
                            "limits": {
                                "max_context_window_tokens": 64000,
                                "max_output_tokens": 8000,
                            }
                        },
                    },
                    {"id": "no-tools", "capabilities": {"type": "chat", "supports": {}}},
                    {
                        "id": "responses-only",
                        "supported_endpoints": ["/responses"],
                        "capabilities": chat,
                    },
                    {"id": "embedder", "capabilities": {"type": "embeddings"}},
                ]
            },
        )

    def _chatgpt_models(self, headers: dict[str, str]) -> Reply:
        token = headers.get("authorization", "").removeprefix("Bearer ")
        if token not in self._access or headers.get("chatgpt-account-id") != ACCOUNT:
            return self._refuse(401, "unauthorized", "codex models: token or account")
        return _json(
            200,
            {
                "models": [
                    {"slug": "gpt-plan", "context_window": 272000, "visibility": "list"},
                    {"slug": "gpt-plan-mini", "visibility": "hide"},
                ]
            },
        )

    def _model(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> Reply:
        with self._lock:
            token = headers.get("authorization", "").removeprefix("Bearer ")
            left = self._access.get(token, 0)
            if left <= 0:
                return _json(
                    401,
                    {
                        "error": {
                            "message": "token expired or invalid",
                            "type": "invalid_request_error",
                        }
                    },
                )
            self._access[token] = left - 1
            problem = None
            if path.startswith("/backend-api"):
                if headers.get("chatgpt-account-id") != ACCOUNT:
                    problem = "chatgpt-account-id is missing"
                elif "max_output_tokens" in body:
                    problem = "Unsupported parameter: max_output_tokens"
            else:
                problem = self._identity(headers)
            if problem:
                self.violations.append(problem)
                return _json(400, {"error": {"message": problem}})
        seen = Seen("POST", path, headers, body)
        return self.model._take(seen)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet."""

    def _serve(self) -> None:
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        headers = {k.lower(): v for k, v in self.headers.items()}
        stand_in: AuthServer = self.server.stand_in  # type: ignore[attr-defined]
        reply = stand_in.handle(self.command, self.path, headers, raw)
        out = {"content-type": "text/event-stream" if reply.status == 200 else "application/json"}
        out |= {k.lower(): v for k, v in reply.headers.items()}
        out["content-length"] = str(len(reply.body))
        out["connection"] = "close"
        self.close_connection = True
        try:
            self.send_response(reply.status)
            for name, value in out.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(reply.body)
        except (BrokenPipeError, ConnectionResetError):
            pass


BROWSER = Path(__file__).with_name("browser.py")


def browser_env() -> dict[str, str]:
    """`BROWSER` set to a stand-in browser that follows the sign-in's redirects."""
    return {"BROWSER": f"{sys.executable} {BROWSER} %s"}
