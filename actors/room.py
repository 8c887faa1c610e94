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
logged; the room's other tables carry on. How tables end is
actors/room_tables.py's; closed tables are reported to the lobby in
batches, so it can reuse their slots."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
from dataclasses import dataclass
from typing import Any

import ray

from tablehost.actors import crash_points
from tablehost.actors.config import RoomConfig
from tablehost.actors.journal import Journal, through_outage
from tablehost.actors.log_format import configure_logging, log_fields
from tablehost.actors.process_tuning import tune_garbage_collection
from tablehost.actors.store import TableExists, TableHeader, TableStore, open_store
from tablehost.actors.outbound import StreamEnd
from tablehost.actors.room_reports import RoomReports
from tablehost.actors.room_server import RoomServer
from tablehost.actors.room_calls import RoomStarted, TableOpening, TableRequest, opened_table
from tablehost.actors.room_tables import RoomTables, TableLog, TableStatus
from tablehost.actors.table import Table, resume_table
from tablehost.actors.versions import code_versions, why_not_resumable
from tablehost.games.registry import GameCatalog

log = logging.getLogger("tablehost.room")

# A burst of new tables yields to the room's running tables this often.
_OPEN_BEFORE_YIELDING = 50


def room_actor_name(lobby_name: str, room_id: str) -> str:
    """Rooms are named after their lobby, so a restarted lobby finds its own."""
    return f"{lobby_name}/{room_id}"


@dataclass(frozen=True, slots=True)
class RoomCounts:
    """A room's counts for the operator (its `status`): where it serves and
    how busy it is, nothing per table, so it stays cheap at a full room."""

    room_id: str
    endpoint: str
    metrics_endpoint: str
    node_id: str
    pid: int
    tables: int
    capacity: int
    games_hosted: int
    tables_failed: int
    streams: int


@ray.remote(num_cpus=0)
class RoomActor:
    def __init__(self, room_id: str, config: RoomConfig, lobby: Any = None) -> None:
        configure_logging(config.log_format)
        self.room_id = room_id
        self.config = config
        self.reports = RoomReports(room_id, config.report_interval_s, lobby)
        self.catalog = GameCatalog.load(config.game_modules, config.game_path)
        self.room_tables = RoomTables(room_id, config, self.reports)
        self.tables = self.room_tables.tables
        self.games_hosted = 0
        self._server: RoomServer | None = None
        self._stopped: asyncio.Event | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self.store: TableStore | None = None
        self.journal: Journal | None = None

    # -- lifecycle ------------------------------------------------------------

    async def start(self) -> RoomStarted:
        """Start the table service; returns where it is served and on which node."""
        if self._server is None:
            if self.config.store is not None:
                self.store = await asyncio.to_thread(open_store, self.config.store)
                self.journal = Journal(self.store)
                self.room_tables.store = self.store
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
                                   opened=tuple(self.room_tables.opened[table_id] for table_id in self.tables))

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
            self.room_tables.close(table, "the room is shutting down")
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
        opened = [index for index, answer in enumerate(answers) if answer.opened is not None]
        if self.store is not None and opened:
            try:
                failed = await through_outage(self.store.create, [self._header(answers[i].table_id) for i in opened])
            except Exception as error:  # the store is out for longer than an outage: every table fails
                failed = {answers[index].table_id: error for index in opened}
            for index in opened:
                table_id = answers[index].table_id
                outcome = failed.get(table_id)
                if outcome is None:
                    continue
                table = self.tables[table_id]
                table.close("the table could not be recorded")
                self.room_tables.drop(table)
                if isinstance(outcome, TableExists):
                    # Its first room recorded it and died before answering: take
                    # that one over (the same seed seats the same players).
                    answers[index] = await self._resume_one(table_id)
                    continue
                log.error("room %s could not record table %s: %s", self.room_id, table_id, outcome)
                answers[index] = TableOpening(table_id, error=f"the table could not be recorded: {outcome}")
        return answers

    def _header(self, table_id: str) -> TableHeader:
        match = self.tables[table_id].match
        return TableHeader(table_id, self.config.run_id, match.header(), self.room_tables.opened[table_id],
                           code_versions(match.rules))

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
            rules = self.catalog.rules(stored.header.match.game)
            refusal = why_not_resumable(stored.header, rules)
            if refusal is not None:
                log.error("room %s will not resume table %s: %s", self.room_id, table_id, refusal)
                return TableOpening(table_id, error=refusal)
            table = resume_table(stored, rules, journal=self.journal, owner=self.room_tables,
                                 rate=self.config.commit_rate, burst=self.config.commit_burst)
        except Exception as error:  # one table that cannot resume must not stop the others
            log.exception("room %s could not resume table %s", self.room_id, table_id)
            return TableOpening(table_id, error=f"{type(error).__name__}: {error}")
        self.room_tables.add(table, stored.header.opened)
        if table.over:
            # Its room died while it lingered after the game: linger here
            # (players may reconnect for the end), then close, or nothing would.
            self.room_tables.table_finished(table)
        log.info("room %s resumed table %s at seq %d, epoch %d", self.room_id, table_id, table.seq, table.epoch,
                 extra=log_fields("table_resumed", table_id=table_id, room_id=self.room_id, seq=table.seq))
        return TableOpening(table_id, stored.header.opened, seq=table.seq, epoch=table.epoch)

    def _open_one(self, request: TableRequest) -> TableOpening:
        table_id = request.table_id
        if table_id in self.tables:
            return TableOpening(table_id, error=f"room {self.room_id} already holds table {table_id}")
        if len(self.tables) >= self.config.tables_per_room:
            # The lobby's book was behind (a slot not yet reported free): another room may take it.
            return TableOpening(table_id, error=f"room {self.room_id} is full ({len(self.tables)} tables)", retry=True)
        # A tournament's tables keep the seats its pairing chose.
        entrants = list(request.entrants) if request.keep_order else request.seed.seated(request.entrants)
        opened = opened_table(request, entrants)
        try:
            table = Table(
                table_id,
                self.catalog.rules(request.game),
                request.seed,
                list(opened.players),
                request.options,
                rate=self.config.commit_rate,
                burst=self.config.commit_burst,
                owner=self.room_tables,
                join=list(opened.join),
                journal=self.journal,
                deal_wait_ms=round(self.config.deal_wait_s * 1000),
                cancel_if_absent=not request.keep_order,
            )
        except Exception as error:  # the game's setup failed: this table only
            log.exception("room %s could not set up table %s (%s)", self.room_id, table_id, request.game)
            self.room_tables.failed += 1
            return TableOpening(table_id, error=f"the game could not be set up: {type(error).__name__}: {error}")
        self.room_tables.add(table, opened)
        self.games_hosted += 1
        table.metrics.opened.inc()
        if request.no_show_after_s is not None:
            self.room_tables.watch_for_no_shows(table, request.no_show_after_s)
        log.info("room %s opened table %s (%s, commitment %s)", self.room_id, table_id, request.game,
                 opened.commitment[:16],
                 extra=log_fields("table_opened", table_id=table_id, room_id=self.room_id))
        return TableOpening(table_id, opened)

    async def hand_off(self, table_ids: list[str]) -> list[str]:
        """Let other rooms take these tables over (RoomTables.hand_off)."""
        return self.room_tables.hand_off(table_ids)

    async def close_table(self, table_id: str, details: str) -> bool:
        """An administrator ends the table now: every stream ends
        FAILED_PRECONDITION with `details`, and it is finished in the store
        (never resumed). False when this room does not hold it."""
        table = self.tables.get(table_id)
        if table is None:
            return False
        self.room_tables.close(table, details, StreamEnd.CLOSED)
        return True

    async def remove_seat(self, table_id: str, seat: int, details: str) -> bool:
        """An administrator takes a seat from its player (Table.remove_seat).
        False when this room does not hold the table."""
        table = self.tables.get(table_id)
        if table is None:
            return False
        table.remove_seat(seat, details)
        return True

    async def _close_deserted_tables(self) -> None:
        grace = self.config.abandon_after_s
        period = min(1.0, max(0.05, grace / 4))
        while True:
            await asyncio.sleep(period)
            self.room_tables.close_deserted(grace)

    # -- status ---------------------------------------------------------------

    async def status(self) -> RoomCounts:
        return RoomCounts(
            room_id=self.room_id,
            endpoint=self._server.endpoint if self._server is not None else "",
            metrics_endpoint=self._server.metrics_endpoint if self._server is not None else "",
            node_id=ray.get_runtime_context().get_node_id(),
            pid=os.getpid(),
            tables=len(self.tables),
            capacity=self.config.tables_per_room,
            games_hosted=self.games_hosted,
            tables_failed=self.room_tables.failed,
            streams=sum(len(table.streams.live) for table in self.tables.values()),
        )

    async def table_log(self, table_id: str) -> TableLog | None:
        """A table's match header and every accepted command (RoomTables.log_of)."""
        return self.room_tables.log_of(table_id)

    async def table_status(self, table_id: str) -> TableStatus | None:
        """One table's counters and state hash (RoomTables.status_of)."""
        return self.room_tables.status_of(table_id)
