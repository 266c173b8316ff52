"""Claude on Amazon Bedrock: the SigV4 signer against botocore's, the event-stream decoder
against botocore's parser, and signed multi-step tool loops through `auger -p --json` against a
stand-in that recomputes every signature from the secret.

- https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModelWithResponseStream.html
- https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages.html
- https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html
- https://docs.aws.amazon.com/transcribe/latest/dg/event-stream.html (the framing)
"""

from __future__ import annotations

import contextlib
import json
import struct
import zlib
from datetime import UTC, datetime
from email.utils import formatdate
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from auger.llm.errors import ProviderError
from auger.llm.eventstream import EventStreamDecoder, FrameError
from auger.llm.sigv4 import AwsCredentials, clock_offset, sign
from support.bedrock import STREAM_TYPE as STREAM
from support.bedrock import BedrockServer, chunk, frame
from support.cli import Project, json_lines
from support.strict import Step

botocore_auth = pytest.importorskip("botocore.auth")
from botocore.awsrequest import AWSRequest  # noqa: E402
from botocore.credentials import Credentials  # noqa: E402
from botocore.eventstream import EventStreamBuffer  # noqa: E402

MODEL = "anthropic.claude-sonnet-4-5-20250929-v1:0"
KEY, SECRET = "AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
AT = datetime(2026, 12, 1, 16, 30, 5, tzinfo=UTC)


@pytest.mark.parametrize(
    ("url", "token"),
    [
        (
            "https://bedrock-runtime.us-east-1.amazonaws.com/model/"
            + MODEL.replace(":", "%3A")
            + "/invoke-with-response-stream",
            None,
        ),
        (
            "https://bedrock-runtime.eu-west-3.amazonaws.com/model/"
            "us.anthropic.claude-opus-4-5%3A0/invoke-with-response-stream",
            "IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJH",
        ),
        ("http://127.0.0.1:8123/model/x/invoke?b=2&a=1&a=0&c=a%20b", None),
    ],
)
def test_the_signer_agrees_with_botocore(
    monkeypatch: pytest.MonkeyPatch, url: str, token: str | None
) -> None:
    region = url.split(".")[1] if "amazonaws" in url else "us-west-2"
    headers = {"content-type": "application/json", "accept": "application/vnd.amazon.eventstream"}
    body = json.dumps({"anthropic_version": "bedrock-2023-05-31", "max_tokens": 5}).encode()
    ours = sign(
        "POST", url, headers, body, AwsCredentials(KEY, SECRET, token), region, "bedrock", AT
    )
    monkeypatch.setattr(botocore_auth, "get_current_datetime", lambda: AT.replace(tzinfo=None))
    theirs = AWSRequest("POST", url, headers=dict(headers), data=body)
    botocore_auth.SigV4Auth(Credentials(KEY, SECRET, token), "bedrock", region).add_auth(theirs)
    assert ours["authorization"] == theirs.headers["Authorization"]
    assert ours["x-amz-date"] == theirs.headers["X-Amz-Date"] == "20261201T163005Z"


def test_the_offset_of_a_skewed_clock_comes_from_the_server_date() -> None:
    date = formatdate(datetime.now(UTC).timestamp() + 3600, usegmt=True)
    expired = "Signature expired: 20261201T160000Z is now earlier than 20261201T165500Z"
    offset = clock_offset(403, expired, date)
    assert offset is not None and 3590 < offset < 3610
    assert clock_offset(403, "The request signature we calculated does not match", date) is None
    assert clock_offset(403, expired, "not a date") is None


FRAMES = frame({":event-type": "chunk", ":message-type": "event"}, b'{"bytes":"e30="}') + frame(
    {":exception-type": "throttlingException", ":message-type": "exception"},
    b'{"message":"slow down"}',
)


def test_the_frame_decoder_agrees_with_botocore_at_every_split() -> None:
    theirs = EventStreamBuffer()
    theirs.add_data(FRAMES)
    expected = [(m.headers, m.payload) for m in theirs]
    for cut in range(len(FRAMES) + 1):
        decoder = EventStreamDecoder()
        messages = decoder.feed(FRAMES[:cut]) + decoder.feed(FRAMES[cut:])
        assert [(m.headers, m.payload) for m in messages] == expected


@given(st.binary(max_size=64), st.binary(max_size=300))
def test_headers_of_any_bytes_decode_or_are_refused(raw_headers: bytes, tail: bytes) -> None:
    # CRCs that match over headers that do not parse: still only a FrameError
    prelude = struct.pack(">II", 12 + len(raw_headers) + 4, len(raw_headers))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    message = prelude + raw_headers
    message += struct.pack(">I", zlib.crc32(message))
    with contextlib.suppress(FrameError):
        EventStreamDecoder().feed(message + tail)


def test_a_corrupt_frame_is_refused() -> None:
    broken = bytearray(FRAMES)
    broken[20] ^= 0xFF
    with pytest.raises(FrameError, match="CRC"):
        EventStreamDecoder().feed(bytes(broken))


@pytest.mark.parametrize("variable", ["AWS_REGION", "AWS_DEFAULT_REGION"])
def test_the_region_variables_choose_the_endpoint(variable: str) -> None:
    from auger.config.models import provider_config
    from auger.llm.bedrock import AwsAccount

    config = provider_config("bedrock", {variable: "eu-west-3"}, {})
    assert config.base_url == "https://bedrock-runtime.eu-west-3.amazonaws.com"
    assert AwsAccount().region(config.base_url) == "eu-west-3"  # and sign for it


# --- through `auger -p --json`, on the built-in `bedrock` provider -------------------------

LOOP = [
    Step(tool="read", arguments='{"path": "notes.txt"}'),
    Step(tool="read", arguments='{"path": "notes.txt"'),  # cut short: not JSON
    Step(text="The file says hello."),
]


def _bedrock_project(tmp_path: Path, server: BedrockServer, **env: str) -> Project:
    project = Project.make(tmp_path)
    project.env |= {
        "BEDROCK_BASE_URL": server.url,
        "AWS_DEFAULT_REGION": server.region,  # beside a base URL, the region to sign for
        "AWS_EC2_METADATA_DISABLED": "true",  # no instance role to look for on a test machine
        "AWS_CONFIG_FILE": str(tmp_path / "aws-config"),
        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "aws-credentials"),
    } | env
    models = {MODEL: {"reasoning": True, "max_output": 64000}}
    project.settings(
        {
            "model": f"bedrock/{MODEL}",
            "providers": {"bedrock": {"models": models}},
            "retry": {"base_delay": 0.01},
        }
    )
    (project.root / "notes.txt").write_text("hello from notes\n")
    return project


def _run(project: Project, *args: str) -> tuple[int, list[dict[str, Any]], str]:
    result = project.run("-p", "--json", "--reasoning", "medium", *args)
    return result.returncode, json_lines(result.stdout), result.stderr


@pytest.mark.slow
def test_a_signed_tool_loop_keeps_its_thinking(tmp_path: Path) -> None:
    token = "IQoJb3JpZ2luX2VjEJr-session"
    with BedrockServer(LOOP, secrets={KEY: SECRET}, token=token) as server:
        env = {
            "AWS_ACCESS_KEY_ID": KEY,
            "AWS_SECRET_ACCESS_KEY": SECRET,
            "AWS_SESSION_TOKEN": token,
        }
        project = _bedrock_project(tmp_path, server, **env)
        code, records, stderr = _run(project, "read notes.txt")
        assert code == 0, stderr
        assert server.refused == [] and server.violations == []
        assert server.returned == [0, 1, 2]  # every signed thinking block came back
        paths = {r.path for r in server.requests}
        last = json.dumps(server.requests[-1].body)
    assert paths == {f"/model/{MODEL.replace(':', '%3A')}/invoke-with-response-stream"}
    assert "hello from notes" in last
    assert records[-1]["stop_reason"] == "completed"


@pytest.mark.slow
def test_a_skewed_clock_is_corrected_from_the_server_date_and_retried(tmp_path: Path) -> None:
    with BedrockServer(LOOP, secrets={KEY: SECRET}, skew=3600) as server:
        env = {"AWS_ACCESS_KEY_ID": KEY, "AWS_SECRET_ACCESS_KEY": SECRET}
        code, records, stderr = _run(_bedrock_project(tmp_path, server, **env), "read notes.txt")
        assert code == 0, stderr
        assert len(server.refused) == 1 and "Signature expired" in server.refused[0]
        assert len(server.requests) == 4  # refused once; every later request signed on time
        assert server.violations == [] and server.returned == [0, 1, 2]
    assert records[-1]["stop_reason"] == "completed"


@pytest.mark.slow
def test_credentials_come_from_a_named_profile_of_the_shared_files(tmp_path: Path) -> None:
    with BedrockServer(LOOP[2:], secrets={"AKIDPROFILE": "profile-secret"}) as server:
        project = _bedrock_project(tmp_path, server, AWS_PROFILE="work")
        (tmp_path / "aws-credentials").write_text(
            "[default]\naws_access_key_id = AKIDWRONG\naws_secret_access_key = nope\n"
            "[work]\naws_access_key_id = AKIDPROFILE\naws_secret_access_key = profile-secret\n"
        )
        code, records, stderr = _run(project, "hi")
        assert code == 0, stderr
        assert server.refused == []
    assert records[-1]["text"] == "The file says hello."


@pytest.mark.slow
def test_a_wrong_secret_is_one_clear_auth_error(tmp_path: Path) -> None:
    with BedrockServer(LOOP, secrets={KEY: SECRET}) as server:
        env = {"AWS_ACCESS_KEY_ID": KEY, "AWS_SECRET_ACCESS_KEY": "not-the-secret"}
        code, records, stderr = _run(_bedrock_project(tmp_path, server, **env), "hi")
        assert len(server.requests) == 1  # an auth failure is not retried
    assert code == 2
    assert records[-1]["error"] == {
        "kind": "auth",
        "message": "bedrock returned 403: The request signature we calculated does not match "
        "the signature you provided.",
    }
    assert stderr.strip().splitlines() == [f"auger: error: {records[-1]['error']['message']}"]


async def test_an_exception_event_ends_the_stream_classified() -> None:
    from auger.llm.bedrock import _Chunks

    decoder = _Chunks("bedrock")
    start = {"type": "message_start", "message": {"usage": {"input_tokens": 3}}}
    assert decoder.feed(chunk(start)) == [("message", json.dumps(start))]
    with pytest.raises(ProviderError) as raised:
        decoder.feed(
            FRAMES[
                len(
                    frame({":event-type": "chunk", ":message-type": "event"}, b'{"bytes":"e30="}')
                ) :
            ]
        )
    assert raised.value.kind == "rate_limit" and "slow down" in raised.value.message


async def test_the_body_keeps_thinking_and_cache_breakpoints_and_counts_cache_reads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from auger.llm.formats import FORMATS, Endpoint
    from auger.llm.messages import AssistantMessage, TextPart, UserMessage
    from auger.llm.provider import Model, PassThrough, Request
    from auger.llm.records import TokenUsageDone
    from auger.llm.usage import Usage
    from support.bedrock import reframe
    from support.server import FakeServer, Reply
    from support.strict import messages_reply

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", KEY)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    sse = messages_reply(Step(text="Hi."), "Hm.", "sig", 1).replace(
        b'"input_tokens": 10', b'"input_tokens": 10, "cache_read_input_tokens": 2048'
    )
    model = Model("bedrock", MODEL, "bedrock", max_output=64000, reasoning=True)
    with FakeServer() as server:
        server.queue(Reply(body=reframe(sse), headers={"content-type": STREAM}))
        provider = FORMATS["bedrock"].build(Endpoint("bedrock", server.url))
        history = (
            UserMessage.of("hi"),
            AssistantMessage((TextPart("Hello."),)),
            UserMessage.of("again"),
        )
        request = Request(model, "Be brief.", history, reasoning="low")
        try:
            records = [r async for r in provider.stream(request, PassThrough())]
        finally:
            await provider.aclose()
        body = server.requests[0].body
    assert body["anthropic_version"] == "bedrock-2023-05-31"
    assert "model" not in body and "stream" not in body
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 4096}
    assert body["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert body["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert TokenUsageDone(Usage(2058, 5, 2048)) in records


@pytest.mark.slow
@pytest.mark.parametrize("source", ["sso", "container"])
def test_temporary_credentials_from_sso_or_a_container_role_sign_the_loop(
    tmp_path: Path, source: str
) -> None:
    from support.server import FakeServer, Reply

    expiry = "2099-01-01T00:00:00Z"
    with (
        BedrockServer(LOOP[::2], secrets={"ASIAROLE": "role-secret"}, token="role-token") as server,
        FakeServer() as issuer,
    ):
        if source == "sso":  # GetRoleCredentials, for the token `aws sso login` cached
            role = {"accessKeyId": "ASIAROLE", "secretAccessKey": "role-secret"}
            role |= {"sessionToken": "role-token", "expiration": 4102444800000}
            issuer.queue(Reply(body=json.dumps({"roleCredentials": role}).encode()))
            env = {"AWS_PROFILE": "dev", "AWS_ENDPOINT_URL_SSO": issuer.url}
        else:  # ECS/EKS: the container credentials endpoint
            creds = {"AccessKeyId": "ASIAROLE", "SecretAccessKey": "role-secret"}
            creds |= {"Token": "role-token", "Expiration": expiry}
            issuer.queue(Reply(body=json.dumps(creds).encode()))
            env = {
                "AWS_CONTAINER_CREDENTIALS_FULL_URI": f"{issuer.url}/v2/credentials/abc",
                "AWS_CONTAINER_AUTHORIZATION_TOKEN": "container-auth",
            }
        project = _bedrock_project(tmp_path, server, **env)
        (tmp_path / "aws-config").write_text(
            "[profile dev]\nsso_session = corp\nsso_account_id = 111122223333\n"
            "sso_role_name = Developer\n"
            "[sso-session corp]\nsso_region = us-east-1\n"
            "sso_start_url = https://corp.awsapps.com/start\n"
        )
        cache = tmp_path / ".aws" / "sso" / "cache"
        cache.mkdir(parents=True)
        token = {"startUrl": "https://corp.awsapps.com/start", "region": "us-east-1"}
        token |= {"accessToken": "sso-access-token", "expiresAt": expiry}
        (cache / "ee0bfd2552fbd840c02cc48b6e823320543c450f.json").write_text(json.dumps(token))
        code, records, stderr = _run(project, "read notes.txt")
        assert code == 0, stderr
        asked = issuer.requests
        assert server.refused == [] and server.violations == []
    assert len(asked) == 1  # fetched once for the whole loop
    if source == "sso":
        assert asked[0].path == (
            "/federation/credentials?role_name=Developer&account_id=111122223333"
        )
        assert asked[0].headers["x-amz-sso_bearer_token"] == "sso-access-token"
    else:
        assert asked[0].path == "/v2/credentials/abc"
        assert asked[0].headers["authorization"] == "container-auth"
    assert records[-1]["stop_reason"] == "completed"


def test_an_overlong_prompt_is_a_context_overflow_in_bedrock_words() -> None:
    from auger.llm.bedrock import _Chunks

    headers = {":exception-type": "validationException", ":message-type": "exception"}
    refused = frame(headers, b'{"message":"Input is too long for requested model."}')
    with pytest.raises(ProviderError) as raised:
        _Chunks("bedrock").feed(refused)
    assert raised.value.kind == "context_overflow"


def test_an_error_message_of_the_framing_is_a_server_error() -> None:
    from auger.llm.bedrock import _Chunks

    headers = {":message-type": "error", ":error-code": "InternalFailure"}
    with pytest.raises(ProviderError) as raised:
        _Chunks("bedrock").feed(frame(headers | {":error-message": "try again"}, b""))
    assert raised.value.kind == "server" and raised.value.retryable
    assert raised.value.message == "bedrock: InternalFailure: try again"


class _Imds:
    """EC2's instance metadata service (IMDSv2: a session token first), one role."""

    def __init__(self) -> None:
        from support.server import FakeServer, Reply, Seen, _Handler

        creds = {"Code": "Success", "AccessKeyId": "ASIAROLE", "SecretAccessKey": "role-secret"}
        creds |= {"Token": "role-token", "Expiration": "2099-01-01T00:00:00Z"}
        routes = {
            ("PUT", "/latest/api/token"): b"imds-session",
            ("GET", "/latest/meta-data/iam/security-credentials/"): b"auger-role",
            ("GET", "/latest/meta-data/iam/security-credentials/auger-role"): json.dumps(creds),
        }

        class Server(FakeServer):
            def _take(self, seen: Seen) -> Reply:
                self.requests.append(seen)
                body = routes.get((seen.method, seen.path))
                if body is None or (
                    seen.method == "GET"
                    and seen.headers.get("x-aws-ec2-metadata-token") != "imds-session"
                ):
                    return Reply(401, b"")
                data = body if isinstance(body, bytes) else body.encode()
                return Reply(body=data, headers={"content-type": "text/plain"})

        class Handler(_Handler):
            def do_PUT(self) -> None:
                self._serve()

        self.server = Server()
        self.server._server.RequestHandlerClass = Handler


@pytest.mark.slow
def test_an_instance_role_signs_the_loop(tmp_path: Path) -> None:
    imds = _Imds()
    try:
        with BedrockServer(
            LOOP[::2], secrets={"ASIAROLE": "role-secret"}, token="role-token"
        ) as server:
            env = {
                "AWS_EC2_METADATA_DISABLED": "false",
                "AWS_EC2_METADATA_SERVICE_ENDPOINT": imds.server.url,
            }
            code, records, stderr = _run(
                _bedrock_project(tmp_path, server, **env), "read notes.txt"
            )
            assert code == 0, stderr
            assert server.refused == [] and server.violations == []
    finally:
        imds.server.close()
    assert [(r.method, r.path) for r in imds.server.requests] == [
        ("PUT", "/latest/api/token"),
        ("GET", "/latest/meta-data/iam/security-credentials/"),
        ("GET", "/latest/meta-data/iam/security-credentials/auger-role"),
    ]
    assert records[-1]["stop_reason"] == "completed"
