"""A background job through the Runtime: its exit is streamed and the model is told."""

from __future__ import annotations

from pathlib import Path

from auger.llm.scripted import Call, Reply, ScriptedProvider
from auger.records import JobExit
from support.runtime import collect, make_runtime


async def test_job_exit_is_streamed_and_the_next_request_mentions_it(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        [
            Reply.of(Call("bash", {"command": "echo finished", "run_in_background": True})),
            Reply.of(Call("bash", {"command": "sleep 0.5"})),
            Reply.of("all done"),
        ]
    )
    rt = make_runtime(
        tmp_path,
        provider,
        bundled=True,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        settings={"permissions": {"mode": "auto"}},
    )
    records = await collect(rt, "start a job")
    exits = [r for r in records if isinstance(r, JobExit)]
    assert len(exits) == 1 and exits[0].exit_status == 0 and exits[0].command == "echo finished"
    assert Path(exits[0].output_path).read_text() == "finished\n"
    told = provider.requests[2].messages[-1].text
    assert exits[0].job_id in told and "exit" in told.lower()
    types = [r.type for r in records]
    assert types.index("job_exit") > types.index("after_tool_call")
    assert records[-1].text == "all done"
    await rt.close()
