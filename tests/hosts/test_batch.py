"""`auger batch` as a real process: the results file, bad lines, the summary, a real Ctrl-C
and the rerun that finishes the rest, and `--ray` on a local cluster it starts and stops."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from auger.batch.results import Result
from auger.hosts.batch import Progress
from auger.llm.usage import Usage
from support.batch import home_env, tasks_file, without_timings
from support.ray_cluster import ray_temp, wait_gone


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def finished(id: str, solved: bool | None, cost: float | None = 0.25) -> Result:
    usage = Usage(10, 1, cost=cost)
    return Result(id, "completed", solved, usage, cost, 1.0, 1, 0, None)


def test_progress_shows_each_result_above_a_live_line_on_a_terminal() -> None:
    out = Tty()
    progress = Progress(3, out, workers=2, clock=lambda: 7.0)
    progress.tick()
    progress.add(finished("a", True))
    progress.add(finished("b", False))
    progress.end()
    assert out.getvalue() == (
        "\r\x1b[2K░░░░░░░░░░░░░░░░░░░░ 2 running · 0/3 done · 0 solved · 0 failed · $0.0000 · 0s"
        "\r\x1b[2K[1/3] a: solved, completed\n"
        "\r\x1b[2K[2/3] b: not solved, completed\n"
        "\r\x1b[2K█████████████░░░░░░░ 1 running · 2/3 done · 1 solved · 1 failed · $0.5000 · 0s"
        "\n"
    )


def test_progress_prints_a_line_per_task_elsewhere_and_marks_an_unknown_cost() -> None:
    out = io.StringIO()
    times = iter([0.0, 3.0])
    progress = Progress(2, out, clock=lambda: next(times))
    progress.add(finished("a", None, cost=None))
    assert out.getvalue() == "[1/2] a: no check, completed\n"
    assert progress.line() == "1 running · 1/2 done · 0 solved · 0 failed · ≥ $0.0000 · 3s"


@pytest.mark.slow
def test_two_slow_tasks_show_a_live_line_every_second(tmp_path: Path) -> None:
    env = home_env(tmp_path, delay=2.5)
    tasks = tmp_path / "slow.jsonl"
    lines = [{"id": i, "prompt": "x", "model": "idle/m"} for i in ("first", "second")]
    tasks.write_text("".join(json.dumps(line) + "\n" for line in lines))
    done = batch(tmp_path, env, tasks, "--workers", "2")
    assert done.returncode == 0, done.stderr
    err = done.stderr.splitlines()
    live = [line for line in err if " running · " in line]
    # about 2.5 s of work: a line at the start, then one a second, then the last
    assert len(live) >= 3, done.stderr
    assert live[0].endswith("2 running · 0/2 done · 0 solved · 0 failed · $0.0000 · 0s")
    assert live[-1].startswith("████████████████████ 0 running · 2/2 done · 0 solved · 0 failed")
    ended = [line for line in err if line.startswith("[")]
    assert [line.split("] ", 1)[0] for line in ended] == ["[1/2", "[2/2"]
    assert sorted(line.split("] ", 1)[1] for line in ended) == [
        "first: no check, completed",
        "second: no check, completed",
    ]
    assert err.index(ended[0]) > err.index(live[1])  # the line went on while the tasks ran


def auger(*args: str | Path) -> list[str]:
    return [sys.executable, "-m", "auger", "batch", *map(str, args)]


def batch(tmp: Path, env: dict[str, str], *args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        auger(*args), cwd=tmp, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.slow
def test_a_batch_reports_the_broken_line_and_prints_the_table(tmp_path: Path) -> None:
    env = home_env(tmp_path)
    done = batch(tmp_path, env, tasks_file(tmp_path), "--workers", "3")
    assert done.returncode == 0, done.stderr
    assert "tasks.jsonl: line 8: Input data was truncated (skipped)" in done.stderr
    assert done.stdout.startswith("tasks 9 · solved 5/7 (71%) · tokens 1,600 in / 160 out")
    assert len((tmp_path / "results.jsonl").read_text().splitlines()) == 9
    table = batch(tmp_path, env, "--summary", "results.jsonl")
    assert (table.returncode, table.stdout) == (0, done.stdout)


@pytest.mark.slow
@pytest.mark.parametrize("keep", [True, False], ids=["keep", "default"])
def test_keep_leaves_each_working_copy_with_what_the_agent_wrote(
    tmp_path: Path, keep: bool
) -> None:
    env = home_env(tmp_path)
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "calc.py").write_text("a - b\n")
    line = {"id": "w", "prompt": "write", "model": "writer/m", "path": "repo"}
    tasks = tmp_path / "one.jsonl"
    tasks.write_text(json.dumps(line | {"permission_mode": "auto"}) + "\n")
    flags = ["--keep"] if keep else []
    done = batch(tmp_path, env, tasks, "--workdirs", "copies", *flags)
    assert done.returncode == 0, done.stderr
    copies = sorted((tmp_path / "copies").glob("*/w"))
    if keep:
        (copy,) = copies
        assert (copy / "answer.txt").read_text() == "42\n"
        assert (copy / "calc.py").read_text() == "a - b\n"
    else:
        assert copies == [] and list((tmp_path / "copies").iterdir()) == []
    assert (tmp_path / "repo" / "calc.py").read_text() == "a - b\n"  # the source untouched


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    env = home_env(tmp_path)
    nothing = batch(tmp_path, env)
    assert nothing.returncode == 2 and "give a tasks file" in nothing.stderr
    missing = batch(tmp_path, env, "missing.jsonl")
    assert missing.returncode == 2 and "cannot read missing.jsonl" in missing.stderr
    no_results = batch(tmp_path, env, "--summary", "none.jsonl")
    assert no_results.returncode == 2 and "no results file none.jsonl" in no_results.stderr


def test_a_results_file_that_cannot_be_written_is_reported(tmp_path: Path) -> None:
    env = home_env(tmp_path)
    (tmp_path / "a-file").write_text("")
    tasks = tmp_path / "one.jsonl"
    tasks.write_text('{"id": "t", "prompt": "x", "model": "idle/m"}\n')
    done = batch(tmp_path, env, tasks, "--results", "a-file/results.jsonl")
    assert done.returncode == 1
    assert "auger: cannot write" in done.stderr and "Traceback" not in done.stderr


def test_ray_missing_is_a_usage_error_that_says_what_to_install(tmp_path: Path) -> None:
    env = home_env(tmp_path)
    shadow = tmp_path / "no-ray"
    shadow.mkdir()
    (shadow / "ray.py").write_text("raise ImportError('no ray here')\n")
    done = batch(tmp_path, {**env, "PYTHONPATH": str(shadow)}, tasks_file(tmp_path), "--ray")
    assert done.returncode == 2
    assert "--ray needs Ray: pip install 'auger[ray]'" in done.stderr


def ctrl_c(
    tmp: Path, env: dict[str, str], args: tuple[str | Path, ...], results: Path, after: int
) -> tuple[int, str]:
    """Run `auger batch` in its own process group and, once `after` results are in, press
    Ctrl-C: SIGINT to the whole group, as a terminal sends it."""
    proc = subprocess.Popen(
        auger(*args),
        cwd=tmp,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and proc.poll() is None:
            if results.exists() and len(results.read_text().splitlines()) >= after:
                break
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    return proc.returncode, err


@pytest.mark.slow
def test_ctrl_c_keeps_what_finished_and_a_rerun_does_only_the_rest(tmp_path: Path) -> None:
    env = home_env(tmp_path, delay=0.4)
    log = tmp_path / "started.log"
    tasks = tasks_file(tmp_path, log=log)
    results = tmp_path / "results.jsonl"
    work = tmp_path / "work"
    work.mkdir()
    args = (tasks, "--workers", "2", "--workdirs", work)
    status, err = ctrl_c(tmp_path, env, args, results, after=2)
    assert status == 130, err
    assert "interrupted" in err and "Traceback" not in err
    first = [json.loads(line)["id"] for line in results.read_text().splitlines()]
    assert 2 <= len(first) < 9
    assert list(work.iterdir()) == []  # the cancelled tasks' copies are gone too
    again = batch(tmp_path, env, *args)
    assert again.returncode == 0, again.stderr
    assert f"{len(first)} of 9 tasks already in results.jsonl" in again.stderr
    rows = without_timings(results)
    assert len(rows) == 9 and len({r["id"] for r in rows}) == 9
    started = log.read_text().split()
    for task_id in first:
        assert started.count(task_id) == 1, task_id  # a finished task never ran again


@pytest.mark.slow
@pytest.mark.xdist_group("ray")
def test_ctrl_c_on_ray_stops_the_cluster_it_started_and_the_results_resume_anywhere(
    tmp_path: Path,
) -> None:
    env = home_env(tmp_path, delay=0.4)
    tasks = tasks_file(tmp_path)
    reference = batch(tmp_path, env, tasks, "--results", "local/results.jsonl")
    assert reference.returncode == 0, reference.stderr
    results = tmp_path / "ray" / "results.jsonl"
    work = tmp_path / "work"
    args = (tasks, "--ray", "--results", results, "--workdirs", work)
    with ray_temp() as temp:
        status, err = ctrl_c(tmp_path, {**env, "RAY_TMPDIR": temp}, args, results, after=2)
        assert status == 130, err
        assert wait_gone(temp) == []  # no raylet, GCS or worker outlives the batch
    assert list(work.iterdir()) == []  # the cancelled tasks removed their copies
    assert 2 <= len(results.read_text().splitlines()) < 9
    finish = batch(tmp_path, env, tasks, "--results", results)  # the rest, on the local engine
    assert finish.returncode == 0, finish.stderr
    assert without_timings(results) == without_timings(tmp_path / "local" / "results.jsonl")
