"""`/undo` and `/rewind`: a checkpoint of the project's files before and after every turn.

Checkpoints live in a shadow git store under `~/.auger/checkpoints/`, so whatever changed the
files — `write`, `edit`, a shell command — is undone, and the user's own git is never touched.
The session remembers each turn's checkpoints as `custom` entries, so `auger -p -c /undo` in a
later process finds them. Undoing a turn also moves the conversation back to before it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import msgspec

from auger.commands.checkpoints import CheckpointError, ShadowStore
from auger.engine.context import Context
from auger.session.entries import CustomEntry, Entry
from auger.session.paths import cwd_slug

BEFORE, AFTER = "checkpoint", "checkpoint_end"


class Turn(msgspec.Struct, frozen=True):
    """One checkpointed turn: the entry the conversation was at before it, its prompt, and
    the trees of the files before and after it."""

    parent_id: str | None
    text: str
    before: str
    after: str | None


def turns(branch: list[Entry]) -> list[Turn]:
    """The checkpointed turns of a branch, oldest first."""
    found: list[Turn] = []
    for entry in branch:
        if not isinstance(entry, CustomEntry) or not isinstance(entry.data, dict):
            continue
        tree = entry.data.get("tree")
        if entry.kind == BEFORE and isinstance(tree, str):
            leaf = entry.data.get("leaf")
            text = str(entry.data.get("turn", ""))
            found.append(Turn(leaf if isinstance(leaf, str) else None, text, tree, None))
        elif entry.kind == AFTER and isinstance(tree, str) and found:
            found[-1] = msgspec.structs.replace(found[-1], after=tree)
    return found


class Checkpoints:
    """The extension: snapshots on `turn_start` / `turn_end`, and the two commands."""

    def __init__(self, home: Path, cwd: Path, user_home: Path) -> None:
        self._where = home / "checkpoints" / cwd_slug(cwd)
        self._cwd = cwd
        self._off = cwd in (Path(cwd.anchor), user_home)
        # the running turn's "before" snapshot: taken while the model is first asked, so git
        # never delays a request; awaited before any tool may change a file
        self._before: asyncio.Future[str | None] | None = None
        self._data: dict[str, Any] | None = None  # the open turn's prompt and leaf
        self._warned = False

    def store(self, env: Any) -> ShadowStore:
        """The project's shadow store."""
        return ShadowStore(self._where, self._cwd, env)

    def register(self, g: Any) -> None:
        """Registers the handlers and commands."""
        g.on("turn_start", self.turn_start)
        g.on("tool_call", self.tool_call)
        g.on("turn_end", self.turn_end)
        g.command("undo", self.undo, "restore the files (and conversation) to before the last turn")
        g.command("rewind", self.rewind, "restore the files to before a chosen turn: /rewind [N]")

    async def _snapshot(self, ctx: Any) -> str | None:
        try:
            return await self.store(ctx.env).snapshot()
        except (CheckpointError, OSError) as exc:  # a read-only home: no /undo, said once
            if not self._warned:
                self._warned = True
                ctx.notify(f"no checkpoint for /undo: {exc}", "warning")
            return None

    async def turn_start(self, event: Any, ctx: Any) -> None:
        """Start the snapshot of the files as they are before the turn."""
        if self._off:
            return
        branch = ctx.branch()
        first = event.text.strip().split("\n", 1)[0][:200]
        self._data = {"turn": first, "leaf": branch[-1].id if branch else None}
        self._before = asyncio.ensure_future(self._snapshot(ctx))

    async def _save_before(self, ctx: Any) -> None:
        task, self._before = self._before, None
        tree = await task if task is not None else None
        if tree is None:
            self._data = None  # no "before": the turn cannot be undone, so no "after" either
        else:
            ctx.append_custom(BEFORE, {"tree": tree, **(self._data or {})})

    async def tool_call(self, event: Any, ctx: Any) -> None:
        """No tool runs before the "before" snapshot is taken."""
        if self._before is not None:
            await self._save_before(ctx)

    async def turn_end(self, event: Any, ctx: Any) -> None:
        """Snapshot the files after the turn (a command's own `turn_end` has no turn)."""
        if self._before is not None:
            await self._save_before(ctx)
        data, self._data = self._data, None
        if data is None:
            return
        tree = await self._snapshot(ctx)
        if tree is not None:
            ctx.append_custom(AFTER, {"tree": tree})

    async def undo(self, ctx: Context) -> None:
        """Restore the files to before the last turn, and the conversation with them."""
        done = turns(ctx.branch())
        if not done:
            await ctx.say("Nothing to undo: no turn has a checkpoint on this branch.")
            return
        await self._restore(ctx, done, len(done))

    async def rewind(self, ctx: Context) -> None:
        """`/rewind N`: restore to before turn N (as `/rewind` lists them)."""
        done = turns(ctx.branch())
        if not done:
            await ctx.say("Nothing to rewind: no turn has a checkpoint on this branch.")
            return
        choice = ctx.args.strip()
        if not choice:
            labels = [f"{n}. {t.text or '(empty prompt)'}" for n, t in enumerate(done, 1)]
            answer = await ctx.ask("Rewind to before which turn?", labels)
            if answer is None:
                listing = "\n".join(labels)
                await ctx.say(f"Turns with a checkpoint:\n{listing}\nRewind with /rewind N.")
                return
            choice = str(answer).split(".", 1)[0]
        if not choice.isdigit() or not 1 <= int(choice) <= len(done):
            ctx.notify(f"/rewind takes a turn number from 1 to {len(done)}", "error")
            return
        await self._restore(ctx, done, int(choice))

    async def _restore(self, ctx: Context, done: list[Turn], number: int) -> None:
        store = self.store(ctx.env)
        target = done[number - 1]
        try:
            now = None
            paths: set[str] = set()
            for turn in done[number - 1 :]:
                if turn.after is None and now is None:
                    now = await store.snapshot()
                paths.update(await store.changed(turn.before, turn.after or now or turn.before))
            rewritten, removed = await store.restore(target.before, paths)
        except CheckpointError as exc:
            ctx.notify(f"undo failed: {exc}", "error")
            return
        await ctx.controls.navigate(target.parent_id)
        lines = [f"  restored {p}" for p in rewritten] + [f"  removed {p}" for p in removed]
        what = "\n".join(lines) if lines else "  (the turn changed no files)"
        await ctx.say(f"Back to before turn {number} ({target.text!r}):\n{what}")


def extension(g: Any) -> None:
    """Registers `/undo`, `/rewind` and the checkpoints they use."""
    Checkpoints(g.home, g.cwd, g.user_home).register(g)
