"""`auger -p` with `@path` and `-i FILE`: the request the server receives holds the files."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest

from support import chat
from support.cli import Project
from support.server import FakeServer

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


@pytest.fixture
def project(tmp_path: Path, fake_server: FakeServer) -> Project:
    project = Project.make(tmp_path)
    project.settings(chat.settings(fake_server))
    project.env |= chat.KEY
    return project


def _user_content(server: FakeServer) -> Any:
    user = server.requests[0].body["messages"][-1]
    assert user["role"] == "user"
    return user["content"]


def test_a_mentioned_file_reaches_the_model(project: Project, fake_server: FakeServer) -> None:
    (project.root / "plan.md").write_text("step one: write the parser\n")
    fake_server.queue(chat.text("ok"))
    result = project.run("-p", "follow @plan.md")
    assert result.returncode == 0, result.stderr
    assert _user_content(fake_server) == (
        'follow @plan.md\n\n<file path="plan.md">\nstep one: write the parser\n</file>'
    )


def test_image_flag_sends_an_image(project: Project, fake_server: FakeServer) -> None:
    (project.root / "shot.png").write_bytes(PNG)
    fake_server.queue(chat.text("a dot"))
    result = project.run("-p", "-i", "shot.png", "what is this?")
    assert result.returncode == 0, result.stderr
    image = _user_content(fake_server)[1]
    assert image["type"] == "image_url"
    assert image["image_url"]["url"] == "data:image/png;base64," + base64.b64encode(PNG).decode()


def test_a_missing_mention_is_a_usage_error(project: Project, fake_server: FakeServer) -> None:
    result = project.run("-p", "@missing.md")
    assert result.returncode == 2
    assert result.stderr == "auger: @missing.md: no such file or directory\n"
    assert fake_server.requests == []
