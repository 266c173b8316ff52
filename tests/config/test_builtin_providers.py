"""Every built-in provider works with nothing but its key set, on its documented URL path."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest

from auger.config.errors import ConfigError
from auger.config.models import ProviderConfig, build_provider, provider_config, resolve_model
from auger.config.providers import BUILTIN
from auger.llm.messages import UserMessage
from auger.llm.provider import PassThrough, Request
from auger.llm.records import Record, TextDone
from support.server import FakeServer, Reply, sse
from support.strict import Step, chat_reply, messages_reply, responses_reply

ENDPOINT = {
    "messages": "/v1/messages",
    "responses": "/responses",
    "gemini": "/models/m:streamGenerateContent?alt=sse",
}
DOCUMENTED = {  # provider -> the documented base URL (the path is what a stand-in must see)
    "anthropic": "https://api.anthropic.com",
    "openai": "https://api.openai.com/v1",
    "google": "https://generativelanguage.googleapis.com/v1beta",
    "google-openai": "https://generativelanguage.googleapis.com/v1beta/openai",
    "bedrock": "https://bedrock-runtime.{region}.amazonaws.com",
    "vertex": "https://aiplatform.googleapis.com/v1",
    "chatgpt": "https://chatgpt.com/backend-api/codex",  # signed in: tests/hosts/test_signin_cli.py
    "copilot": "https://api.githubcopilot.com",
    "openrouter": "https://openrouter.ai/api/v1",
    "deepseek": "https://api.deepseek.com",
    "mistral": "https://api.mistral.ai/v1",
    "xai": "https://api.x.ai/v1",
    "groq": "https://api.groq.com/openai/v1",
    "cerebras": "https://api.cerebras.ai/v1",
    "together": "https://api.together.xyz/v1",
    "fireworks": "https://api.fireworks.ai/inference/v1",
    "azure": "https://YOUR-RESOURCE.openai.azure.com/openai/v1",
    "ollama": "http://localhost:11434/v1",
    "lmstudio": "http://localhost:1234/v1",
    "vllm": "http://localhost:8000/v1",
    "llama.cpp": "http://localhost:8080/v1",
    "local": "~/.auger/models",  # not a server: the folder of named GGUFs (tests/llm/test_local.py)
}
# the clouds sign each request with their own credentials: tests/llm/test_bedrock.py, test_vertex.py
CLOUDS = {"bedrock", "vertex"}
HTTP = sorted(
    n
    for n, row in BUILTIN.items()
    if row["api"] != "llamacpp" and n not in CLOUDS and not row.get("signin")
)


def _reply(api: str) -> bytes:
    step = Step("hi")
    if api == "messages":
        return messages_reply(step, "t", "sig", 1)
    if api == "responses":
        return responses_reply(step, "t", "gAAAA", 1)
    if api == "gemini":
        return sse(
            {"candidates": [{"content": {"parts": [{"text": "hi"}]}, "finishReason": "STOP"}]}
        )
    return chat_reply(step, "t", None, 1)


async def ask(config: ProviderConfig, model: str) -> list[Record]:
    """Stream one prompt from the provider `config` describes."""
    provider = build_provider(config)
    request = Request(resolve_model(model, config), "", (UserMessage.of("hi"),))
    try:
        return [r async for r in provider.stream(request, PassThrough())]
    finally:
        await provider.aclose()


def test_every_builtin_is_documented_here() -> None:
    assert set(BUILTIN) == set(DOCUMENTED)
    for name, row in BUILTIN.items():
        assert row.get("base_url", row.get("base_url_hint")) == DOCUMENTED[name]


@pytest.mark.parametrize("name", HTTP)
async def test_a_builtin_provider_needs_only_its_key(name: str) -> None:
    row = BUILTIN[name]
    prefix = urlparse(DOCUMENTED[name]).path
    with FakeServer() as server:
        server.queue(Reply(body=_reply(row["api"])))
        env = {row["base_url_env"]: server.url + prefix}
        if "api_key_env" in row:
            env[row["api_key_env"]] = "sk-only-this"
        records = await ask(provider_config(name, env, {}), f"{name}/m")
        seen = server.requests[0]
    assert TextDone("hi") in records
    assert seen.path == prefix.rstrip("/") + ENDPOINT.get(row["api"], "/chat/completions")
    if "api_key_env" in row:
        sent = seen.headers.get("x-api-key") or seen.headers.get("api-key")
        sent = sent or seen.headers.get("x-goog-api-key")
        sent = sent or seen.headers["authorization"].removeprefix("Bearer ")
        assert sent == "sk-only-this"
    else:
        assert "authorization" not in seen.headers


@pytest.mark.parametrize("name", sorted(n for n, r in BUILTIN.items() if "api_key_env" in r))
def test_a_builtin_provider_without_its_key_names_the_variable(name: str) -> None:
    row = BUILTIN[name]
    env = {row["base_url_env"]: "http://127.0.0.1:9/v1"}
    with pytest.raises(ConfigError, match=f"set {row['api_key_env']}"):
        build_provider(provider_config(name, env, {}))


def test_azure_without_a_resource_url_says_what_to_set() -> None:
    with pytest.raises(ConfigError) as err:
        provider_config("azure", {"AZURE_OPENAI_API_KEY": "k"}, {})
    assert str(err.value) == (
        "provider 'azure' has no base URL — set AZURE_OPENAI_BASE_URL "
        "(e.g. https://YOUR-RESOURCE.openai.azure.com/openai/v1), or AZURE_OPENAI_ENDPOINT, "
        'or AZURE_OPENAI_RESOURCE_NAME or set "base_url" in settings "providers.azure"'
    )


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("AZURE_OPENAI_RESOURCE_NAME", "my-res"),
        ("AZURE_OPENAI_ENDPOINT", "https://my-res.openai.azure.com/"),
    ],
)
def test_azure_takes_its_resource_as_its_sdks_do(variable: str, value: str) -> None:
    config = provider_config("azure", {"AZURE_OPENAI_API_KEY": "k", variable: value}, {})
    assert config.base_url == "https://my-res.openai.azure.com/openai/v1"


def test_an_azure_resource_name_cannot_be_a_url() -> None:
    env = {"AZURE_OPENAI_API_KEY": "k", "AZURE_OPENAI_RESOURCE_NAME": "evil.example/x?"}
    with pytest.raises(ConfigError, match="AZURE_OPENAI_RESOURCE_NAME is not a resource name"):
        provider_config("azure", env, {})


async def test_azure_requests_go_to_the_v1_path_of_its_endpoint() -> None:
    with FakeServer() as server:
        server.queue(Reply(body=_reply("chat-completions")))
        env = {"AZURE_OPENAI_API_KEY": "sk-az", "AZURE_OPENAI_ENDPOINT": server.url}
        await ask(provider_config("azure", env, {}), "azure/my-deployment")
        seen = server.requests[0]
    assert seen.path == "/openai/v1/chat/completions"
    assert seen.headers["api-key"] == "sk-az" and "max_completion_tokens" in seen.body


async def test_openai_moved_to_chat_completions_sends_max_completion_tokens() -> None:
    settings = {"providers": {"openai": {"api": "chat-completions"}}}
    with FakeServer() as server:
        server.queue(Reply(body=_reply("chat-completions")))
        env = {"OPENAI_API_KEY": "sk-o", "OPENAI_BASE_URL": server.url + "/v1"}
        await ask(provider_config("openai", env, settings), "openai/gpt-6.2-sol")
        body = server.requests[0].body
    assert body["max_completion_tokens"] == 128_000 and "max_tokens" not in body
