"""Reading tasks: every bad line is reported with its number and skipped."""

from __future__ import annotations

from pathlib import Path

import pytest

from auger.batch.driver import as_tasks
from auger.batch.tasks import Task, load_tasks, parse_tasks


def test_good_lines_become_tasks_and_blank_and_comment_lines_are_ignored() -> None:
    tasks, errors = parse_tasks(
        ['{"id": "a", "prompt": "fix it", "check": "make test", "max_steps": 5}', "", "# note"]
    )
    assert errors == []
    assert tasks == [Task(id="a", prompt="fix it", check="make test", max_steps=5)]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"id": "a", "prompt": ', "truncated"),
        ("[1, 2]", "Expected `object`"),
        ('{"prompt": "x"}', "missing required field `id`"),
        ('{"id": "a", "prompt": "x", "colour": "red"}', "unknown field `colour`"),
        ('{"id": "a/b", "prompt": "x"}', "without '/'"),
        ('{"id": "a", "prompt": "  "}', "prompt must not be empty"),
        ('{"id": "a", "prompt": "x", "path": "p", "git": "g"}', "not both"),
        ('{"id": "a", "prompt": "x", "ref": "main"}', "ref needs git"),
        ('{"id": "a", "prompt": "x", "max_steps": 0}', "at least 1"),
        ('{"id": "a", "prompt": "x", "timeout": -1}', "timeout must be positive"),
        ('{"id": "a", "prompt": "x", "permission_mode": "yolo"}', "Invalid enum value 'yolo'"),
    ],
)
def test_a_bad_line_is_reported_with_its_number_and_skipped(line: str, message: str) -> None:
    ok = '{"id": "ok", "prompt": "x"}'
    tasks, errors = parse_tasks([ok, line, '{"id": "ok2", "prompt": "y"}'])
    assert [t.id for t in tasks] == ["ok", "ok2"]
    assert len(errors) == 1
    assert errors[0].line == 2
    assert message in errors[0].message
    assert str(errors[0]).startswith("line 2: ")


def test_a_repeated_id_is_an_error_on_its_later_line() -> None:
    tasks, errors = parse_tasks(['{"id": "a", "prompt": "x"}', '{"id": "a", "prompt": "y"}'])
    assert [t.prompt for t in tasks] == ["x"]
    assert [(e.line, e.message) for e in errors] == [(2, "duplicate id 'a'")]


def test_a_relative_path_is_resolved_against_the_tasks_file(tmp_path: Path) -> None:
    (tmp_path / "suite").mkdir()
    file = tmp_path / "suite" / "tasks.jsonl"
    file.write_text(
        '{"id": "a", "prompt": "x", "path": "repo"}\n{"id": "b", "prompt": "x", "path": "/abs"}\n'
    )
    tasks, _ = load_tasks(file)
    assert [t.path for t in tasks] == [str(tmp_path / "suite" / "repo"), "/abs"]


def test_a_python_list_takes_dicts_and_rejects_a_bad_one_by_index() -> None:
    assert as_tasks([{"id": "a", "prompt": "x"}, Task("b", "y")])[1].id == "b"
    with pytest.raises(ValueError, match=r"task 1: .*max_steps"):
        as_tasks([{"id": "a", "prompt": "x"}, {"id": "b", "prompt": "x", "max_steps": 0}])
    with pytest.raises(ValueError, match="task 1: duplicate id 'a'"):
        as_tasks([Task("a", "x"), Task("a", "y")])
