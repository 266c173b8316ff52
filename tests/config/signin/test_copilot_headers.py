"""What each Copilot request carries besides its token: the identity the token is scoped to,
who initiated it, and whether it holds images."""

from __future__ import annotations

from auger.config.signin.copilot import HEADERS, Copilot

ENTRY = {"access": "tid=1", "refresh": "ghu_1", "expires": 0}


def test_a_person_s_prompt_and_the_agent_s_next_step_are_told_apart() -> None:
    user = {"messages": [{"role": "user", "content": "hi"}]}
    step = {"messages": [*user["messages"], {"role": "tool", "content": "ok"}]}
    assert Copilot().prepare(ENTRY, {}, user)[0]["x-initiator"] == "user"
    headers, body = Copilot().prepare(ENTRY, {"x": "1"}, step)
    assert headers["x-initiator"] == "agent" and body is step
    assert headers["authorization"] == "Bearer tid=1" and headers["x"] == "1"
    assert HEADERS.items() <= headers.items()
    assert "copilot-vision-request" not in headers


def test_a_request_with_an_image_says_so() -> None:
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA=="}}
    body = {"messages": [{"role": "user", "content": [{"type": "text", "text": "?"}, image]}]}
    assert Copilot().prepare(ENTRY, {}, body)[0]["copilot-vision-request"] == "true"
