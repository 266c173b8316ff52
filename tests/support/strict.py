"""A stand-in provider on 127.0.0.1 that enforces the documented request rules of each format.

`StrictServer(api, steps, rules=…)` answers each request with the next step — a tool call or a
text — in the wire format `api`, always with the reasoning that format's providers attach
(a signed `thinking` block, an encrypted `reasoning` item, DeepSeek's `reasoning_content`,
Gemini's thought signature), and checks every request first; a broken rule is answered with
HTTP 400 naming it (and kept in `violations`), as the real server would:

- every format: tool-call arguments in history are a JSON object (llama.cpp answers 500 forever);
- `messages`: a thinking signature is one this server issued, sent after the very prefix (system,
  tools, earlier messages) it was issued for; with thinking on, an assistant turn that called
  tools and is being continued opens with its thinking block;
- `responses`: encrypted reasoning is one this server issued; `max_output_tokens`, never
  `max_tokens`;
- every format: tool-call ids in history are unique, and each result answers one of them;
- `messages` with rule `adaptive-only`: `thinking.type` is never `enabled` (Claude Opus 4.7 and
  the Claude 5 family refuse it);
- `responses` with rule `phase`: every assistant message goes back with the `phase` it came
  with (https://platform.openai.com/docs/api-reference/responses/object);
- `chat-completions` with rule `deepseek`: assistant tool-call messages carry `reasoning_content`,
  the very text issued with those calls, empty when there was none or another server wrote them
  (https://api-docs.deepseek.com/guides/thinking_mode);
  `gemini`: each tool call carries the `thought_signature` issued for it; `openai`:
  `max_completion_tokens`, never `max_tokens`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from support.server import FakeServer, Reply, Seen, sse


@dataclass(frozen=True)
class Step:
    """One answer: `calls` tool calls (`tool` + raw `arguments`, each with the same id when
    `same_id`) or, without `tool`, `text`; `think=False` answers without reasoning."""

    text: str = ""
    tool: str | None = None
    arguments: str = "{}"
    calls: int = 1
    same_id: bool = False
    think: bool = True

    def call_ids(self, prefix: str, n: int) -> list[str]:
        """The ids of this step's calls in request `n`."""
        if self.same_id or self.calls == 1:
            return [f"{prefix}{n}"] * self.calls
        return [f"{prefix}{n}_{i}" for i in range(self.calls)]


def _plain(value: Any) -> Any:
    # cache breakpoints move from request to request: not part of what the model saw
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(_plain(value), sort_keys=True).encode()).hexdigest()[:16]


def _error(message: str) -> Reply:
    body = {"error": {"type": "invalid_request_error", "message": message}}
    return Reply(400, json.dumps(body).encode())


class StrictServer(FakeServer):
    """Plays `steps` in wire format `api`, refusing requests that break its rules."""

    def __init__(self, api: str, steps: list[Step], *, rules: str = "") -> None:
        super().__init__()
        self.api = api
        self.rules = rules
        self.steps = list(steps)
        self.violations: list[str] = []
        self.issued: dict[str, str] = {}  # signature or token -> the prefix digest it is bound to
        self.returned: list[int] = []  # per request, how many issued reasonings came back
        self.thoughts: dict[str, str] = {}  # tool-call id -> the reasoning issued with it
        self.phases: dict[str, str] = {}  # assistant text -> the phase issued with it
        self._served = 0

    def _take(self, seen: Seen) -> Reply:
        with self._lock:
            self.requests.append(seen)
            problem = self.check(seen.body)
            if problem:
                self.violations.append(problem)
                return _error(problem)
            step = self.steps[self._served] if self._served < len(self.steps) else Step("done")
            self._served += 1
            return Reply(body=self.render(seen.body, step))

    # --- rules ----------------------------------------------------------------------------

    def check(self, body: dict[str, Any]) -> str | None:
        """The first rule `body` breaks, or `None`."""
        problem = _ids(self.api, body)
        if problem:
            return problem
        return {"messages": self._messages, "responses": self._responses}.get(self.api, self._chat)(
            body
        )

    def _messages(self, body: dict[str, Any]) -> str | None:
        messages = body.get("messages") or []
        if self.rules == "adaptive-only" and (body.get("thinking") or {}).get("type") == "enabled":
            return (
                '"thinking.type.enabled" is not supported for this model. Use '
                '"thinking.type.adaptive" and "output_config.effort" to control thinking behavior.'
            )
        back = 0
        for i, turn in enumerate(messages):
            if turn["role"] != "assistant":
                continue
            prefix = _digest([body.get("system"), body.get("tools"), messages[:i]])
            for block in turn["content"]:
                if block["type"] == "tool_use" and not isinstance(block.get("input"), dict):
                    return "tool_use.input: Input should be a valid dictionary"
                if block["type"] == "thinking":
                    bound = self.issued.get(block.get("signature", ""))
                    if bound is None:
                        return "Invalid `signature` in `thinking` block"
                    if bound != prefix:
                        return "thinking block signature does not match the request prefix"
                    back += 1
        last = messages[-2] if len(messages) >= 2 else None
        if body.get("thinking") and last and last["role"] == "assistant":
            calls = any(b["type"] == "tool_use" for b in last["content"])
            if calls and last["content"][0]["type"] not in ("thinking", "redacted_thinking"):
                return "Expected `thinking` or `redacted_thinking`, but found `tool_use`"
        self.returned.append(back)
        return None

    def _responses(self, body: dict[str, Any]) -> str | None:
        if "max_tokens" in body:
            return "Unsupported parameter: 'max_tokens'"
        back = 0
        for item in body.get("input") or []:
            if item.get("type") == "function_call" and not _is_object(item.get("arguments")):
                return "function_call.arguments: invalid JSON"
            if item.get("type") == "reasoning":
                if item.get("encrypted_content") not in self.issued:
                    return "The encrypted content could not be verified"
                back += 1
            if self.rules == "phase" and item.get("role") == "assistant":
                text = "".join(c.get("text", "") for c in item.get("content") or [])
                if item.get("phase") != self.phases.get(text, item.get("phase")):
                    return f"assistant message {text[:40]!r} lost its phase"
        self.returned.append(back)
        return None

    def _chat(self, body: dict[str, Any]) -> str | None:
        if self.rules == "openai" and "max_tokens" in body:
            return "Unsupported parameter: 'max_tokens' is not supported with this model"
        back = 0
        for message in body.get("messages") or []:
            calls = message.get("tool_calls") or []
            for call in calls:
                if not _is_object(call["function"]["arguments"]):
                    return "Failed to parse tool call arguments as JSON"  # llama.cpp, HTTP 500
                if self.rules == "gemini":
                    signature = ((call.get("extra_content") or {}).get("google") or {}).get(
                        "thought_signature"
                    )
                    if signature not in self.issued:
                        return "Function call is missing a thought_signature"
                    back += 1
            if calls and self.rules == "deepseek":
                sent = message.get("reasoning_content")
                if not isinstance(sent, str):
                    return "The `reasoning_content` in the thinking mode must be passed back"
                if sent != self.thoughts.get(calls[0]["id"], ""):
                    return (
                        "The `reasoning_content` does not match the one returned with the tool call"
                    )
                back += bool(sent)
        self.returned.append(back)
        return None

    # --- answers --------------------------------------------------------------------------

    def render(self, body: dict[str, Any], step: Step) -> bytes:
        """`step` as a streamed response of this server's format."""
        n = len(self.requests)
        if self.api == "messages":
            messages = body.get("messages") or []
            prefix = _digest([body.get("system"), body.get("tools"), messages])
            signature = f"sig{n}-{prefix}"
            self.issued[signature] = prefix
            return messages_reply(step, f"Thinking {n}.", signature, n)
        if self.api == "responses":
            token = f"gAAAA{n}"
            self.issued[token] = ""
            if self.rules == "phase" and step.text:
                self.phases[step.text] = "commentary" if step.tool else "final_answer"
            return responses_reply(step, f"Thinking {n}.", token, n, phased=self.rules == "phase")
        thought = f"Thinking {n}." if step.think else ""
        self.issued[thought] = ""
        self.issued[f"ts{n}"] = ""
        for call_id in step.call_ids("call_", n):
            self.thoughts.setdefault(call_id, thought)
        return chat_reply(step, thought, f"ts{n}" if self.rules == "gemini" else None, n)


def _ids(api: str, body: dict[str, Any]) -> str | None:
    """Whether the tool-call ids of a history are unique and every result answers one."""
    calls: list[str] = []
    results: list[str] = []
    if api == "messages":
        for turn in body.get("messages") or []:
            for block in turn["content"] if isinstance(turn["content"], list) else []:
                if block["type"] == "tool_use":
                    calls.append(block["id"])
                elif block["type"] == "tool_result":
                    results.append(block["tool_use_id"])
    elif api == "responses":
        for item in body.get("input") or []:
            if item.get("type") == "function_call":
                calls.append(item["call_id"])
            elif item.get("type") == "function_call_output":
                results.append(item["call_id"])
    else:
        for message in body.get("messages") or []:
            calls += [c["id"] for c in message.get("tool_calls") or []]
            if message["role"] == "tool":
                results.append(message["tool_call_id"])
    if len(set(calls)) != len(calls):
        return "tool call ids must be unique"
    if len(set(results)) != len(results) or not set(results) <= set(calls):
        return "each tool result must answer exactly one tool call"
    return None


def _is_object(raw: Any) -> bool:
    try:
        return isinstance(json.loads(raw), dict)
    except (TypeError, ValueError):
        return False


def messages_reply(step: Step, thinking: str, signature: str, n: int) -> bytes:
    """A Messages stream: a signed thinking block, then the text or the tool call."""
    blocks: list[tuple[str, dict[str, Any]]] = [
        _block(0, {"type": "thinking", "thinking": "", "signature": ""}),
        _delta(0, {"type": "thinking_delta", "thinking": thinking}),
        _delta(0, {"type": "signature_delta", "signature": signature}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
    ]
    if step.tool:
        for i, call_id in enumerate(step.call_ids("toolu_", n), start=1):
            start = {"type": "tool_use", "id": call_id, "name": step.tool, "input": {}}
            blocks += [
                _block(i, start),
                _delta(i, {"type": "input_json_delta", "partial_json": step.arguments}),
                ("content_block_stop", {"type": "content_block_stop", "index": i}),
            ]
    else:
        blocks += [
            _block(1, {"type": "text", "text": ""}),
            _delta(1, {"type": "text_delta", "text": step.text}),
            ("content_block_stop", {"type": "content_block_stop", "index": 1}),
        ]
    message = {"id": f"msg_{n}", "type": "message", "role": "assistant", "content": []}
    message |= {"model": "m", "usage": {"input_tokens": 10, "output_tokens": 1}}
    stop = "tool_use" if step.tool else "end_turn"
    return sse(
        ("message_start", {"type": "message_start", "message": message}),
        *blocks,
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop},
                "usage": {"output_tokens": 5},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    )


def _block(index: int, block: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return "content_block_start", {
        "type": "content_block_start",
        "index": index,
        "content_block": block,
    }


def _delta(index: int, delta: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}


def responses_reply(step: Step, summary: str, token: str, n: int, *, phased: bool = False) -> bytes:
    """A Responses stream: an encrypted reasoning item, then the text or the function calls (a
    step's text before them); with `phased`, messages carry their `phase`."""
    reasoning = {"id": f"rs_{n}", "type": "reasoning", "summary": []}
    events: list[tuple[str, dict[str, Any]]] = [
        _ev("response.output_item.added", output_index=0, item=reasoning),
        _ev("response.reasoning_summary_part.added", output_index=0, summary_index=0),
        _ev("response.reasoning_summary_text.delta", output_index=0, delta=summary),
        _ev(
            "response.output_item.done",
            output_index=0,
            item=reasoning | {"encrypted_content": token},
        ),
    ]
    index = 1
    if step.text:
        message: dict[str, Any] = {"type": "message", "id": f"msg_{n}", "role": "assistant"}
        if phased:
            message["phase"] = "commentary" if step.tool else "final_answer"
        events += [
            _ev("response.output_item.added", output_index=index, item=message | {"content": []}),
            _ev("response.output_text.delta", output_index=index, delta=step.text),
            _ev("response.output_text.done", output_index=index, text=step.text),
        ]
        index += 1
    for i, call_id in enumerate(step.call_ids("call_", n) if step.tool else []):
        call = {"type": "function_call", "id": f"fc_{n}_{i}", "call_id": call_id, "name": step.tool}
        events += [
            _ev("response.output_item.added", output_index=index, item=call | {"arguments": ""}),
            _ev("response.function_call_arguments.delta", output_index=index, delta=step.arguments),
            _ev(
                "response.output_item.done",
                output_index=index,
                item=call | {"arguments": step.arguments},
            ),
        ]
        index += 1
    usage = {"input_tokens": 10, "output_tokens": 5, "input_tokens_details": {"cached_tokens": 0}}
    events.append(_ev("response.completed", response={"status": "completed", "usage": usage}))
    return sse(*events)


def _ev(kind: str, **fields: Any) -> tuple[str, dict[str, Any]]:
    return kind, {"type": kind, **fields}


def chat_reply(step: Step, thought: str, signature: str | None, n: int) -> bytes:
    """A Chat Completions stream: `reasoning_content`, then the text or the tool call."""
    first: dict[str, Any] = {"role": "assistant"} | (
        {"reasoning_content": thought} if thought else {}
    )
    chunks: list[dict[str, Any]] = [_chunk(first)]
    if step.tool:
        for i, call_id in enumerate(step.call_ids("call_", n)):
            call: dict[str, Any] = {
                "index": i,
                "id": call_id,
                "type": "function",
                "function": {"name": step.tool, "arguments": step.arguments},
            }
            if signature:
                call["extra_content"] = {"google": {"thought_signature": signature}}
            chunks.append(_chunk({"tool_calls": [call]}))
        chunks.append(_chunk({}, "tool_calls"))
    else:
        chunks += [_chunk({"content": step.text}), _chunk({}, "stop")]
    usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    chunks.append({"id": "c", "object": "chat.completion.chunk", "choices": [], "usage": usage})
    return sse(*chunks, done=True)


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return {"id": "c", "object": "chat.completion.chunk", "model": "m", "choices": [choice]}
