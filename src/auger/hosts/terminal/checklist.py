"""The model's todo list as the terminal shows it: a checklist above the input while any item
is open, and one finished line in the scrollback once every item is done."""

from __future__ import annotations

from typing import Any

MARKS = {"pending": ("class:todo", "☐ "), "in_progress": ("class:todo.active", "▸ ")}
DONE = ("class:todo.done", "✔ ")


class Checklist:
    """The latest `todo` record of the main agent."""

    def __init__(self) -> None:
        self.items: tuple[dict[str, str], ...] = ()

    def update(self, record: Any) -> str | None:
        """Take a new list; the line to print once every item of it is completed."""
        items = tuple(record.items)
        if items and all(i["status"] == "completed" for i in items):
            self.items = ()
            return f"✔ todo: all {len(items)} done"
        self.items = items
        return None

    @property
    def open(self) -> bool:
        """Whether there is a list to show."""
        return bool(self.items)

    def spans(self) -> list[tuple[str, str]]:
        """The checklist as `(style class, text)` fragments, one line per item."""
        out: list[tuple[str, str]] = []
        for n, item in enumerate(self.items):
            style, mark = MARKS.get(item["status"], DONE)
            out.append((style, ("\n" if n else "") + mark + item["content"]))
        return out
