"""The room actor: a card room with many tables. One process, one grpc.aio
server on the actor's own event loop, up to `tables_per_room` tables.

Rooms are detached named actors (`room_actor_name`): a lobby that dies
does not take them down, and the lobby Ray restarts takes them back with
`inventory`, which also names each table's record (who sits where, from
what seed), so the lobby's table directory is rebuilt from the rooms.

Each table (actors.table.Table) keeps its own seq, log, timers, rate limits
and subscribers; the room routes each stream to its table by the table id
in the seat token, so a move costs no Ray call. Ray calls reach a room only
per batch of new tables, for status, and to watch it (the lobby keeps one
`watch` call open per room so that the room's death is noticed at once).

A table whose rules raise unexpectedly is closed with a clear status and
logged; the room's other tables carry on. Closed tables are reported to the
lobby in batches, so it can reuse their slots."""

from __future__ import annotations

import asyncio
import ctypes
import dataclasses
import logging
import os
import time
from typing import Any

import ray

from tablehost.actors import crash_points
from tablehost.actors.config import RoomConfig
from tablehost.actors.journal import Journal, through_outage
from tablehost.actors.log_format import configure_logging, log_fields
from tablehost.actors.process_tuning import tune_garbage_collection
from tablehost.actors.store import TableExists, TableStore, open_store
from tablehost.actors.outbound import StreamEnd
from tablehost.actors.room_reports import RoomReports
from tablehost.actors.room_server import RoomServer
from tablehost.actors.room_calls import RoomStarted, TableClosed, TableOpening, TableOver, TableRequest, table_record
from tablehost.actors.table import Table, resume_table
from tablehost.actors.versions import code_versions, why_not_resumable
from tablehost.games.registry import GameCatalog

log = logging.getLogger("tablehost.room")

# A burst of new tables yields to the room's running tables this often.
_OPEN_BEFORE_YIELDING = 50
# A room gives freed heap back to the OS when it empties, at most this often
# (malloc_trim walks the whole heap).
_TRIM_INTERVAL_S = 10.0


def room_actor_name(lobby_name: str, room_id: str) -> str:
    """Rooms are named after their lobby, so a restarted lobby finds its own."""
    return f"{lobby_name}/{room_id}"


def _release_free_heap() -> None:
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: nothing to trim
        pass


@ray.remote(num_cpus=0)
class RoomActor:
    def __init__(self, room_id: str, config: RoomConfig, lobby: Any = None) -> None:
        configure_logging(config.log_format)
        self.room_id = room_id
        self.config = config
        self.reports = RoomReports(room_id, config.report_interval_s, lobby)
        self.catalog = GameCatalog.load(config.game_modules, config.game_path)
        self.tables: dict[str, Table] = {}
        self.records: dict[str, dict[str, Any]] = {}  # by table id: see table_record
        self.games_hosted = 0
        self.tables_failed = 0
        self._server: RoomServer | None = None
        self._stopped: asyncio.Event | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self._last_trim = 0.0
        self.store: TableStore | None = None
        self.journal: Journal | None = None

    # -- lifecycle ------------------------------------------------------------

    async def start(self) -> RoomStarted:
        """Start the table service; returns where it is served and on which node."""
        if self._server is None:
            if self.config.store is not None:
                self.store = await asyncio.to_thread(open_store, self.config.store)
                self.journal = Journal(self.store)
            server = RoomServer(self.config, self.tables)
            await server.start()
            self._server = server
            self._stopped = asyncio.Event()
            self._sweeper = asyncio.get_running_loop().create_task(self._close_deserted_tables())
            tune_garbage_collection()
            log.info("room %s serving up to %d tables on %s", self.room_id, self.config.tables_per_room,
                     server.endpoint)
        return RoomStarted(self.room_id, self._server.endpoint, self._server.metrics_endpoint,
                           ray.get_runtime_context().get_node_id(), os.getpid())

    async def inventory(self, lobby: Any) -> RoomStarted:
        """For a lobby taking this room back (it restarted): where the room
        serves and every table's record. Closed tables are reported to
        `lobby` from now on."""
        self.reports.lobby = lobby
        return dataclasses.replace(await self.start(), capacity=self.config.tables_per_room,
                                   records=tuple(self.records[table_id] for table_id in self.tables))

    async def arm_crash_point(self, point: str, after: int = 1) -> None:
        """Fault injection for chaos tests, over Ray only (no client can reach
        it): crash this room's process at `point` (actors/crash_points.py)."""
        crash_points.arm(point, after)

    async def watch(self) -> None:
        """Returns only when the room is stopped. The lobby keeps this call
        open: if the process dies, Ray fails it at once, which is how the
        lobby notices a dead room without polling."""
        if self._stopped is not None:
            await self._stopped.wait()

    async def stop(self, grace_s: float = 1.0) -> None:
        """Close every table's streams with a status and stop serving."""
        for table in list(self.tables.values()):
            self._close(table, "the room is shutting down")
        if self._sweeper is not None:
            self._sweeper.cancel()
        if self._server is not None:
            await self._server.stop(grace_s)
            self._server = None
        if self.journal is not None:
            await asyncio.to_thread(self.journal.close)
        if self.store is not None:
            self.store.close()
        if self._stopped is not None:
            self._stopped.set()

    # -- tables ---------------------------------------------------------------

    async def open_tables(self, requests: list[TableRequest]) -> list[TableOpening]:
        """Open a batch of tables: for each, seat the entrants at random and
        start the game, recorded in the store first when there is one. Each
        answer has the table's record or an error (a full room, rules that
        failed to set up, a store that failed)."""
        answers = []
        for index, request in enumerate(requests):
            if index and index % _OPEN_BEFORE_YIELDING == 0:
                await asyncio.sleep(0)  # let the room's other tables move meanwhile
            answers.append(self._open_one(request))
        if self.store is not None:
            opened = [index for index, answer in enumerate(answers) if answer.record is not None]
            recorded = await asyncio.gather(
                *(through_outage(self.store.create, answers[i].table_id, self._header(answers[i].table_id))
                  for i in opened),
                return_exceptions=True,
            )
            for index, outcome in zip(opened, recorded):
                if not isinstance(outcome, BaseException):
                    continue
                table_id = answers[index].table_id
                self.tables.pop(table_id).close("the table could not be recorded")
                self.records.pop(table_id, None)
                if isinstance(outcome, TableExists):
                    # Its first room recorded it and died before answering: take
                    # that one over (the same seed seats the same players).
                    answers[index] = await self._resume_one(table_id)
                    continue
                log.error("room %s could not record table %s: %s", self.room_id, table_id, outcome)
                answers[index] = TableOpening(table_id, error=f"the table could not be recorded: {outcome}")
        return answers

    def _header(self, table_id: str) -> dict[str, Any]:
        """What the store keeps of a table besides its journal: the match's
        header, the lobby's record and the run (see LobbyActor's recovery)."""
        match = self.tables[table_id].match
        return {"table_id": table_id, "run_id": self.config.run_id, "match": match.header(),
                "record": self.records[table_id], "versions": code_versions(match.rules)}

    async def resume_tables(self, table_ids: list[str]) -> list[TableOpening]:
        """Take over tables from the store (their room died): each resumes
        from its checkpoint and journal with a new epoch, so the old
        incarnation can no longer write. Each answer is the table's seq and
        record, or an error."""
        if self.store is None:
            return [TableOpening(table_id, error="this room has no store") for table_id in table_ids]
        return [await self._resume_one(table_id) for table_id in table_ids]

    async def _resume_one(self, table_id: str) -> TableOpening:
        assert self.store is not None  # resume_tables answers for a room without one
        try:
            stored = await through_outage(self.store.claim, table_id)
            rules = self.catalog.rules(stored.header["match"]["game"])
            refusal = why_not_resumable(stored.header, rules)
            if refusal is not None:
                log.error("room %s will not resume table %s: %s", self.room_id, table_id, refusal)
                return TableOpening(table_id, error=refusal)
            table = resume_table(stored, rules, journal=self.journal, owner=self,
                                 rate=self.config.commit_rate, burst=self.config.commit_burst)
        except Exception as error:  # one table that cannot resume must not stop the others
            log.exception("room %s could not resume table %s", self.room_id, table_id)
            return TableOpening(table_id, error=f"{type(error).__name__}: {error}")
        self.tables[table_id] = table
        self.records[table_id] = stored.header["record"]
        if table.over:
            # Its room died while it lingered after the game: linger here
            # (players may reconnect for the end), then close, or nothing would.
            self.table_finished(table)
        log.info("room %s resumed table %s at seq %d, epoch %d", self.room_id, table_id, table.seq, table.epoch,
                 extra=log_fields("table_resumed", table_id=table_id, room_id=self.room_id, seq=table.seq))
        return TableOpening(table_id, stored.header["record"], seq=table.seq, epoch=table.epoch)

    def _open_one(self, request: TableRequest) -> TableOpening:
        table_id = request.table_id
        if table_id in self.tables:
            return TableOpening(table_id, error=f"room {self.room_id} already holds table {table_id}")
        if len(self.tables) >= self.config.tables_per_room:
            # The lobby's book was behind (a slot not yet reported free): another room may take it.
            return TableOpening(table_id, error=f"room {self.room_id} is full ({len(self.tables)} tables)", retry=True)
        # A tournament's tables keep the seats its pairing chose.
        entrants = list(request.entrants) if request.keep_order else request.seed.seated(request.entrants)
        record = table_record(request, entrants)
        try:
            table = Table(
                table_id,
                self.catalog.rules(request.game),
                request.seed,
                list(record["players"]),
                request.options,
                rate=self.config.commit_rate,
                burst=self.config.commit_burst,
                owner=self,
                join=list(record["join"]),
                journal=self.journal,
                deal_wait_ms=round(self.config.deal_wait_s * 1000),
                cancel_if_absent=not request.keep_order,
            )
        except Exception as error:  # the game's setup failed: this table only
            log.exception("room %s could not set up table %s (%s)", self.room_id, table_id, request.game)
            self.tables_failed += 1
            return TableOpening(table_id, error=f"the game could not be set up: {type(error).__name__}: {error}")
        self.tables[table_id] = table
        self.records[table_id] = record
        self.games_hosted += 1
        table.metrics.opened.inc()
        window = request.no_show_after_s
        if window is not None:
            # Its players are told where it is by their tournament: the
            # window, not the deserted-table grace, judges who never came.
            table.streams.deserted_since = None
            asyncio.get_running_loop().call_later(window, self._check_no_shows, table, window)
        log.info("room %s opened table %s (%s, commitment %s)", self.room_id, table_id, request.game,
                 record["commitment"][:16],
                 extra=log_fields("table_opened", table_id=table_id, room_id=self.room_id))
        return TableOpening(table_id, record)

    # The table calls these (actors.table.TableOwner) from inside its own step.

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
        self.reports.over(TableOver(table.table_id, None, tuple(absent)))
        self._close(table, f"seats {absent} did not show up within {window:.0f} s")

    def table_finished(self, table: Table) -> None:
        """Report the result now (a tournament waits for it), close after the linger."""
        self.reports.over(TableOver(table.table_id, table.match.result, table.no_shows))
        asyncio.get_running_loop().call_later(self.config.linger_s, self._close, table, "the game is over")

    def table_idle(self, table: Table) -> None:
        if table.over:
            # Everyone has their final messages and has gone: no need to linger.
            asyncio.get_running_loop().call_soon(self._close, table, "the game is over")

    def table_cancelled(self, table: Table) -> None:
        self._forget(table, "cancelled", absent=list(table.cancelled_for))

    def table_failed(self, table: Table, details: str) -> None:
        self.tables_failed += 1
        self._forget(table, "failed")

    async def hand_off(self, table_ids: list[str]) -> list[str]:
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
                self._close(table, "the game is over")
                continue
            table.close("this room is being drained and the table is moving to another room; ask the lobby where")
            self._drop(table)
            handed.append(table_id)
        log.info("room %s handed off %d tables; %d tables open", self.room_id, len(handed), len(self.tables))
        return handed

    async def close_table(self, table_id: str, details: str) -> bool:
        """An administrator ends the table now: every stream ends
        FAILED_PRECONDITION with `details`, and it is finished in the store
        (never resumed). False when this room does not hold it."""
        table = self.tables.get(table_id)
        if table is None:
            return False
        self._close(table, details, StreamEnd.CLOSED)
        return True

    async def remove_seat(self, table_id: str, seat: int, details: str) -> bool:
        """An administrator takes a seat from its player (Table.remove_seat).
        False when this room does not hold the table."""
        table = self.tables.get(table_id)
        if table is None:
            return False
        table.remove_seat(seat, details)
        return True

    def table_moved(self, table: Table) -> None:
        """Another room resumed this table: drop it here, without telling the
        lobby it ended (it did not) or marking it finished in the store."""
        self._drop(table)
        if self.store is not None:
            asyncio.get_running_loop().run_in_executor(None, self.store.forget, table.table_id)

    def _drop(self, table: Table) -> None:
        if self.tables.get(table.table_id) is table:
            del self.tables[table.table_id]
            del self.records[table.table_id]

    def _close(self, table: Table, details: str, ending: StreamEnd | None = None) -> None:
        if self.tables.get(table.table_id) is not table:
            return  # already closed
        table.close(details, ending)
        self._forget(table, "finished" if table.over else "closed")

    def _forget(self, table: Table, outcome: str, absent: list[int] | None = None) -> None:
        self._drop(table)
        if self.store is not None:
            # Not resumed again: a finished game, a deserted or failed table.
            asyncio.get_running_loop().run_in_executor(None, self.store.finish, table.table_id, table.epoch, outcome)
        log.info("room %s closed table %s (%s); %d tables open", self.room_id, table.table_id, outcome, len(self.tables),
                 extra=log_fields("table_closed", table_id=table.table_id, room_id=self.room_id, seq=table.seq))
        self.reports.closed(TableClosed(table.table_id, outcome, tuple(absent or ())))
        now = time.monotonic()
        if not self.tables and now - self._last_trim >= _TRIM_INTERVAL_S:
            self._last_trim = now
            _release_free_heap()  # a room's memory is its tables': give the freed heap back

    async def _close_deserted_tables(self) -> None:
        """A table whose players have all been away for the grace period is
        closed (timers play the absent players' turns until then), so one
        that everybody left, or nobody ever joined, does not hold its slot."""
        grace = self.config.abandon_after_s
        period = min(1.0, max(0.05, grace / 4))
        while True:
            await asyncio.sleep(period)
            now = time.monotonic()
            for table in list(self.tables.values()):
                since = table.streams.deserted_since
                # A table not yet dealt is judged at its deal's deadline instead.
                if since is not None and not table.over and table.match.dealt and now - since >= grace:
                    log.info("room %s: every player left table %s %.0f s ago; closing it",
                             self.room_id, table.table_id, now - since)
                    self._close(table, "every player left the table")

    # -- status ---------------------------------------------------------------

    async def status(self) -> dict[str, Any]:
        """Counts for the operator: nothing per table, so it stays cheap at
        a full room."""
        return {
            "room_id": self.room_id,
            "endpoint": self._server.endpoint if self._server is not None else "",
            "metrics_endpoint": self._server.metrics_endpoint if self._server is not None else "",
            "node_id": ray.get_runtime_context().get_node_id(),
            "pid": os.getpid(),
            "tables": len(self.tables),
            "capacity": self.config.tables_per_room,
            "games_hosted": self.games_hosted,
            "tables_failed": self.tables_failed,
            "streams": sum(len(table.streams.live) for table in self.tables.values()),
        }

    async def table_log(self, table_id: str) -> dict[str, Any] | None:
        """A table's match header and every accepted command, as plain data:
        what a replay needs to rebuild its state."""
        table = self.tables.get(table_id)
        if table is None:
            return None
        return {"header": table.match.header(), "commands": [command.to_plain() for command in table.match.commands]}

    async def table_status(self, table_id: str) -> dict[str, Any] | None:
        """One table's counters and state hash (what tests check behind the wire)."""
        table = self.tables.get(table_id)
        if table is None:
            return None
        return {
            "table_id": table.table_id,
            "seq": table.seq,
            "over": table.over,
            "streams": len(table.streams.live),
            "moves": table.stats.moves,
            "automatic_moves": table.stats.automatic_moves,
            "rejects": table.stats.rejects,
            "desyncs": table.stats.desyncs,
            "streams_flooded": table.stats.floods,
            "state_hash": table.match.state_hash(),
            "remembered_rejections": table.remembered_rejections,
        }
