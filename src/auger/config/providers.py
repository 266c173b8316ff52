"""The built-in providers: rows of settings over the wire-format table (`auger.llm.formats`).

Each row is what a user would otherwise write under `"providers"` in settings.json: the wire
format, the documented base URL, the key variable the provider's own SDKs read, and the variable
that moves the base URL (a proxy, or a test's local server). Settings merge over a row.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from auger.config.errors import ConfigError

_LOCAL = "no key: a server on this machine"
# small local models often write their calls as text the server does not parse
_LOCAL_COMPAT: dict[str, Any] = {"tool_call_fallback": True}
_OWN_NETWORK: dict[str, dict[str, Any]] = {"chat-completions": _LOCAL_COMPAT}
"""What a wire format's compat defaults to for a server on the user's own machine or network."""

BUILTIN: dict[str, dict[str, Any]] = {
    "anthropic": {
        "api": "messages",
        "base_url": "https://api.anthropic.com",
        "api_key_env": "ANTHROPIC_API_KEY",
        "base_url_env": "ANTHROPIC_BASE_URL",
    },
    "openai": {
        "api": "responses",
        "base_url": "https://api.openai.com/v1",
        "api_key_env": "OPENAI_API_KEY",
        "base_url_env": "OPENAI_BASE_URL",
        # moved to Chat Completions in settings: its reasoning models refuse `max_tokens`
        "compat_for": {"chat-completions": {"max_tokens_field": "max_completion_tokens"}},
    },
    "google": {  # the native Gemini API
        "api": "gemini",
        "base_url": "https://generativelanguage.googleapis.com/v1beta",
        "api_key_env": "GEMINI_API_KEY",
        "base_url_env": "GEMINI_BASE_URL",
    },
    "google-openai": {  # Gemini's OpenAI-compatible endpoint
        "api": "chat-completions",
        "base_url": "https://generativelanguage.googleapis.com/v1beta/openai",
        "api_key_env": "GEMINI_API_KEY",
        "base_url_env": "GEMINI_OPENAI_BASE_URL",
    },
    "bedrock": {  # Claude on Amazon Bedrock: AWS credentials and region (auger[bedrock])
        "api": "bedrock",
        "base_url": "https://bedrock-runtime.{region}.amazonaws.com",  # the profile's region
        "base_url_env": "BEDROCK_BASE_URL",
        "sign_in": "AWS credentials, as the AWS CLI finds them: `aws configure`, AWS_PROFILE, "
        "`aws sso login`, or a container or instance role",
        "base_url_from": {
            "AWS_REGION": "https://bedrock-runtime.{}.amazonaws.com",
            "AWS_DEFAULT_REGION": "https://bedrock-runtime.{}.amazonaws.com",
        },
    },
    "vertex": {  # Claude and Gemini on Google Vertex AI: Application Default Credentials
        "api": "vertex",
        "base_url": "https://aiplatform.googleapis.com/v1",  # the global location
        "base_url_env": "VERTEX_BASE_URL",
        "sign_in": "Application Default Credentials: `gcloud auth application-default login`, "
        "GOOGLE_APPLICATION_CREDENTIALS, or a VM's service account",
        "base_url_from": {
            "GOOGLE_CLOUD_LOCATION": "https://{}-aiplatform.googleapis.com/v1",
            "CLOUD_ML_REGION": "https://{}-aiplatform.googleapis.com/v1",
        },
    },
    "chatgpt": {  # a ChatGPT plan, signed in (auger login chatgpt): Codex's Responses endpoint
        "api": "responses",
        "base_url": "https://chatgpt.com/backend-api/codex",
        "base_url_env": "CHATGPT_BASE_URL",
        "signin": "chatgpt",
        "headers": {"originator": "auger", "openai-beta": "responses=experimental"},
    },
    "copilot": {  # a GitHub Copilot seat, signed in (auger login copilot)
        "api": "chat-completions",
        "base_url": "https://api.githubcopilot.com",  # or the API the token exchange names
        "base_url_env": "COPILOT_BASE_URL",
        "signin": "copilot",
    },
    "openrouter": {
        "api": "chat-completions",
        "base_url": "https://openrouter.ai/api/v1",
        "api_key_env": "OPENROUTER_API_KEY",
        "base_url_env": "OPENROUTER_BASE_URL",
    },
    "deepseek": {
        "api": "chat-completions",
        "base_url": "https://api.deepseek.com",
        "api_key_env": "DEEPSEEK_API_KEY",
        "base_url_env": "DEEPSEEK_BASE_URL",
        "compat": {"reasoning_content": True},
    },
    "mistral": {
        "api": "chat-completions",
        "base_url": "https://api.mistral.ai/v1",
        "api_key_env": "MISTRAL_API_KEY",
        "base_url_env": "MISTRAL_BASE_URL",
        "compat": {"tool_call_ids": "mistral"},
    },
    "xai": {
        "api": "chat-completions",
        "base_url": "https://api.x.ai/v1",
        "api_key_env": "XAI_API_KEY",
        "base_url_env": "XAI_BASE_URL",
    },
    "groq": {
        "api": "chat-completions",
        "base_url": "https://api.groq.com/openai/v1",
        "api_key_env": "GROQ_API_KEY",
        "base_url_env": "GROQ_BASE_URL",
        "compat": {"max_tokens_field": "max_completion_tokens"},
    },
    "cerebras": {
        "api": "chat-completions",
        "base_url": "https://api.cerebras.ai/v1",
        "api_key_env": "CEREBRAS_API_KEY",
        "base_url_env": "CEREBRAS_BASE_URL",
        "compat": {"max_tokens_field": "max_completion_tokens"},
    },
    "together": {
        "api": "chat-completions",
        "base_url": "https://api.together.xyz/v1",
        "api_key_env": "TOGETHER_API_KEY",
        "base_url_env": "TOGETHER_BASE_URL",
    },
    "fireworks": {
        "api": "chat-completions",
        "base_url": "https://api.fireworks.ai/inference/v1",
        "api_key_env": "FIREWORKS_API_KEY",
        "base_url_env": "FIREWORKS_BASE_URL",
    },
    "azure": {  # the v1 API: https://RESOURCE.openai.azure.com/openai/v1, no api-version
        "api": "chat-completions",
        "api_key_env": "AZURE_OPENAI_API_KEY",
        "base_url_env": "AZURE_OPENAI_BASE_URL",
        "base_url_hint": "https://YOUR-RESOURCE.openai.azure.com/openai/v1",
        # what the OpenAI SDK's AzureOpenAI and the AI SDK read, when the whole URL is not set
        "base_url_from": {
            "AZURE_OPENAI_ENDPOINT": "{}/openai/v1",
            "AZURE_OPENAI_RESOURCE_NAME": "https://{}.openai.azure.com/openai/v1",
        },
        "compat": {"max_tokens_field": "max_completion_tokens", "auth": "api-key"},
    },
    "ollama": {
        "api": "chat-completions",
        "base_url": "http://localhost:11434/v1",
        "base_url_env": "OLLAMA_BASE_URL",
        "compat": _LOCAL_COMPAT,
    },
    "lmstudio": {
        "api": "chat-completions",
        "base_url": "http://localhost:1234/v1",
        "base_url_env": "LMSTUDIO_BASE_URL",
        "compat": _LOCAL_COMPAT,
    },
    "vllm": {
        "api": "chat-completions",
        "base_url": "http://localhost:8000/v1",
        "base_url_env": "VLLM_BASE_URL",
        "compat": _LOCAL_COMPAT,
    },
    "local": {  # llama.cpp in-process (auger[local]): --model local/PATH.gguf
        "api": "llamacpp",
        "base_url": "~/.auger/models",  # where a bare file name is looked for
        "model_defaults": {"context_window": 8192, "max_output": 2048},
    },
    "llama.cpp": {
        "api": "chat-completions",
        "base_url": "http://localhost:8080/v1",
        "base_url_env": "LLAMA_CPP_BASE_URL",
        "compat": {**_LOCAL_COMPAT, "reasoning_content": True},
    },
}


def on_own_network(base_url: str) -> bool:
    """Whether `base_url` names this machine or a private network (a server the user runs)."""
    try:
        host = urlsplit(base_url).hostname or ""
    except ValueError:
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private


def with_local_defaults(api: str, base_url: str, compat: dict[str, Any]) -> dict[str, Any]:
    """`compat` for a provider at `base_url`: a Chat Completions server on the user's own
    machine or network most likely runs a small model, which writes its calls as text, so the
    text-call fallback is on unless settings say otherwise."""
    return {**_OWN_NETWORK.get(api, {}), **compat} if on_own_network(base_url) else compat


def key_hint(row: dict[str, Any]) -> str:
    """What a provider needs to be used: its key variable, a sign-in, or that it needs none."""
    if row.get("signin"):
        return f"sign in: auger login {row['signin']}"
    return str(row.get("api_key_env") or row.get("sign_in") or _LOCAL)


def key_variable(provider: str, settings: Mapping[str, Any]) -> str:
    """The variable that holds `provider`'s API key (built in, or declared in settings).

    Raises `ConfigError` for an unknown provider and for one that needs no key.
    """
    declared = settings.get("providers")
    own = declared.get(provider) if isinstance(declared, dict) else None
    row = {**BUILTIN.get(provider, {}), **(own if isinstance(own, dict) else {})}
    if not row:
        raise ConfigError(f"unknown provider {provider!r} — one of {', '.join(sorted(BUILTIN))}")
    env_var = row.get("api_key_env")
    if not env_var:
        raise ConfigError(f"{provider} needs no key ({key_hint(row)})")
    return str(env_var)


def keyed_providers() -> list[str]:
    """The built-in providers that take an API key, by name."""
    return sorted(name for name, row in BUILTIN.items() if row.get("api_key_env"))
