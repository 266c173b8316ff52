"""A local Ray cluster for the tests, in its own temp dir, and a way to see that none of its
processes outlive it."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def processes_under(marker: str) -> list[int]:
    """Pids whose command line mentions `marker` (a cluster's temp dir)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in cmdline:
            found.append(int(entry.name))
    return found


def wait_gone(marker: str, timeout: float = 20) -> list[int]:
    """Wait for the processes under `marker` to exit; the pids still there at the end."""
    deadline = time.monotonic() + timeout
    while (left := processes_under(marker)) and time.monotonic() < deadline:
        time.sleep(0.2)
    return left


@contextmanager
def ray_temp() -> Iterator[str]:
    """A short temp dir for a cluster (Unix socket paths must stay under 108 bytes)."""
    path = tempfile.mkdtemp(prefix="ray-", dir="/tmp")
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@contextmanager
def local_cluster() -> Iterator[str]:
    """`ray.init()` in this process on a fresh temp dir; shut down, every process gone, after."""
    import ray

    with ray_temp() as temp:
        saved = {k: os.environ.get(k) for k in ("RAY_TMPDIR", "RAY_AUTH_MODE")}
        os.environ.update(RAY_TMPDIR=temp, RAY_AUTH_MODE="disabled")
        try:
            ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
            try:
                yield temp
            finally:
                ray.shutdown()
            assert wait_gone(temp) == []
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
