"""Google Vertex AI: Claude through streamRawPredict and Gemini through streamGenerateContent,
with a bearer token from a fake `authorized_user` ADC file refreshed against a stand-in of
Google's token endpoint (over TLS, through `HTTPS_PROXY`), driving tool loops through
`auger -p --json`.

- https://docs.cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude/use-claude
- https://docs.cloud.google.com/vertex-ai/generative-ai/docs/reference/rest/v1/projects.locations.publishers.models/streamGenerateContent
- https://docs.cloud.google.com/docs/authentication/application-default-credentials
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from auger.config.models import provider_config
from auger.llm.transport import HttpTransport
from auger.llm.vertex import GoogleAccount, located
from support.cli import Project, json_lines
from support.gemini import GeminiStep
from support.strict import Step
from support.vertex import TokenServer, TunnelProxy, VertexServer, write_adc

trustme = pytest.importorskip("trustme")
pytest.importorskip("google.auth")

CLAUDE = "claude-sonnet-4-5@20250929"
LOOP = [
    Step(tool="read", arguments='{"path": "notes.txt"}'),
    Step(tool="read", arguments='{"path": "notes.txt"'),  # cut short: not JSON
    Step(text="The file says hello."),
]
PARALLEL: list[GeminiStep] = [
    (Step(tool="read", arguments='{"path": "notes.txt"}'), Step(tool="ls", arguments="{}")),
    Step(text="The notes say hello."),
]


class Google:
    """A token endpoint behind a proxy, and Vertex: what one test talks to."""

    def __init__(
        self, tmp_path: Path, lifetime: int, claude: list[Step], gemini: list[GeminiStep]
    ) -> None:
        ca = trustme.CA()
        self.ca_file = tmp_path / "ca.pem"
        ca.cert_pem.write_to_path(str(self.ca_file))
        self.tokens = TokenServer(ca, lifetime=lifetime)
        self.proxy = TunnelProxy(self.tokens.port)
        self.vertex = VertexServer(claude, gemini, lambda: self.tokens.issued)

    def project(self, tmp_path: Path, model: str) -> Project:
        project = Project.make(tmp_path)
        base = f"{self.vertex.url}/v1/projects/my-project/locations/us-east5"
        project.env |= {
            "GOOGLE_APPLICATION_CREDENTIALS": str(write_adc(tmp_path / "adc.json")),
            "VERTEX_BASE_URL": base,
            "HTTPS_PROXY": self.proxy.url,
            "NO_PROXY": "127.0.0.1",
            "SSL_CERT_FILE": str(self.ca_file),
            "NO_GCE_CHECK": "True",  # google-auth: no metadata server to look for here
        }
        models = {model: {"reasoning": True}}
        project.settings(
            {
                "model": f"vertex/{model}",
                "providers": {"vertex": {"models": models}},
                "retry": {"base_delay": 0.01},
            }
        )
        (project.root / "notes.txt").write_text("hello from notes\n")
        return project

    def close(self) -> None:
        self.vertex.close()
        self.proxy.close()
        self.tokens.close()


@pytest.fixture
def google(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Google]:
    lifetime, claude, gemini = request.param
    stand_in = Google(tmp_path, lifetime, claude, gemini)
    yield stand_in
    stand_in.close()


def _run(project: Project, *args: str) -> tuple[int, list[dict[str, Any]], str]:
    result = project.run("-p", "--json", "--reasoning", "medium", *args)
    return result.returncode, json_lines(result.stdout), result.stderr


@pytest.mark.slow
@pytest.mark.parametrize("google", [(3600, LOOP, [])], indirect=True)
def test_claude_on_vertex_keeps_its_thinking_with_one_token(google: Google, tmp_path: Path) -> None:
    code, records, stderr = _run(google.project(tmp_path, CLAUDE), "read notes.txt")
    assert code == 0, stderr
    assert google.vertex.claude.violations == []
    assert google.vertex.claude.returned == [0, 1, 2]  # every signed thinking block came back
    assert google.proxy.targets == ["oauth2.googleapis.com:443"]  # refreshed once, by ADC
    assert google.vertex.bearers == google.tokens.issued * 3
    paths = {r.path for r in google.vertex.requests}
    assert paths == {
        f"/v1/projects/my-project/locations/us-east5/publishers/anthropic/models/{CLAUDE}:streamRawPredict"
    }
    assert "hello from notes" in json.dumps(google.vertex.requests[-1].body)
    assert records[-1]["stop_reason"] == "completed"


@pytest.mark.slow
@pytest.mark.parametrize("google", [(60, [], PARALLEL)], indirect=True)
def test_gemini_on_vertex_refreshes_an_expiring_token_mid_session(
    google: Google, tmp_path: Path
) -> None:
    # a token with a minute left is refreshed before each use (google-auth's margin is longer)
    code, records, stderr = _run(
        google.project(tmp_path, "gemini-3.1-pro-preview"), "read notes.txt"
    )
    assert code == 0, stderr
    assert google.vertex.gemini.violations == []
    assert google.vertex.gemini.returned == [0, 1]  # the parallel calls' signature came back
    assert google.vertex.bearers == google.tokens.issued  # a fresh token on each request
    assert len(google.tokens.issued) == 2
    assert records[-1]["stop_reason"] == "completed"


@pytest.mark.slow
@pytest.mark.parametrize("google", [(3600, LOOP, [])], indirect=True)
def test_a_revoked_refresh_token_is_one_clear_line(google: Google, tmp_path: Path) -> None:
    google.tokens.revoked = True
    code, _, stderr = _run(google.project(tmp_path, CLAUDE), "hi")
    assert code == 2
    assert stderr.strip().splitlines() == [
        "auger: error: vertex: the Google credentials could not be refreshed (invalid_grant: "
        "Token has been expired or revoked.) — run `gcloud auth application-default login`"
    ]
    assert google.vertex.requests == []  # nothing was sent without a token


@pytest.mark.parametrize(
    ("env", "url"),
    [
        ({}, "https://aiplatform.googleapis.com/v1/projects/p-1/locations/global"),
        (
            {"GOOGLE_CLOUD_LOCATION": "europe-west1"},
            "https://europe-west1-aiplatform.googleapis.com/v1/projects/p-1/locations/europe-west1",
        ),
        (
            {"CLOUD_ML_REGION": "us-east5"},
            "https://us-east5-aiplatform.googleapis.com/v1/projects/p-1/locations/us-east5",
        ),
    ],
)
async def test_the_location_and_project_come_from_the_usual_variables(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, env: dict[str, str], url: str
) -> None:
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(write_adc(tmp_path / "adc.json")))
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "p-1")  # read by google-auth, as by gcloud's SDKs
    config = provider_config("vertex", env, {})
    assert await located(config.base_url, GoogleAccount(HttpTransport())) == url


def test_a_bare_name_goes_to_its_maker_before_a_cloud_that_hosts_it() -> None:
    from auger.llm.catalog import find

    assert find("claude-opus-4-6") == "anthropic/claude-opus-4-6"
    assert find("gemini-3.8") == "google/gemini-3.8-flash"
    assert find("claude-haiku-4-5@20251001") == "vertex/claude-haiku-4-5@20251001"  # only there


async def test_an_unreadable_adc_file_is_one_clear_auth_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from auger.llm.errors import ProviderError

    broken = tmp_path / "adc.json"
    broken.write_text('{"type": "authorized_user",')
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(broken))
    with pytest.raises(ProviderError) as raised:
        await GoogleAccount(HttpTransport()).token()
    assert raised.value.kind == "auth"
    assert raised.value.message == (
        f"vertex: File {broken} is not a valid json file. — "
        "run `gcloud auth application-default login`"
    )
