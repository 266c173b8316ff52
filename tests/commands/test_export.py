"""`/export`: the session as Markdown and as one self-contained HTML page a browser renders."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from auger.llm.scripted import Call, Reply, ScriptedProvider
from support.runtime import make_runtime


async def exported(tmp_path: Path, args: str = "") -> tuple[Path, str, Path]:
    provider = ScriptedProvider(
        [
            Reply.of("Let me check.", Call("read", {"path": "notes.txt"})),
            Reply.of(
                "The notes say **hello** <script>alert(1)</script>.\n\n"
                "| a | b |\n|---|---|\n| 1 | 2 |"
            ),
        ]
    )
    rt = make_runtime(tmp_path, provider, bundled=True)
    (rt.cwd / "notes.txt").write_text("hello from the notes\n")
    [r async for r in rt.prompt("What do my notes say?")]
    said = [r async for r in rt.run_command("export", args)]
    await rt.close()
    return rt.cwd, next(r.text for r in said if r.type == "command_output"), rt.session.path


async def test_export_without_a_file_writes_html_and_markdown_beside_the_session(
    tmp_path: Path,
) -> None:
    cwd, said, session = await exported(tmp_path)
    assert not list(cwd.glob("auger-*"))  # nothing lands in the working tree
    folder = session.parent
    html_file, md_file = sorted(folder.glob("auger-*.html")), sorted(folder.glob("auger-*.md"))
    assert len(html_file) == 1 and len(md_file) == 1
    assert said == f"Exported to {html_file[0]} and {md_file[0]}"
    markdown = md_file[0].read_text()
    assert "## You\n\nWhat do my notes say?" in markdown
    assert '**⚙ read(path="notes.txt")**' in markdown
    assert "hello from the notes" in markdown
    assert "The notes say **hello**" in markdown


async def test_export_html_escapes_what_the_model_wrote(tmp_path: Path) -> None:
    cwd, _, _ = await exported(tmp_path, "out/session.html")
    page = (cwd / "out" / "session.html").read_text()
    assert page.startswith("<!doctype html>")
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<strong>hello</strong>" in page and "<table>" in page
    assert "http" not in page.split("<body>", 1)[1]  # nothing fetched from anywhere


@pytest.mark.slow
@pytest.mark.skipif(
    shutil.which("chromium") is None,
    reason="Chromium is not installed (Debian's `chromium` package; .ci/run installs it)",
)
async def test_a_headless_browser_renders_the_conversation(tmp_path: Path) -> None:
    cwd, _, _ = await exported(tmp_path, "session.html")
    done = subprocess.run(
        [
            "chromium",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--dump-dom",
            (cwd / "session.html").as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    dom = done.stdout
    assert '<section class="msg user"><div class="role">You</div>' in dom
    assert "What do my notes say?" in dom and "hello from the notes" in dom
    assert "<strong>hello</strong>" in dom


async def test_export_of_an_empty_session_says_so(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, ScriptedProvider(), bundled=True)
    said = [r async for r in rt.run_command("export")]
    assert said[-2].text == "Nothing to export: the session is empty."
    assert not list(rt.cwd.glob("auger-*"))
