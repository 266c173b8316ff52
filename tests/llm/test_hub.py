"""`auger -p --model local/hf:OWNER/REPO/FILE.gguf` downloads through the real path
(`huggingface_hub`, `auger[local]`) from a local stand-in for the Hub and its CDN
(tests/support/hub.py), named by `HF_ENDPOINT` in auger's environment — never the network.

The file served is not a model, so llama.cpp then refuses it: what is checked is the download —
where the file lands, that the next run asks nothing of the Hub, and that a failed download is
a classified error that leaves no file behind. Each run is a real process with its own `HOME`,
so huggingface_hub's own cache and settings are the test's too.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support.cli import Project, json_lines
from support.hub import Hub, HubFile, needs_client

pytestmark = pytest.mark.slow  # real processes; a failed download is retried by the engine

GGUF = b"GGUF" + bytes(range(256)) * 40  # 10 KiB
REPO, FILE = "tiny-org/tiny-GGUF", "tiny-q4.gguf"


@pytest.fixture(autouse=True)
def _needs_the_hub_client() -> None:
    needs_client()


@pytest.fixture
def hub() -> Iterator[Hub]:
    started = Hub({f"{REPO}/{FILE}": HubFile(GGUF)}).start()
    yield started
    started.stop()


def run(project: Project, hub: Hub, name: str = f"hf:{REPO}/{FILE}") -> list[dict[str, Any]]:
    project.env["HF_ENDPOINT"] = hub.url
    result = project.run("-p", "--json", "--no-save", "--model", f"local/{name}", "hi", timeout=120)
    assert "Traceback" not in result.stderr, result.stderr
    records = json_lines(result.stdout)
    assert records[-1]["type"] == "turn_end", result.stderr
    return records


def models(project: Project) -> Path:
    """The built-in local provider's models folder, under the run's `HOME`."""
    return Path(project.env["HOME"]) / ".auger" / "models"


def leftovers(folder: Path) -> list[str]:
    """Every file under `folder`: the downloads, and any partial one (`.incomplete`) — but not
    huggingface_hub's bookkeeping (`.cache/huggingface/`: metadata, locks, a .gitignore)."""
    return sorted(
        str(p.relative_to(folder))
        for p in folder.rglob("*")
        if p.is_file() and (".cache" not in p.parts or p.name.endswith(".incomplete"))
    )


def downloads(hub: Hub) -> list[tuple[str, str]]:
    """The requests of the download itself (not the user agent's registry)."""
    return [(m, p.partition("?")[0]) for m, p in hub.seen if not p.startswith("/api/")]


def test_a_hub_model_is_downloaded_once_into_the_models_folder(tmp_path: Path, hub: Hub) -> None:
    project = Project.make(tmp_path)
    records = run(project, hub)
    notices = [r["message"] for r in records if r["type"] == "notify"]
    assert notices[0] == f"downloading {FILE} from {REPO}…"
    path = models(project) / "hub" / REPO / FILE
    assert path.read_bytes() == GGUF
    assert leftovers(models(project)) == [f"hub/{REPO}/{FILE}"]
    # the Hub resolved the name (HEAD), its CDN sent the bytes (GET of the redirect)
    assert downloads(hub) == [
        ("HEAD", f"/{REPO}/resolve/main/{FILE}"),
        ("GET", f"/repos/{HubFile(GGUF).sha256}"),
    ]
    assert notices[1].startswith(f"loading {FILE} with llama.cpp")  # then llama.cpp has it
    seen = list(hub.seen)
    again = run(project, hub)
    assert hub.seen == seen  # the next run asks the Hub nothing: the file is there
    assert not any("downloading" in r.get("message", "") for r in again)
    assert next(r["message"] for r in again if r["type"] == "notify") == notices[1]


def test_a_file_the_hub_does_not_have_is_not_found(tmp_path: Path, hub: Hub) -> None:
    project = Project.make(tmp_path)
    end = run(project, hub, f"hf:{REPO}/q8.gguf")[-1]
    assert end["stop_reason"] == "error" and end["error"]["kind"] == "not_found"
    assert end["error"]["message"].startswith(f"no q8.gguf in {REPO} on the hub")
    end = run(project, hub, "hf:nobody/nothing/x.gguf")[-1]
    assert end["error"]["kind"] == "not_found"
    assert end["error"]["message"].startswith("no x.gguf in nobody/nothing on the hub")
    assert leftovers(models(project)) == []


def test_a_download_cut_short_fails_and_leaves_no_partial_file(tmp_path: Path, hub: Hub) -> None:
    project = Project.make(tmp_path)
    hub.files[f"{REPO}/{FILE}"].short = 4000  # of 10 244 bytes
    records = run(project, hub)
    end = records[-1]
    assert end["stop_reason"] == "error" and end["error"]["kind"] == "network"
    message = end["error"]["message"]
    assert message.startswith(f"downloading {REPO}/{FILE} failed")
    assert "10244" in message and "4000" in message  # what was expected, what came
    assert leftovers(models(project)) == []  # nothing half-written for the next run to load
    assert not any(r.get("message", "").startswith("loading ") for r in records)
    hub.files[f"{REPO}/{FILE}"].short = None  # the next run gets it whole
    run(project, hub)
    assert (models(project) / "hub" / REPO / FILE).read_bytes() == GGUF


def test_a_hub_that_cannot_be_reached_is_a_network_error_not_a_missing_file(
    tmp_path: Path, hub: Hub
) -> None:
    project = Project.make(tmp_path)
    project.env["HF_HUB_OFFLINE"] = "1"  # huggingface_hub's own switch: no request at all
    end = run(project, hub)[-1]
    assert end["error"]["kind"] == "network"
    assert end["error"]["message"].startswith(f"cannot reach the hub for {REPO}")
    assert downloads(hub) == [] and leftovers(models(project)) == []
