"""The README's pictures of the terminal: auger in tmux (100×30) against a scripted provider,
captured with its colours (`capture-pane -e`) and drawn by headless Chromium into docs/: a
session (terminal.png) and the permission dialogs of a write, an edit and a command
(approve-write.png, approve-edit.png, approve-bash.png).

    python bench/screenshot.py [--scene session|write|edit|bash|all]
"""

from __future__ import annotations

import argparse
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BASIC = ["#1e1e1e", "#e06c75", "#98c379", "#e5c07b", "#61afef", "#c678dd", "#56b6c2", "#dcdfe4"]
BRIGHT = ["#7f848e", "#ff7b86", "#b5e890", "#ffd68a", "#8cc4ff", "#dda6f5", "#7fd6e0", "#ffffff"]
SGR = re.compile(r"\x1b\[([0-9;]*)m")
REPLIES = [
    {"parts": [{"tool": "read", "args": {"path": "app.py"}}]},
    {
        "parts": [
            {
                "tool": "edit",
                "args": {
                    "path": "app.py",
                    "old_string": "return a - b",
                    "new_string": "return a + b",
                },
            },
        ]
    },
    {
        "text": (
            "Fixed: `add` **subtracted**. It now returns `a + b`, and\n\n"
            "| test | before | after |\n|---|---|---|\n| add(2, 2) | 0 | 4 |"
        )
    },
]


APP = "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n"
FIX = {
    "path": "app.py",
    "old_string": "def add(a, b):\n    return a - b",
    "new_string": ('def add(a, b):\n    """The sum of a and b."""\n    return a + b'),
}
TEST = "from app import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n"
SCENES: dict[str, tuple[str, list[object], str, str]] = {
    "session": ("terminal.png", REPLIES, "auto", "add(2, 2) should be 4; fix app.py"),
    "write": (
        "approve-write.png",
        [{"parts": [{"tool": "write", "args": {"path": "test_app.py", "content": TEST}}]}],
        "ask",
        "add a test for add",
    ),
    "edit": (
        "approve-edit.png",
        [{"parts": [{"tool": "edit", "args": FIX}]}],
        "ask",
        "add(2, 2) should be 4; fix app.py",
    ),
    "bash": (
        "approve-bash.png",
        [{"parts": [{"tool": "bash", "args": {"command": "rm -rf build && git status --short"}}]}],
        "ask",
        "clean the build and show what changed",
    ),
}
"""Each scene: its picture, the model's replies, the permission mode, what the user types."""


def colour(n: int) -> str:
    if n < 8:
        return BASIC[n]
    if n < 16:
        return BRIGHT[n - 8]
    if n < 232:
        n -= 16
        red, green, blue = (0 if c == 0 else 55 + c * 40 for c in (n // 36, n // 6 % 6, n % 6))
        return f"#{red:02x}{green:02x}{blue:02x}"
    grey = 8 + (n - 232) * 10
    return f"#{grey:02x}{grey:02x}{grey:02x}"


def to_html(ansi: str) -> str:
    """ANSI SGR colours and weights as HTML spans."""
    out: list[str] = []
    style: dict[str, str] = {}
    at = 0
    for match in SGR.finditer(ansi):
        out.append(_span(ansi[at : match.start()], style))
        at = match.end()
        codes = [int(c) if c else 0 for c in match.group(1).split(";")]
        i = 0
        while i < len(codes):
            c = codes[i]
            if c == 0:
                style = {}
            elif c == 1:
                style["font-weight"] = "bold"
            elif c == 2:
                style["opacity"] = "0.7"
            elif c == 3:
                style["font-style"] = "italic"
            elif c == 4:
                style["text-decoration"] = "underline"
            elif 30 <= c <= 37 or 90 <= c <= 97:
                style["color"] = colour(c - 30 if c < 90 else c - 82)
            elif c in (38, 48) and i + 2 < len(codes) and codes[i + 1] == 5:
                style["color" if c == 38 else "background"] = colour(codes[i + 2])
                i += 2
            elif c in (38, 48) and i + 4 < len(codes) and codes[i + 1] == 2:
                r, g, b = codes[i + 2 : i + 5]
                style["color" if c == 38 else "background"] = f"#{r:02x}{g:02x}{b:02x}"
                i += 4
            elif c == 39:
                style.pop("color", None)
            elif c == 22:
                style.pop("font-weight", None)
                style.pop("opacity", None)
            i += 1
    out.append(_span(ansi[at:], style))
    return "".join(out)


def _span(text: str, style: dict[str, str]) -> str:
    if not text:
        return ""
    if not style:
        return html.escape(text)
    css = ";".join(f"{k}:{v}" for k, v in style.items())
    return f'<span style="{css}">{html.escape(text)}</span>'


def shoot(scene: str, out: Path) -> None:
    """Play `scene` in tmux and draw the screen it leaves into `out`."""
    _, replies, mode, typed = SCENES[scene]
    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        home.mkdir()
        project.mkdir()
        (project / "app.py").write_text(APP if scene != "session" else APP.split("\n\n\n")[0])
        (home / "script.json").write_text(json.dumps(replies))
        settings: dict[str, object] = {"model": "s/demo", "permissions": {"mode": mode}}
        settings["providers"] = {"s": {"api": "scripted", "script": str(home / "script.json")}}
        (home / "settings.json").write_text(json.dumps(settings))
        env = {**os.environ, "AUGER_HOME": str(home), "HOME": tmp, "TERM": "xterm-256color"}
        env["TMUX_TMPDIR"] = tmp
        tmux = ["tmux", "-L", "auger-shot", "-f", "/dev/null"]
        auger = [sys.executable, "-m", "auger"]
        subprocess.run(
            [*tmux, "new-session", "-d", "-x", "100", "-y", "30", "-c", str(project), *auger],
            env=env,
            check=True,
        )
        try:
            time.sleep(2.0)
            subprocess.run([*tmux, "send-keys", "-l", typed], env=env, check=True)
            subprocess.run([*tmux, "send-keys", "Enter"], env=env, check=True)
            time.sleep(4.0)
            ansi = subprocess.run(
                [*tmux, "capture-pane", "-e", "-p"],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        finally:
            subprocess.run([*tmux, "kill-server"], env=env, capture_output=True)
        page = Path(tmp) / "screen.html"
        page.write_text(
            "<!doctype html><meta charset=utf-8><body style='margin:0;background:#1e1e1e'>"
            "<pre style='margin:0;padding:14px;font:14px/1.35 DejaVu Sans Mono,monospace;"
            f"color:#dcdfe4'>{to_html(ansi)}</pre>"
        )
        out.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                "chromium",
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                f"--screenshot={out}",
                f"--window-size=870,{470 if scene == 'session' else 600}",
                page.as_uri(),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
    print(f"wrote {out}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scene", choices=[*SCENES, "all"], default="all")
    scene = parser.parse_args().scene
    for needed in ("tmux", "chromium"):
        if shutil.which(needed) is None:
            raise SystemExit(f"needs {needed}")
    docs = Path(__file__).parents[1] / "docs"
    for name in SCENES if scene == "all" else [scene]:
        shoot(name, docs / SCENES[name][0])


if __name__ == "__main__":
    main()
