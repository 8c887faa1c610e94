"""How each table a tournament placed stands, as the lobby answers it, and
the wait for the first of a round's tables to settle: a tournament waits on
this instead of polling the lobby."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tablehost.actors.table_directory import TableDirectory, TableRecord


@dataclass(frozen=True, slots=True)
class TableState:
    """How a table stands: "running"; "finished" with its result and its
    no-show seats; "no_show": ended by them, without a result; "adjudicated"
    with the places an administrator decided; "ended" without one
    (deserted, failed or closed: `outcome`); or "unknown" for a table the
    lobby does not know."""

    state: str
    result: dict[str, Any] | None = None
    no_show: tuple[int, ...] = ()
    places: tuple[int, ...] = ()
    outcome: str = ""


def table_state(record: TableRecord | None) -> TableState:
    if record is None:
        return TableState("unknown")
    if record.adjudicated is not None:
        return TableState("adjudicated", places=tuple(record.adjudicated))
    if record.result is not None:
        return TableState("finished", record.result, tuple(record.no_show or ()))
    if record.no_show is not None:
        return TableState("no_show", no_show=tuple(record.no_show))
    if record.running or record.outcome == "finished":
        # A game over and closed whose result is on its way: its room
        # reports both at once, and Ray may run the two calls in either order.
        return TableState("running")
    return TableState("ended", outcome=record.outcome or "")


class TableResults:
    def __init__(self, directory: TableDirectory) -> None:
        self._directory = directory
        self._arrived = asyncio.Event()

    def changed(self) -> None:
        """A table's result or ending arrived: every waiter looks again."""
        self._arrived.set()
        self._arrived = asyncio.Event()

    async def wait(self, table_ids: Sequence[str], timeout_s: float) -> dict[str, TableState]:
        """Each table's state once one of them is no longer running, or after `timeout_s`."""
        deadline = time.monotonic() + timeout_s
        while True:
            states = {table_id: table_state(self._directory.get(table_id)) for table_id in table_ids}
            remaining = deadline - time.monotonic()
            if remaining <= 0 or any(state.state != "running" for state in states.values()):
                return states
            try:
                await asyncio.wait_for(self._arrived.wait(), remaining)
            except TimeoutError:
                pass
