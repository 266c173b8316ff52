"""Which projects may run their own extensions: `~/.auger/trust.json`."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path


class TrustStore:
    """The set of trusted project directories, kept in `home/trust.json`."""

    def __init__(self, home: Path) -> None:
        self.path = home / "trust.json"

    def _read(self) -> list[str]:
        try:
            data = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return []
        trusted = data.get("trusted") if isinstance(data, dict) else None
        return [p for p in trusted if isinstance(p, str)] if isinstance(trusted, list) else []

    def is_trusted(self, project: Path) -> bool:
        """Whether `project` (or a directory above it) was trusted."""
        project = project.resolve()
        return any(project == Path(p) or Path(p) in project.parents for p in self._read())

    def trust(self, project: Path) -> None:
        """Remember `project` as trusted (written atomically)."""
        trusted = self._read()
        resolved = str(project.resolve())
        if resolved in trusted:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".trust-")
        with os.fdopen(fd, "w") as f:
            json.dump({"trusted": [*trusted, resolved]}, f, indent=2)
        os.replace(tmp, self.path)
