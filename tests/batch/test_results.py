"""The results file: appended as tasks finish, resumable, rewritten in task order."""

from __future__ import annotations

import json
from pathlib import Path

from auger.batch.results import Result, ResultsFile, read_results, summary
from auger.llm.usage import Usage


def result(id: str, **fields: object) -> Result:
    base: dict[str, object] = {
        "stop_reason": "completed",
        "solved": True,
        "usage": Usage(100, 10, cost=0.5),
        "cost": 0.5,
        "duration": 1.0,
        "model_calls": 2,
        "tool_calls": 1,
        "session": f"results.sessions/{id}.jsonl",
    }
    base.update(fields)
    return Result(id=id, **base)  # type: ignore[arg-type]


def test_a_result_round_trips_through_its_dict() -> None:
    r = result("a", error="boom", attempts=2)
    assert Result.from_dict(json.loads(json.dumps(r.to_dict()))) == r


def test_appended_results_are_found_again(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    file = ResultsFile(path)
    file.append(result("a"))
    file.append(result("b", solved=False))
    assert set(ResultsFile(path).done) == {"a", "b"}
    assert len(path.read_text().splitlines()) == 2


def test_a_torn_last_line_is_ignored_and_the_next_result_starts_a_new_line(
    tmp_path: Path,
) -> None:
    path = tmp_path / "results.jsonl"
    ResultsFile(path).append(result("a"))
    with path.open("a") as f:
        f.write('{"id": "b", "stop_re')  # a crash mid-write
    file = ResultsFile(path)
    assert set(file.done) == {"a"}
    file.append(result("c"))
    assert [r.id for r in read_results(path)] == ["a", "c"]


def test_finish_rewrites_the_file_in_task_order(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    file = ResultsFile(path)
    for id in ("c", "a", "b"):
        file.append(result(id))
    file.finish(["a", "b", "c"])
    assert [json.loads(line)["id"] for line in path.read_text().splitlines()] == ["a", "b", "c"]
    assert not path.with_name("results.jsonl.tmp").exists()


def test_sessions_live_beside_the_results_and_are_recorded_relative_to_them(
    tmp_path: Path,
) -> None:
    file = ResultsFile(tmp_path / "out" / "run.jsonl")
    path = file.session_path("t1")
    assert path == tmp_path / "out" / "run.sessions" / "t1.jsonl"
    assert file.relative(path) == "run.sessions/t1.jsonl"
    assert file.relative(Path("/elsewhere/x.jsonl")) == "/elsewhere/x.jsonl"


def test_the_summary_gives_solve_rate_tokens_cost_and_a_row_per_task() -> None:
    table = summary(
        [
            result("fixed"),
            result("missed", solved=False, duration=2.0),
            result(
                "no-setup",
                stop_reason="setup_failed",
                solved=None,
                usage=Usage(),
                cost=None,
                model_calls=0,
                error="setup failed (exit status 7)",
            ),
        ]
    )
    head, _, header, *rows = table.splitlines()
    assert head == (
        "tasks 3 · solved 1/2 (50%) · tokens 200 in / 20 out · cost $1.0000 · time 4.0 s"
    )
    assert header.split()[:3] == ["id", "solved", "stop"]
    assert rows[0].split()[:3] == ["fixed", "yes", "completed"]
    assert rows[1].split()[:3] == ["missed", "no", "completed"]
    assert rows[2].endswith("setup failed (exit status 7)")


def test_an_unpriced_task_makes_the_total_cost_unknown() -> None:
    table = summary([result("a"), result("b", cost=None)])
    assert "cost –" in table.splitlines()[0]
