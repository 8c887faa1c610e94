"""A player's failure in a load run is a finding, recorded and not raised;
a player cancelled at the run's deadline is recorded with where it was, and
its task goes on to its cleanup instead of ending cancelled."""

from __future__ import annotations

import asyncio

from tablehost.clients.loadrun import failures_recorded


def test_a_failure_and_a_cancellation_are_recorded_and_the_cleanup_runs() -> None:
    recorded: list[str] = []
    cleaned: list[str] = []

    async def player(name: str, fail: bool) -> None:
        stage = "queueing"
        try:
            with failures_recorded(recorded.append, name, lambda: stage, "the run timed out"):
                stage = "playing seat 2"
                if fail:
                    raise ConnectionError("the room went away")
                await asyncio.sleep(60)
        finally:
            cleaned.append(name)

    async def run() -> tuple[bool, bool]:
        failing = asyncio.create_task(player("a", fail=True))
        stuck = asyncio.create_task(player("b", fail=False))
        await asyncio.sleep(0)
        stuck.cancel()
        await asyncio.wait([failing, stuck])
        return failing.cancelled(), stuck.cancelled()

    assert asyncio.run(run()) == (False, False)
    assert sorted(recorded) == ["a: ConnectionError while playing seat 2: the room went away",
                                "b: still playing seat 2 when the run timed out"]
    assert sorted(cleaned) == ["a", "b"]
