"""The lobby actor: one named Ray actor every front door of a cluster finds,
which Ray restarts when its process dies. It is a thin facade: each remote
method is a short protocol step over collaborators with one job each, every
one but the room supervisor plain Python tested without Ray:

- actors/door_exchange.py: the front doors' batches (joins, leaves,
  answers) into the matchmaker's queues and private tables, and each
  door's mailbox of proposals, seatings and players let go. No Ray call is
  held open per waiting player: players wait at their front door.
- actors/table_opener.py: confirmed groups and tournaments' tables into
  room slots (actors/placement.py), and tables that must resume elsewhere.
- actors/room_supervisor.py: the rooms as Ray actors (start, watch,
  release, take back) and every call to them.
- actors/drains.py: rooms taken out of service.
- actors/table_directory.py, table_results.py, table_admin.py: the table
  records, what tournaments wait on, what administrators do.

Rooms are detached, so they and their games outlive the lobby; a restarted
lobby takes them back (their tables become its directory again), resumes
from the store the tables that were between rooms, and front doors send
their waiting players again when they see a new `incarnation`."""

from __future__ import annotations

import asyncio
import logging
import os
import time
import uuid
from collections.abc import Coroutine
from typing import Any

import ray
from ray.actor import ActorHandle

from tablehost.actors.config import LobbyConfig
from tablehost.actors.door_exchange import DoorExchange, DoorJoin, DoorMail, DoorReply, PrivateTable
from tablehost.actors.drains import DrainRefused, Drains, DrainStarted
from tablehost.actors.lobby_status import LobbyStatus, nodes_status
from tablehost.actors.log_format import configure_logging
from tablehost.actors.matchmaking import LobbyRefused, Refusal
from tablehost.actors.placement import Placement
from tablehost.actors.process_tuning import tune_garbage_collection
from tablehost.actors.room import RoomActor
from tablehost.actors.room_calls import TableClosed, TableOver
from tablehost.actors.room_supervisor import LOBBY_NAME, NAMESPACE, RoomSupervisor, was_restarted
from tablehost.actors.round_watch import RoundStatus, RoundWatch
from tablehost.actors.table_admin import TableAdmin, TableListing
from tablehost.actors.table_directory import TableDescription, TableDirectory, TableRecord
from tablehost.actors.table_mint import TableMint
from tablehost.actors.table_opener import TableOpener
from tablehost.actors.tournament_tables import Placing, TournamentTable
from tablehost.actors.table_results import TableResults, TableState
from tablehost.actors.tokens import SPECTATOR_SEAT
from tablehost.games.engine.rng import Random
from tablehost.games.registry import GameCatalog

__all__ = ["LOBBY_NAME", "NAMESPACE", "LobbyActor"]

log = logging.getLogger("tablehost.lobby")

JANITOR_PERIOD_S = 1.0
# Tables one describe_tables call answers for (a front door sends batches of at most this many).
MAX_DESCRIBED = 2_000


@ray.remote(num_cpus=0)
class LobbyActor:
    def __init__(self, config: LobbyConfig) -> None:
        configure_logging(config.room.log_format)
        self.config = config
        # Front doors compare it between calls: a new one means the lobby
        # restarted and forgot its queues, so they send their players again.
        self.incarnation = uuid.uuid4().hex
        restarted = was_restarted()
        # A restarted lobby must not deal the tables' seeds (and ids) it dealt before.
        fixed_seed = config.seed is not None and not restarted
        self.seed = config.seed if config.seed is not None and not restarted else int.from_bytes(os.urandom(8), "big")
        rng = Random(self.seed)
        catalog = GameCatalog.load(config.room.game_modules, config.room.game_path)
        self._tasks: set[asyncio.Task[Any]] = set()
        self.placement = Placement(config.room.tables_per_room, config.rooms_per_cpu, config.free_slots,
                                   follow_demand=config.rooms_follow_demand)
        self.directory = TableDirectory(config.table_retention_s)
        # Set (and replaced) whenever a room reports games over: what a
        # tournament waiting for its tables' results wakes on.
        self.results = TableResults(self.directory)
        self.table_admin = TableAdmin(self.directory, self.placement, self.results.changed)
        self.round_watch = RoundWatch()
        self.front_doors = DoorExchange(config, catalog, rng, self.incarnation,
                                        on_confirmed=lambda group: self.opener.confirmed(group))
        self.rooms = RoomSupervisor(config, self.placement, self.directory, spawn=self._spawn,
                                    on_lost=lambda room, why: self.opener.room_lost(room, why),
                                    on_slots_changed=self._slots_changed)
        # A restarted lobby counts tables from 1 again, under a tag of its incarnation.
        mint = TableMint(config.room.run_id, rng, self.seed, fixed_seed=fixed_seed,
                         id_tag=f"{self.incarnation[:8]}." if restarted else "")
        self.opener = TableOpener(config, catalog, self.placement, self.directory, self.table_admin, self.front_doors,
                                  self.rooms, mint, spawn=self._spawn)
        self.drains = Drains(config, self.placement, self.rooms, self.opener, self._spawn)
        # Started here, not by a call: a lobby Ray restarted must tidy, watch
        # and place before any front door asks it something.
        self._janitor = asyncio.get_running_loop().create_task(self._tidy_forever())
        tune_garbage_collection()
        self.rooms.take_back()
        if restarted:
            self.opener.find_tables_between_rooms()
        log.info("lobby %s, seed %d; %d rooms and %d tables taken back", "restarted" if restarted else "up",
                 self.seed, len(self.placement.rooms), self.directory.running_count)

    async def ready(self, timeout_s: float = 120.0) -> LobbyStatus:
        """Start the rooms every node's CPUs call for and wait until they
        serve (or `timeout_s`); idempotent. Rooms that follow demand may wait
        for the autoscaler's node: nobody waits for them here."""
        self.rooms.refresh_nodes(force=True)
        self.rooms.start_wanted(self.opener.waiting)
        deadline = time.monotonic() + timeout_s
        while self.placement.starting and not self.placement.follow_demand and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        return await self.status()

    # -- front doors (actors/door_exchange.py) ------------------------------------------

    async def door_exchange(self, door_id: str, joins: list[DoorJoin], leaves: list[str],
                            answers: list[tuple[int, str, bool]]) -> DoorReply:
        """One batch from a front door: leaves, joins and answers to proposals."""
        reply = self.front_doors.exchange(door_id, joins, leaves, answers)
        self.opener.place_awaiting()
        return reply

    async def door_poll(self, door_id: str, timeout_s: float) -> DoorMail:
        """Wait up to `timeout_s` for proposals, seatings or dropped players
        for this front door; each front door keeps one poll open."""
        return await self.front_doors.poll(door_id, timeout_s)

    async def leave_queue(self, ticket: str) -> bool:
        """Take a waiting ticket out (LeaveQueue, from any front door)."""
        return self.front_doors.leave(ticket)

    async def create_private_table(self, game: str, variant: str, turn_timeout_ms: int, seats: int = 0,
                                   client: str = "") -> PrivateTable:
        """A private table waiting for players, its code given to its creator
        (`client`: the identity its front door names)."""
        return self.front_doors.create_private_table(game, variant, turn_timeout_ms, seats, client)

    async def describe_tables(self, table_ids: list[str]) -> dict[str, TableDescription | None]:
        """What a front door needs to answer LookupTable and Spectate for
        each table, in one call for a batch of them (host/table_locations.py
        keeps the answers briefly): where it runs (or that it is between
        rooms), its game, players and commitment, and a spectator's token;
        None for a table that is not running."""
        described: dict[str, TableDescription | None] = {}
        for table_id in table_ids[:MAX_DESCRIBED]:
            record = self.directory.get(table_id)
            if record is None or not record.running:
                described[table_id] = None
                continue
            described[table_id] = TableDescription(
                table_id, "" if record.resuming else record.endpoint, record.resuming, record.game,
                tuple(record.players), record.commitment, self.opener.token(table_id, SPECTATOR_SEAT))
        return described

    # -- tournaments --------------------------------------------------------------------

    async def place_tables(self, tables: list[TournamentTable]) -> list[Placing]:
        """Open tables a tournament seated itself, not from the public queue.
        Returns, per table, where it runs and each seat's token; or, for a
        table already settled, its state as `table_results` gives it; or why
        it could not be opened. Asking again for a table (a restarted
        tournament) opens nothing twice: a running or finished table is
        answered as it is."""
        return await self.opener.place_tournament_tables(tables)

    async def table_results(self, table_ids: list[str], timeout_s: float) -> dict[str, TableState]:
        """Each table's state (actors/table_results.py), once one of them is
        no longer running or after `timeout_s`."""
        return await self.results.wait(table_ids, timeout_s)

    async def tournament_rounds(self) -> list[RoundStatus]:
        """The tournaments with a round in play: id, round, deadline, whether overdue."""
        return self.round_watch.in_play(time.time())

    async def tournament_round(self, tournament_id: str, number: int, deadline_s: float) -> None:
        """A tournament's round started with this deadline (epoch seconds);
        number 0: it has no round in play (actors/round_watch.py)."""
        if number:
            self.round_watch.started(tournament_id, number, deadline_s)
        else:
            self.round_watch.ended(tournament_id)

    # -- what rooms report ----------------------------------------------------------------

    async def tables_over(self, room_id: str, results: list[TableOver]) -> None:
        """A room reports games that ended, with their results (before the
        tables linger and close), or tables its no-shows ended (no result):
        tournaments waiting on them wake."""
        for over in results:
            record = self.directory.get(over.table_id)
            if record is not None:
                record.result = over.result
                record.no_show = list(over.no_show)
        self.results.changed()

    async def tables_closed(self, room_id: str, closed: list[TableClosed]) -> None:
        """A room reports tables it closed: their slots are free again. A
        table cancelled before its deal names its absent seats, whose
        clients are counted as having left a seat empty."""
        now = time.monotonic()
        for table in closed:
            record = self.directory.get(table.table_id)
            for seat in table.absent:
                if record is not None and 0 <= seat < len(record.clients):
                    self.front_doors.client_limits.record_ghost_seat(record.clients[seat])
            self.opener.closed(room_id, table.table_id, table.outcome, now)
        # A table that ended without a result (deserted, failed, closed) is
        # news to a tournament waiting on it too.
        self.results.changed()
        self.opener.place_awaiting()

    # -- what the operator does (actors/drains.py, actors/table_admin.py) -------------------

    async def drain(self, room_ids: list[str], node_id: str = "") -> DrainStarted | DrainRefused:
        """Take rooms out of service (actors/drains.py): the rooms named, or
        every room on `node_id`."""
        return self.drains.drain(room_ids, node_id)

    async def list_tables(self, game: str, limit: int) -> TableListing:
        return self.table_admin.list(game, limit)

    async def close_table(self, table_id: str, reason: str) -> str:
        return await self.table_admin.close(table_id, reason)

    async def remove_seat(self, table_id: str, seat: int, reason: str) -> str:
        return await self.table_admin.remove_seat(table_id, seat, reason)

    async def adjudicate_table(self, table_id: str, places: list[int], reason: str) -> str:
        return await self.table_admin.adjudicate(table_id, places, reason)

    async def table_record(self, table_id: str) -> TableRecord:
        """The lobby's record of a table (Ray sends a copy: the caller shares nothing with it)."""
        record = self.directory.get(table_id)
        if record is None:
            raise LobbyRefused(Refusal.NOT_FOUND, f"no table {table_id!r} on record")
        return record

    async def stop_rooms(self) -> int:
        """Stop every room, as a host with an embedded Ray does when it stops."""
        return await self.rooms.stop_all()

    async def room_handles(self) -> dict[str, ActorHandle[RoomActor]]:
        """Each room's actor handle by room id."""
        return self.rooms.handles()

    async def status(self) -> LobbyStatus:
        queues = tuple(self.front_doors.queues())
        return LobbyStatus(
            seed=self.seed,
            incarnation=self.incarnation,
            pid=os.getpid(),
            run_id=self.config.room.run_id,
            nodes=nodes_status(self.placement),
            queues=queues,
            waiting=sum(queue.waiting for queue in queues),
            private_tables=self.front_doors.matchmaker.private_count,
            rooms=len(self.placement.rooms),
            tables=self.directory.running_count,
            free_slots=self.placement.free,
            tables_per_room=self.placement.tables_per_room,
            tables_started=self.directory.started,
            tables_awaiting_room=len(self.opener.awaiting_room),
            records_kept=self.directory.retained_count,
            front_doors=len(self.front_doors.mailboxes),
            nodes_alive=len(self.placement.nodes),
            nodes_dead=self.rooms.nodes_dead,
            tournament_rounds_overdue=len(self.round_watch.overdue(time.time())),
        )

    # -- housekeeping ------------------------------------------------------------------------

    def _slots_changed(self) -> None:
        """A room came up or failed to: a new one on a drained node drains
        at once, and the waiting tables take the slots."""
        self.drains.step()
        self.opener.place_awaiting()

    async def _tidy_forever(self) -> None:
        while True:
            await asyncio.sleep(JANITOR_PERIOD_S)
            try:
                self._tidy(time.monotonic())
            except Exception:  # housekeeping must go on whatever one round hit
                log.exception("lobby housekeeping failed; trying again in %.0f s", JANITOR_PERIOD_S)

    def _tidy(self, now: float) -> None:
        self.rooms.refresh_nodes()
        self.front_doors.tidy(now)
        self.directory.expire(now)
        self.rooms.release_idle(now)
        self.drains.step()
        self.opener.place_awaiting()

    def _spawn(self, coroutine: Coroutine[Any, Any, Any]) -> None:
        """Run a step in the background, keeping a reference so it is not collected mid-flight."""
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

