"""Helpers for tests that run the `auger` command as a real process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class Project:
    """A temp project dir and an isolated `AUGER_HOME`, with settings written for a test."""

    root: Path
    home: Path
    env: dict[str, str]

    @classmethod
    def make(cls, tmp_path: Path) -> Project:
        root, home = tmp_path / "project", tmp_path / "auger-home"
        root.mkdir()
        home.mkdir()
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(tmp_path),
            "AUGER_HOME": str(home),
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        return cls(root, home, env)

    def settings(self, data: dict[str, Any]) -> None:
        """Write the user settings."""
        (self.home / "settings.json").write_text(json.dumps(data))

    def script(self, replies: list[Any], **settings: Any) -> None:
        """Use a scripted provider `s` playing `replies` as the model `s/test`, in permission
        mode `auto` unless `permissions` says otherwise (tests of permissions set their own)."""
        path = self.home / "script.json"
        path.write_text(json.dumps(replies))
        self.settings(
            {
                "model": "s/test",
                "providers": {"s": {"api": "scripted", "script": str(path)}},
                "permissions": {"mode": "auto"},
            }
            | settings
        )

    def command(self, *args: str) -> list[str]:
        """The argv that runs auger with `args`."""
        return [sys.executable, "-m", "auger", *args]

    def run(
        self, *args: str, stdin: str = "", timeout: float = 30
    ) -> subprocess.CompletedProcess[str]:
        """Run auger to completion."""
        return subprocess.run(
            self.command(*args),
            cwd=self.root,
            env=self.env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=timeout,
        )


def json_lines(stdout: str) -> list[dict[str, Any]]:
    """Every NDJSON line of `stdout`, parsed."""
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def normalized(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Records with the values that change from run to run replaced by placeholders."""
    out = []
    for record in records:
        record = dict(record)
        for key in ("at", "duration"):
            if key in record and record[key] != 0.0:
                record[key] = f"<{key}>"
        if record["type"] == "session_start":
            record["id"], record["root"] = "<id>", "<root>"
        out.append(record)
    return out
