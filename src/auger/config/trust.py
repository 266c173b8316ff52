"""Which projects the user trusts (SPEC §7): `~/.auger/trust.json`."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path


class TrustStore:
    """The set of trusted project directories, kept in `home/trust.json`."""

    def __init__(self, home: Path) -> None:
        self.path = home / "trust.json"

    def trusted(self) -> list[str]:
        """The trusted directories, in the order they were trusted."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        trusted = data.get("trusted") if isinstance(data, dict) else None
        return [p for p in trusted if isinstance(p, str)] if isinstance(trusted, list) else []

    def is_trusted(self, project: Path) -> bool:
        """Whether `project` (or a directory above it) was trusted."""
        project = project.resolve()
        return any(project == Path(p) or Path(p) in project.parents for p in self.trusted())

    def trust(self, project: Path) -> None:
        """Remember `project` as trusted (written atomically)."""
        trusted = self.trusted()
        resolved = str(project.resolve())
        if resolved not in trusted:
            self._write([*trusted, resolved])

    def revoke(self, project: Path) -> bool:
        """Forget `project`; whether it was trusted by that exact path."""
        trusted = self.trusted()
        resolved = str(project.resolve())
        if resolved not in trusted:
            return False
        self._write([p for p in trusted if p != resolved])
        return True

    def _write(self, trusted: list[str]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".trust-")
        with os.fdopen(fd, "w") as f:
            json.dump({"trusted": trusted}, f, indent=2)
            f.write("\n")
        os.replace(tmp, self.path)
