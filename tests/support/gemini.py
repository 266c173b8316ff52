"""A stand-in for the native Gemini API on 127.0.0.1 that enforces its documented rules.

`GeminiServer(steps)` answers each `streamGenerateContent?alt=sse` request with the next step —
a text, one function call, or a tuple of steps called in parallel — as Gemini 3 streams it: a
thought summary, then the answer, a thought signature on the first function call (or on the
last part of a text answer), and cumulative `usageMetadata`. Before answering it checks what
https://ai.google.dev/gemini-api/docs/thought-signatures requires, answering 400 otherwise:

- every step of the current turn (the model contents after the last user text) has, on its
  first `functionCall` part, a signature this server issued (or the documented sentinel that
  skips the check, for calls another model made);
- each model content of function calls is followed by a user content with exactly as many
  `functionResponse` parts, named like the calls;
- the key comes in `x-goog-api-key` (unless `key` is `None`: Vertex checks a bearer) and
  the path is `/models/M:streamGenerateContent?alt=sse`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from support.server import FakeServer, Reply, Seen, sse
from support.strict import Step

GeminiStep = Step | tuple[Step, ...]
SKIP = "skip_thought_signature_validator"  # the documented way to replay another model's calls
PATH = re.compile(r"^(?P<prefix>.*)/models/(?P<model>[^/:]+):streamGenerateContent\?alt=sse$")


def _error(status: int, message: str, kind: str = "INVALID_ARGUMENT") -> Reply:
    body = {"error": {"code": status, "message": message, "status": kind}}
    return Reply(status, json.dumps(body).encode())


class GeminiServer(FakeServer):
    """Plays `steps` as the native Gemini API, refusing requests that break its rules."""

    def __init__(self, steps: list[GeminiStep], *, key: str | None = "gm-local-test") -> None:
        super().__init__()
        self.steps = list(steps)
        self.key = key
        self.violations: list[str] = []
        self.issued: set[str] = set()
        self.returned: list[int] = []  # per request, how many issued signatures came back
        self._served = 0

    def _take(self, seen: Seen) -> Reply:
        with self._lock:
            self.requests.append(seen)
            if self.key is not None and seen.headers.get("x-goog-api-key") != self.key:
                return _error(403, "API key not valid. Please pass a valid API key.", "PERMISSION")
            if not PATH.match(seen.path):
                return _error(404, f"no such method: {seen.path}", "NOT_FOUND")
            problem = self.check(seen.body)
            if problem:
                self.violations.append(problem)
                return _error(400, problem)
            step = self.steps[self._served] if self._served < len(self.steps) else Step("done")
            self._served += 1
            return Reply(body=self.render(step))

    def check(self, body: dict[str, Any]) -> str | None:
        """The first rule `body` breaks, or `None`."""
        contents = body.get("contents") or []
        start = 0  # the current turn begins after the last user content holding text
        for i, content in enumerate(contents):
            if content["role"] == "user" and any("text" in p for p in content["parts"]):
                start = i + 1
        back = 0
        for i, content in enumerate(contents):
            parts = content["parts"]
            back += sum(p.get("thoughtSignature") in self.issued for p in parts)
            calls = [p["functionCall"] for p in parts if "functionCall" in p]
            if content["role"] != "model" or not calls:
                continue
            if any(not isinstance(c.get("args"), dict) for c in calls):
                return "Invalid JSON payload: functionCall.args must be an object"
            first = next(p for p in parts if "functionCall" in p)
            signature = first.get("thoughtSignature")
            if i >= start and signature not in self.issued and signature != SKIP:
                return (
                    "Function call is missing a thought_signature in functionCall parts. "
                    "This is required for tools to work correctly."
                )
            answer = contents[i + 1]["parts"] if i + 1 < len(contents) else []
            names = [p["functionResponse"]["name"] for p in answer if "functionResponse" in p]
            if names != [c["name"] for c in calls]:
                return (
                    "Please ensure that the number of function response parts is equal to "
                    "the number of function call parts of the function call turn."
                )
        self.returned.append(back)
        return None

    def render(self, step: GeminiStep) -> bytes:
        """`step` as a streamed `streamGenerateContent` answer."""
        n = len(self.requests)
        signature = f"c2lnbmF0dXJl{n}"
        self.issued.add(signature)
        thought = {"text": f"Thinking {n}.", "thought": True}
        chunks = [_chunk([thought], n)]
        calls = step if isinstance(step, tuple) else (step,) if step.tool else ()
        if calls:
            parts = [
                {"functionCall": {"name": c.tool, "args": json.loads(c.arguments)}} for c in calls
            ]
            parts[0]["thoughtSignature"] = signature  # parallel calls: on the first one only
            chunks.append(_chunk(parts, n, "STOP"))
        else:
            assert isinstance(step, Step)
            half = len(step.text) // 2
            chunks += [
                _chunk([{"text": step.text[:half]}], n),
                _chunk([{"text": step.text[half:]}], n),
            ]
            chunks.append(_chunk([{"text": "", "thoughtSignature": signature}], n, "STOP"))
        return sse(*chunks)


def _chunk(parts: list[dict[str, Any]], n: int, finish: str | None = None) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    usage = {
        "promptTokenCount": 100 + n,
        "cachedContentTokenCount": 64,
        "candidatesTokenCount": 7,
        "thoughtsTokenCount": 5,
        "totalTokenCount": 112 + n,
    }
    return {"candidates": [candidate], "usageMetadata": usage, "modelVersion": "gemini-test"}
