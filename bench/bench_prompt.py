"""Prompt economy: how big the first request is, and how much of it a prefix cache can reuse.

Run: .venv/bin/python bench/bench_prompt.py [--node-bin DIR]

For the default configuration, against a local server that records request bodies, per wire
format: the first request's size (characters of the JSON body, tokens estimated as chars / 4,
and how much of it is tool schemas); the longest common prefix between consecutive requests of
a multi-step turn (two tool calls, then an answer), as a share of the earlier request; and the
same between the first requests of two sessions in different directories on the same day.

A prefix is measured in the order a server caches it: Anthropic caches tools, then system,
then messages; Chat Completions templates (llama.cpp, vLLM) and Responses put the system text,
then the tools, then the messages.

pi (`@mariozechner/pi-coding-agent`) and Codex (`@openai/codex`) are measured the same way when
their commands are found (on PATH, or in --node-bin, e.g. `npm install --prefix /tmp/n …` then
`--node-bin /tmp/n/node_modules/.bin`); otherwise the benchmark says so and skips them.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import replies  # noqa: E402
from report import grid  # noqa: E402

from support.server import FakeServer, Reply  # noqa: E402

TARGETS = {"first_chat_chars": 5500, "in_turn": 1.0, "cross_session": 0.90}
PROMPT = "Read notes.txt and todo.txt, then say what is left to do."
APIS = ("chat-completions", "messages", "responses")


def _prompt(value: Any) -> Any:
    """`value` without what no model reads: cache markers."""
    if isinstance(value, dict):
        return {k: _prompt(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_prompt(v) for v in value]
    return value


def rendered(api: str, body: dict[str, Any]) -> str:
    """The request as one string, in the order the server's prefix cache sees it."""
    body = _prompt(body)
    tools = json.dumps(body.get("tools", []))
    if api == "messages":
        return tools + json.dumps(body.get("system", "")) + json.dumps(body["messages"])
    if api == "responses":
        # item ids (Codex sends fresh ones) label items; they are not part of the prompt
        items = [{k: v for k, v in item.items() if k != "id"} for item in body["input"]]
        return json.dumps(body.get("instructions", "")) + tools + json.dumps(items)
    messages = body["messages"]
    head = [m for m in messages[:1] if m.get("role") in ("system", "developer")]
    return json.dumps(head) + tools + json.dumps(messages[len(head) :])


def common_prefix(a: str, b: str) -> int:
    """The length of the longest common prefix of `a` and `b`."""
    n = min(len(a), len(b))
    lo, hi = 0, n
    while lo < hi:  # bisect on prefix equality: fast for long strings
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def share(a: str, b: str) -> float:
    """How much of `a` opens `b`."""
    return common_prefix(a, b) / len(a) if a else 1.0


@dataclass
class Measured:
    """One harness on one wire format."""

    harness: str
    api: str
    first: dict[str, Any]
    turn: list[dict[str, Any]]  # every request of the multi-step turn, in order
    other: dict[str, Any] | None  # the first request of the second session

    def row(self) -> list[str]:
        """The table row."""
        chars = len(json.dumps(self.first))
        tools = len(json.dumps(self.first.get("tools", [])))
        views = [rendered(self.api, body) for body in self.turn]
        steps = [share(a, b) for a, b in itertools.pairwise(views)]
        in_turn = f"{min(steps):.0%} ({len(views)} requests)" if steps else "—"
        cross = "—"
        if self.other is not None:
            cross = f"{share(rendered(self.api, self.first), rendered(self.api, self.other)):.0%}"
        names = [
            t.get("name") or t.get("function", {}).get("name") for t in self.first.get("tools", [])
        ]
        return [
            self.harness,
            self.api,
            f"{chars:,}",
            f"{chars // 4:,}",
            f"{tools:,} ({len(names)})",
            in_turn,
            cross,
        ]


# --- auger ---------------------------------------------------------------------------------

# The order the benchmark recommends, simulated with an extension until the runtime adopts it:
# what varies by project and day leaves the system prompt for a message ahead of the first user
# message, after the tools, so every session opens with the same bytes.
CONTEXT_MESSAGE = """
import os
from datetime import date

from auger.llm.messages import UserMessage


def extension(g):
    g.prompt("date", "")
    g.prompt("cwd", "")
    text = (
        f"<context>\\nThe current working directory is {os.getcwd()}.\\n"
        f"Today's date is {date.today().isoformat()}.\\n</context>"
    )
    g.on("context", lambda e: [UserMessage.of(text), *e.messages])
"""


def auger_settings(api: str, server: FakeServer, small_model: bool = False) -> dict[str, Any]:
    """A provider on the stand-in, measured as a hosted one unless `small_model` (a server on
    127.0.0.1 is otherwise taken for a local one: text-call fallback and small-model lines)."""
    base = server.url if api == "messages" else server.url + "/v1"
    local: dict[str, Any] = {"api": api, "base_url": base, "api_key_env": "LOCAL_KEY"}
    if api == "chat-completions" and not small_model:
        local["compat"] = {"tool_call_fallback": False}
    return {"model": "local/test-model", "providers": {"local": local}}


Variant = Literal["default", "context message", "MCP server", "AGENTS.md edited", "local server"]


def run_auger(api: str, server: FakeServer, tmp: Path, variant: Variant = "default") -> Measured:
    """auger's requests: the default configuration, or one variant of it."""
    home = tmp / "auger-home"
    home.mkdir(exist_ok=True)
    settings = auger_settings(api, server, small_model=variant == "local server")
    path = os.environ["PATH"]
    auger = [str(Path(sys.executable).parent / "auger"), "-p"]
    first_step = replies.calls(api, ("call_1", "read", {"path": "notes.txt"}))
    if variant == "context message":
        (tmp / "context_message.py").write_text(CONTEXT_MESSAGE)
        auger += ["--extension", str(tmp / "context_message.py")]
    elif variant == "MCP server":  # its tools arrive once it has started: here, mid-turn
        settings["mcp"] = {"servers": {"time": {"command": "mcp-server-time"}}}
        path = f"{Path(sys.executable).parent}{os.pathsep}{path}"
        half = len(first_step.body) // 2  # a slow first step, so the server is up before the next
        first_step = Reply(chunks=[first_step.body[:half], first_step.body[half:]], chunk_delay=3.0)
    elif variant == "AGENTS.md edited":  # the turn's first step edits the instructions
        (home / "AGENTS.md").write_text("Keep answers short.\n")
        edit = {"path": str(home / "AGENTS.md"), "content": "Keep answers shorter.\n"}
        first_step = replies.calls(api, ("call_1", "write", edit))
    (home / "settings.json").write_text(json.dumps(settings))
    env = {"PATH": path, "HOME": str(tmp), "AUGER_HOME": str(home), "LOCAL_KEY": "sk"}
    turn = [
        first_step,
        replies.calls(api, ("call_2", "read", {"path": "todo.txt"})),
        replies.text(api, "Nothing is left."),
    ]
    first, other = session_pair(server, lambda cwd: run([*auger, PROMPT], env, cwd), tmp, turn, api)
    label = "auger" if variant == "default" else f"auger: {variant}"
    return Measured(label, api, first[0], first, other)


# --- pi and Codex --------------------------------------------------------------------------


def run_pi(command: str, server: FakeServer, tmp: Path) -> Measured:
    agent = tmp / "pi-home" / ".pi" / "agent"
    agent.mkdir(parents=True, exist_ok=True)
    models = {
        "providers": {
            "local": {
                "baseUrl": server.url + "/v1",
                "api": "openai-completions",
                "apiKey": "sk",
                "models": [{"id": "test-model"}],
            }
        }
    }
    (agent / "models.json").write_text(json.dumps(models))
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp / "pi-home"), "PI_OFFLINE": "1"}
    argv = [command, "-p", "--provider", "local", "--model", "test-model", "--no-session", PROMPT]
    api = "chat-completions"
    turn = [
        replies.calls(api, ("call_1", "read", {"path": "notes.txt"})),
        replies.calls(api, ("call_2", "read", {"path": "todo.txt"})),
        replies.text(api, "Nothing is left."),
    ]
    first, other = session_pair(server, lambda cwd: run(argv, env, cwd), tmp, turn, api)
    return Measured("pi", api, first[0], first, other)


def run_codex(command: str, server: FakeServer, tmp: Path) -> Measured:
    home = tmp / "codex-home"
    home.mkdir(exist_ok=True)
    (home / "config.toml").write_text(codex_config(server))
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp), "CODEX_HOME": str(home)}
    argv = [command, "exec", "--skip-git-repo-check", PROMPT]
    api = "responses"
    turn = [
        replies.calls(api, ("call_1", "exec_command", {"cmd": "cat notes.txt"})),
        replies.calls(api, ("call_2", "exec_command", {"cmd": "cat todo.txt"})),
        replies.text(api, "Nothing is left."),
    ]
    first, other = session_pair(server, lambda cwd: run(argv, env, cwd), tmp, turn, api)
    return Measured("Codex", api, first[0], first, other)


def codex_config(server: FakeServer) -> str:
    """A Codex config.toml pointing at `server` (Responses), with nothing else to reach."""
    return (
        'model = "test-model"\nmodel_provider = "local"\n'
        'approval_policy = "never"\nsandbox_mode = "read-only"\n'
        "[analytics]\nenabled = false\n"
        "[model_providers.local]\n"
        f'name = "local"\nbase_url = "{server.url}/v1"\nwire_api = "responses"\n'
    )


# --- running -------------------------------------------------------------------------------


def run(argv: Sequence[str], env: dict[str, str], cwd: Path) -> None:
    result = subprocess.run(
        argv,
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    if result.returncode != 0:
        raise RuntimeError(f"{argv[0]} exited {result.returncode}: {result.stderr[-500:]}")


def session_pair(
    server: FakeServer,
    start: Callable[[Path], None],
    tmp: Path,
    turn: list[Reply],
    api: str,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The requests of a multi-step turn in one project, and the first of a session in another."""
    projects = [tmp / "alpha", tmp / "services" / "billing-api"]
    for project in projects:
        project.mkdir(parents=True, exist_ok=True)
        (project / "notes.txt").write_text("Ship the release.\n")
        (project / "todo.txt").write_text("- write the changelog\n")
    seen = len(server.requests)
    server.queue(*turn)
    start(projects[0])
    first = [r.body for r in server.requests[seen:]]
    seen = len(server.requests)
    server.queue(replies.text(api, "Hello."))
    start(projects[1])
    return first, server.requests[seen].body


def find(name: str, node_bin: Path | None) -> str | None:
    if node_bin is not None and (node_bin / name).exists():
        return str(node_bin / name)
    return shutil.which(name)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--node-bin", type=Path, help="where npm put `pi` and `codex`")
    args = parser.parse_args()
    measured: list[Measured] = []
    notes: list[str] = []
    with FakeServer() as server:
        variants: list[tuple[Variant, tuple[str, ...]]] = [
            ("default", APIS),
            ("context message", APIS),
            ("MCP server", ("chat-completions",)),
            ("AGENTS.md edited", ("chat-completions",)),
            ("local server", ("chat-completions",)),
        ]
        for variant, apis in variants:
            for api in apis:
                with tempfile.TemporaryDirectory() as tmp:
                    try:
                        measured.append(run_auger(api, server, Path(tmp), variant))
                    except RuntimeError as exc:
                        notes.append(f"auger ({variant}, {api}): failed — {exc}")
        for name, label, runner, package in (
            ("pi", "pi", run_pi, "@mariozechner/pi-coding-agent"),
            ("codex", "Codex", run_codex, "@openai/codex"),
        ):
            command = find(name, args.node_bin)
            if command is None:
                notes.append(f"{label}: skipped — `{name}` not found (npm install {package})")
                continue
            try:
                with tempfile.TemporaryDirectory() as tmp:
                    measured.append(runner(command, server, Path(tmp)))
            except (RuntimeError, subprocess.TimeoutExpired, IndexError) as exc:
                notes.append(f"{label}: failed — {exc}")
    headers = [
        "harness",
        "wire format",
        "first request, chars",
        "≈ tokens",
        "of it tool schemas (tools)",
        "in-turn prefix, min",
        "other directory",
    ]
    print(f"python {sys.version.split()[0]} · prompt: {PROMPT!r}\n")
    print(grid(headers, [m.row() for m in measured]))
    chat = next(m for m in measured if m.harness == "auger" and m.api == "chat-completions")
    chars = len(json.dumps(chat.first))
    mark = "✓" if chars <= TARGETS["first_chat_chars"] else "✗"
    most = TARGETS["first_chat_chars"]
    print(
        f"\ntargets: auger's Chat Completions first request ≤ {most:,} chars {mark} ({chars:,}); ",
        end="",
    )
    print("in-turn prefix 100%; other directory ≥ 90%")
    for note in notes:
        print(note)


if __name__ == "__main__":
    main()
