"""A tournament's tables as the lobby reports them, without Ray: each state
a table can be in, and the wait that returns as soon as one of them settles
(or at its timeout), never polling."""

from __future__ import annotations

import asyncio

from tablehost.actors.table_directory import TableDirectory, TableRecord
from tablehost.actors.table_results import TableResults, TableState, table_state


def record(table_id: str, **fields) -> TableRecord:
    return TableRecord(table_id=table_id, game="duel", variant="", commitment="c" * 64, room_id="room-1",
                       endpoint="127.0.0.1:1", players=["ann", "bo"], tickets=["a", "b"], clients=["", ""],
                       join=[{}, {}], entrants=["a", "b"], options={}, started_ms=0, **fields)


def test_each_state_a_table_can_be_in() -> None:
    assert table_state(None) == TableState("unknown")
    assert table_state(record("t1")) == TableState("running")
    assert table_state(record("t2", outcome="finished")) == TableState("running")  # its result is on its way
    assert table_state(record("t3", outcome="finished", result={"winner": 0})) == TableState(
        "finished", result={"winner": 0})
    assert table_state(record("t4", outcome="no_show", no_show=[1])) == TableState("no_show", no_show=(1,))
    assert table_state(record("t5", outcome="closed", adjudicated=[1, 0])) == TableState("adjudicated", places=(1, 0))
    assert table_state(record("t6", outcome="deserted")) == TableState("ended", outcome="deserted")


def test_the_wait_returns_when_one_table_settles_or_at_its_timeout() -> None:
    async def scenario():
        directory = TableDirectory(retention_s=600.0)
        running = record("t1")
        directory.add(running)
        directory.add(record("t2"))
        results = TableResults(directory)
        timed_out = await results.wait(["t1", "t2"], timeout_s=0.05)
        waiting = asyncio.ensure_future(results.wait(["t1", "t2"], timeout_s=30))
        await asyncio.sleep(0)
        assert not waiting.done()
        running.outcome, running.result = "finished", {"winner": 1}
        results.changed()
        settled = await asyncio.wait_for(waiting, 5)
        return timed_out, settled

    timed_out, settled = asyncio.run(scenario())
    assert {state.state for state in timed_out.values()} == {"running"}
    assert settled["t1"].state == "finished" and settled["t2"].state == "running"
