"""What a table session's callers await: the protocol's asynchronous answers
turned into results. Each wait re-checks its condition on the seat's replica
at every change and ends with the answer, or with what stopped the stream
(SessionDisconnected) or TimeoutError."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any, TypeVar

from tablehost.clients.codec import View
from tablehost.clients.table_replica import NOT_YET, CommitOutcome, GameResult, TableReplica
from tablehost.clients.table_stream import TableStream
from tablehost.v1 import table_pb2

T = TypeVar("T")


class TableWaits:
    """The waits of one session (TableSession says what each answers)."""

    def __init__(self, replica: TableReplica, stream: TableStream) -> None:
        self._replica = replica
        self._stream = stream

    async def first_message(self, timeout: float | None) -> None:
        """Once the table's first snapshot (or the game's end) arrived."""
        replica = self._replica
        await self._until(lambda: True if replica.have_view or replica.result is not None else NOT_YET, timeout,
                          what=f"the first snapshot of table {replica.table_id}")

    async def dealt(self, timeout: float | None) -> View:
        replica = self._replica
        return await self._until(lambda: replica.view if replica.dealt or replica.result is not None else NOT_YET,
                                 timeout, what=f"the deal of table {replica.table_id}")

    async def request(self, after_seq: int, timeout: float | None) -> View | None:
        replica = self._replica

        def ready() -> View | None:
            if replica.result is not None:
                return None
            if replica.seq > after_seq and replica.request is not None:
                return replica.view
            return NOT_YET

        return await self._until(ready, timeout, what=f"a request for seat {replica.seat}")

    async def commit(self, action: dict[str, Any], act_id: str, timeout: float) -> CommitOutcome:
        """Register the commit, write it, and wait for its outcome."""
        pending = self._replica.expect(act_id, action)
        started = time.perf_counter()
        try:
            # A failed write is not an error here: a reconnect sends every
            # pending commit again, and otherwise the wait below reports why.
            await self._stream.connection.send(
                table_pb2.ClientMessage(commit=table_pb2.Commit(act_id=act_id, action=pending.action)))
            outcome = await self._until(lambda: pending.future.result() if pending.future.done() else NOT_YET,
                                        timeout, what=f"the outcome of commit {act_id}")
        finally:
            self._replica.forget(act_id)
        return dataclasses.replace(outcome, round_trip_s=time.perf_counter() - started)

    async def game_over(self, timeout: float | None) -> GameResult:
        replica = self._replica
        return await self._until(lambda: replica.result if replica.result is not None else NOT_YET, timeout,
                                 what=f"the end of the game at table {replica.table_id}")

    async def _until(self, ready: Callable[[], T], timeout: float | None, *, what: str) -> T:
        return await self._replica.wait_until(ready, timeout, what=what, check_usable=self._stream.raise_if_unusable)
