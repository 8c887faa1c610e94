"""The tables a room holds and how each one leaves it: finished (after a
linger, so players read the end), idle, cancelled, failed, deserted, its
players no-shows, handed off to another room, moved (resumed elsewhere) or
closed by an administrator. Each table tells the room through this object
(actors.table.TableOwner), from inside its own step, so every end here is
scheduled or idempotent, never re-entrant; the lobby hears of each in the
room's next report."""

from __future__ import annotations

import asyncio
import ctypes
import logging
import time
from dataclasses import dataclass
from typing import Any

from tablehost.actors.config import RoomConfig
from tablehost.actors.log_format import log_fields
from tablehost.actors.outbound import StreamEnd
from tablehost.actors.room_calls import OpenedTable, TableClosed, TableOver
from tablehost.actors.room_reports import RoomReports
from tablehost.actors.store import TableStore
from tablehost.actors.table import Table

log = logging.getLogger("tablehost.room")

# A room gives freed heap back to the OS when it empties, at most this often
# (malloc_trim walks the whole heap).
_TRIM_INTERVAL_S = 10.0


def _release_free_heap() -> None:
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: nothing to trim
        pass


@dataclass(frozen=True, slots=True)
class TableLog:
    """A table's match header and every accepted command, as plain data:
    what a replay needs to rebuild its state."""

    header: dict[str, Any]
    commands: tuple[dict[str, Any], ...]


@dataclass(frozen=True, slots=True)
class TableStatus:
    """One table's counters and state hash (what tests check behind the wire)."""

    table_id: str
    seq: int
    over: bool
    streams: int
    moves: int
    automatic_moves: int
    rejects: int
    desyncs: int
    streams_flooded: int
    state_hash: str
    remembered_rejections: int


class RoomTables:
    """The room's open tables by id, with who sits where at each
    (room_calls.OpenedTable), and every way one ends."""

    def __init__(self, room_id: str, config: RoomConfig, reports: RoomReports) -> None:
        self.room_id = room_id
        self._config = config
        self._reports = reports
        self.tables: dict[str, Table] = {}
        self.opened: dict[str, OpenedTable] = {}
        self.failed = 0
        # Set when the room starts with a store: where ends are recorded.
        self.store: TableStore | None = None
        self._last_trim = 0.0

    def add(self, table: Table, opened: OpenedTable) -> None:
        self.tables[table.table_id] = table
        self.opened[table.table_id] = opened

    def watch_for_no_shows(self, table: Table, window: float) -> None:
        """Judge who never came at the end of `window` (a tournament's table,
        whose players are told where it is by their tournament) instead of
        by the deserted-table grace."""
        table.streams.deserted_since = None
        asyncio.get_running_loop().call_later(window, self._check_no_shows, table, window)

    def _check_no_shows(self, table: Table, window: float) -> None:
        """The end of a table's no-show window: the seats that never opened a
        stream are no-shows, reported with the result. Fewer than two seats
        present leaves no game worth playing out on timers: the table ends
        now, reported without a result."""
        if self.tables.get(table.table_id) is not table or table.over or table.failure is not None:
            return
        absent = [seat for seat in range(table.seat_count) if seat not in table.streams.seats_seen]
        if not absent:
            return
        table.no_shows = tuple(absent)
        if table.streams.seated == 0:
            table.streams.deserted_since = time.monotonic()
        if table.seat_count - len(absent) >= 2:
            log.info("room %s: seats %s of table %s did not show up within %.0f s; the game goes on",
                     self.room_id, absent, table.table_id, window)
            return
        self._reports.over(TableOver(table.table_id, None, tuple(absent)))
        self.close(table, f"seats {absent} did not show up within {window:.0f} s")

    def log_of(self, table_id: str) -> TableLog | None:
        table = self.tables.get(table_id)
        if table is None:
            return None
        return TableLog(table.match.header().to_plain(), tuple(command.to_plain() for command in table.match.commands))

    def status_of(self, table_id: str) -> TableStatus | None:
        table = self.tables.get(table_id)
        if table is None:
            return None
        return TableStatus(
            table_id=table.table_id,
            seq=table.seq,
            over=table.over,
            streams=len(table.streams.live),
            moves=table.stats.moves,
            automatic_moves=table.stats.automatic_moves,
            rejects=table.stats.rejects,
            desyncs=table.stats.desyncs,
            streams_flooded=table.stats.floods,
            state_hash=table.match.state_hash(),
            remembered_rejections=table.remembered_rejections,
        )

    # -- what a table tells its room (actors.table.TableOwner) --------------------

    def table_finished(self, table: Table) -> None:
        """Report the result now (a tournament waits for it), close after the linger."""
        self._reports.over(TableOver(table.table_id, table.match.result, table.no_shows))
        asyncio.get_running_loop().call_later(self._config.linger_s, self.close, table, "the game is over")

    def table_idle(self, table: Table) -> None:
        if table.over:
            # Everyone has their final messages and has gone: no need to linger.
            asyncio.get_running_loop().call_soon(self.close, table, "the game is over")

    def table_cancelled(self, table: Table) -> None:
        self._forget(table, "cancelled", absent=list(table.cancelled_for))

    def table_failed(self, table: Table, details: str) -> None:
        self.failed += 1
        self._forget(table, "failed")

    def table_moved(self, table: Table) -> None:
        """Another room resumed this table: drop it here, without telling the
        lobby it ended (it did not) or marking it finished in the store."""
        self.drop(table)
        if self.store is not None:
            asyncio.get_running_loop().run_in_executor(None, self.store.forget, table.table_id)

    # -- ends the room decides ------------------------------------------------------

    def hand_off(self, table_ids: list[str]) -> list[str]:
        """Let other rooms take these tables over (the lobby is draining this
        room): each one's streams end UNAVAILABLE, which sends its players to
        the lobby to ask where it went, and the table is dropped here without
        being finished in the store. The room it resumes in claims it with a
        new epoch, so a command still being written here is either in the
        journal it resumes from or refused (fenced): its client, which never
        heard it accepted, sends it again. Returns the tables handed off; a
        game already over is closed instead, as it would be after its linger."""
        handed = []
        for table_id in table_ids:
            table = self.tables.get(table_id)
            if table is None:
                continue  # closed meanwhile: the lobby hears so in the room's next report
            if table.over or table.failure is not None:
                self.close(table, "the game is over")
                continue
            table.close("this room is being drained and the table is moving to another room; ask the lobby where")
            self.drop(table)
            handed.append(table_id)
        log.info("room %s handed off %d tables; %d tables open", self.room_id, len(handed), len(self.tables))
        return handed

    def close_deserted(self, grace: float) -> None:
        """Close each table whose players have all been away for `grace`
        seconds (timers play the absent players' turns until then), so one
        that everybody left, or nobody ever joined, does not hold its slot."""
        now = time.monotonic()
        for table in list(self.tables.values()):
            since = table.streams.deserted_since
            # A table not yet dealt is judged at its deal's deadline instead.
            if since is not None and not table.over and table.match.dealt and now - since >= grace:
                log.info("room %s: every player left table %s %.0f s ago; closing it",
                         self.room_id, table.table_id, now - since)
                self.close(table, "every player left the table")

    def drop(self, table: Table) -> None:
        """Forget the table here only: it lives on elsewhere, or never began."""
        if self.tables.get(table.table_id) is table:
            del self.tables[table.table_id]
            del self.opened[table.table_id]

    def close(self, table: Table, details: str, ending: StreamEnd | None = None) -> None:
        """End the table's streams and finish it in the store; a second close is nothing."""
        if self.tables.get(table.table_id) is not table:
            return
        table.close(details, ending)
        self._forget(table, "finished" if table.over else "closed")

    def _forget(self, table: Table, outcome: str, absent: list[int] | None = None) -> None:
        self.drop(table)
        if self.store is not None:
            # Not resumed again: a finished game, a deserted or failed table.
            asyncio.get_running_loop().run_in_executor(None, self.store.finish, table.table_id, table.epoch, outcome)
        log.info("room %s closed table %s (%s); %d tables open", self.room_id, table.table_id, outcome, len(self.tables),
                 extra=log_fields("table_closed", table_id=table.table_id, room_id=self.room_id, seq=table.seq))
        self._reports.closed(TableClosed(table.table_id, outcome, tuple(absent or ())))
        now = time.monotonic()
        if not self.tables and now - self._last_trim >= _TRIM_INTERVAL_S:
            self._last_trim = now
            _release_free_heap()  # a room's memory is its tables': give the freed heap back
