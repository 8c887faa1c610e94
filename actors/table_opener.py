"""Tables on their way into rooms: a confirmed group (or a tournament's
table) gets a slot from placement, least-loaded room first, and each room
opens what was placed in it in one call at a time, so a burst opens in a
few large batches. Tables whose room died or was drained wait here too,
for a slot in another room that resumes them from the store.

The room calls go through the room supervisor (actors/room_supervisor.py),
which turns a room that fails or does not answer into RoomUnreachable:
nothing here calls Ray, so it is tested in process with rooms of its own."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from tablehost.actors.config import LobbyConfig
from tablehost.actors.door_exchange import DoorExchange, checked_join, game_rules, table_seats
from tablehost.actors.matchmaking import Entrant, Gathering, GatheringKey, Group, LobbyRefused, Refusal
from tablehost.actors.placement import Placement, RoomRecord
from tablehost.actors.room_calls import OpenedTable, RoomUnreachable, SeatRequest, TableOpening, TableRequest
from tablehost.actors.table_admin import TableAdmin
from tablehost.actors.table_directory import TableDirectory, TableRecord
from tablehost.actors.table_mint import TableMint
from tablehost.actors.tournament_tables import (Placing, PlacingRefused, TournamentTable, placed_table,
                                                 tables_between_rooms)
from tablehost.actors.tokens import SeatClaim, sign_seat_token
from tablehost.games.engine.fairness import TableSeed
from tablehost.games.registry import GameCatalog
from tablehost.v1 import lobby_pb2

log = logging.getLogger("tablehost.lobby")

# A table whose room keeps refusing it is failed after this many tries.
MAX_PLACEMENT_ATTEMPTS = 3


class Rooms(Protocol):
    """What the opener needs of the rooms (actors/room_supervisor.py)."""

    async def open_tables(self, room: RoomRecord, requests: list[TableRequest]) -> list[TableOpening]: ...

    async def resume_tables(self, room: RoomRecord, table_ids: list[str]) -> list[TableOpening]: ...

    def lost(self, room: RoomRecord, why: str) -> None: ...

    def start_wanted(self, tables_waiting: int) -> None: ...

    def none_can_start(self) -> bool: ...


@dataclass(eq=False)
class PendingTable:
    """A confirmed group on its way into a room."""

    table_id: str
    seed: TableSeed
    group: Group
    attempts: int = 0
    # A table a tournament seated itself: its seats are the entrants' order
    # (the pairing balanced them), and its caller awaits the outcome here.
    placed: asyncio.Future[Placing] | None = None
    # Its seats that have not opened a stream this long after the table
    # opened are no-shows (a tournament forfeits them); None: no window.
    no_show_after_s: float | None = None

    def request(self) -> TableRequest:
        key = self.group.gathering.key
        return TableRequest(
            self.table_id, key.game, key.variant, self.seed,
            tuple(SeatRequest(e.ticket, e.name, e.join, e.client) for e in self.group.entrants),
            self.group.gathering.options, keep_order=self.placed is not None, no_show_after_s=self.no_show_after_s)


class TableOpener:
    def __init__(self, config: LobbyConfig, catalog: GameCatalog, placement: Placement, directory: TableDirectory,
                 table_admin: TableAdmin, front_doors: DoorExchange, rooms: Rooms, mint: TableMint, *,
                 spawn: Callable[[Coroutine[Any, Any, Any]], None]) -> None:
        self.config = config
        self.catalog = catalog
        self.placement = placement
        self.directory = directory
        self.table_admin = table_admin
        self.front_doors = front_doors
        self.rooms = rooms
        self._mint = mint
        self._spawn = spawn
        self.awaiting_room: deque[PendingTable] = deque()
        # Tables placed in a room and not yet opened there; one open_tables
        # call is in flight per room at a time, and what is placed meanwhile
        # goes in its next call.
        self._to_open: dict[str, list[PendingTable]] = {}
        self.opening: set[str] = set()
        # Tables whose room died or is being drained, waiting for a slot in another room.
        self.awaiting_resume: deque[str] = deque()
        # Tables in an open_tables call not yet answered, and those among
        # them whose room already reported them closed (a deserted table
        # closes after its grace period, which a busy lobby can outlast
        # before it reads the answer): recorded as closed once seated.
        self._in_open_call: set[str] = set()
        self._closed_while_opening: dict[str, str] = {}

    @property
    def waiting(self) -> int:
        """Tables that need a slot: new ones and ones to resume."""
        return len(self.awaiting_room) + len(self.awaiting_resume)

    def confirmed(self, group: Group) -> None:
        """Every front door confirmed the group: it becomes a table."""
        self.awaiting_room.append(PendingTable(self._mint.table_id(group.gathering.key.game),
                                               self._mint.seed_for(group), group))

    async def place_tournament_tables(self, tables: list[TournamentTable]) -> list[Placing]:
        """Open tables a tournament seated itself (see LobbyActor.place_tables)."""
        waiting: list[asyncio.Future[Placing]] = []
        for table in tables:
            future: asyncio.Future[Placing] = asyncio.get_running_loop().create_future()
            waiting.append(future)
            record = self.directory.get(table.table_id)
            if record is not None:
                future.set_result(placed_table(record, self.token))
                continue
            try:
                pending = self._tournament_table(table)
            except LobbyRefused as refusal:
                future.set_result(PlacingRefused(table.table_id, refusal.message))
                continue
            pending.placed = future
            self.awaiting_room.append(pending)
        self.place_awaiting()
        return list(await asyncio.gather(*waiting))

    def token(self, table_id: str, seat: int) -> str:
        """A seat's token (or a spectator's), valid for the host's token lifetime."""
        expires_ms = time.time_ns() // 1_000_000 + int(self.config.token_ttl_s * 1000)
        return sign_seat_token(self.config.room.token_secret,
                               SeatClaim(table_id, seat, expires_ms, self.config.room.run_id))

    def place_awaiting(self) -> None:
        """Give each waiting table a slot and have each room open (or resume)
        its new tables; start rooms if the slots run short."""
        resumes: dict[str, tuple[RoomRecord, list[str]]] = {}
        while self.awaiting_resume:
            room = self.placement.place(self.awaiting_resume[0])
            if room is None:
                break
            resumes.setdefault(room.room_id, (room, []))[1].append(self.awaiting_resume.popleft())
        for room, table_ids in resumes.values():
            self._spawn(self._resume_in(room, table_ids))
        placed: dict[str, RoomRecord] = {}
        while self.awaiting_room:
            room = self.placement.place(self.awaiting_room[0].table_id)
            if room is None:
                break
            self._to_open.setdefault(room.room_id, []).append(self.awaiting_room.popleft())
            placed[room.room_id] = room
        for room_id, room in placed.items():
            if room_id not in self.opening:
                self.opening.add(room_id)
                self._spawn(self._open_in(room))
        self.rooms.start_wanted(self.waiting)
        if self.awaiting_room and not self.placement.starting and not self.placement.free and self.rooms.none_can_start():
            # Room starts are backing off after failures on every node and no
            # room has a slot: the waiting groups are told, not left hanging.
            while self.awaiting_room:
                self._fail(self.awaiting_room.popleft(), Refusal.UNAVAILABLE,
                           "no room could be started for the table; try again shortly")

    def take_back_unopened(self, room_id: str) -> None:
        """Tables placed in a room but not yet sent there (it died, or is
        draining) keep their confirmation and go elsewhere."""
        bound_here = self._to_open.pop(room_id, [])
        now = time.monotonic()
        for pending in bound_here:
            self.placement.unplace(room_id, pending.table_id, now)
        self.awaiting_room.extendleft(reversed(bound_here))

    def room_lost(self, room: RoomRecord, why: str) -> None:
        """A room is gone: with a store its tables resume in other rooms
        from their checkpoints and journals; without one they are lost."""
        self.awaiting_room.extendleft(reversed(self._to_open.pop(room.room_id, [])))
        if self.config.room.store is None:
            lost = self.directory.lose_room(room.room_id, time.monotonic())
            log.warning("room %s on node %s is gone (%s); %d tables lost with it (no store)",
                        room.room_id, room.node_id[:12], why, len(lost))
        else:
            moving = self.directory.tables_in(room.room_id)
            self.resume_elsewhere(moving)
            log.warning("room %s on node %s is gone (%s); its %d tables resume in other rooms",
                        room.room_id, room.node_id[:12], why, len(moving))
        self.place_awaiting()  # also starts a replacement room if the slots now run short

    def resume_elsewhere(self, table_ids: Iterable[str]) -> None:
        """Tables no room serves now: each waits for a slot in another room,
        which resumes it from the store; LookupTable answers `running: false` meanwhile."""
        for table_id in table_ids:
            record = self.directory.get(table_id)
            if record is not None:
                record.resuming = True
                self.awaiting_resume.append(table_id)

    def closed(self, room_id: str, table_id: str, outcome: str, now: float) -> None:
        """A room closed a table: its slot is free; one still in its open
        call is recorded as closed once seated."""
        self.placement.unplace(room_id, table_id, now)
        if self.directory.finish(table_id, outcome, now) is None and table_id in self._in_open_call:
            self._closed_while_opening[table_id] = outcome

    def find_tables_between_rooms(self) -> None:
        """Tables of this run the store holds unfinished and no room holds:
        their room died while the previous lobby moved them. They resume
        like a dead room's tables."""
        for record in tables_between_rooms(self.config, self.directory):
            self.directory.add(record)
            self.resume_elsewhere([record.table_id])

    async def _open_in(self, room: RoomRecord) -> None:
        """Open what is placed in `room`, one call at a time, until nothing is left."""
        try:
            while batch := self._to_open.pop(room.room_id, None):
                await self._open_tables(room, batch)
        finally:
            self.opening.discard(room.room_id)

    async def _open_tables(self, room: RoomRecord, batch: list[PendingTable]) -> None:
        opening = {pending.table_id for pending in batch}
        self._in_open_call |= opening
        try:
            answers = await self.rooms.open_tables(room, [pending.request() for pending in batch])
        except RoomUnreachable as error:
            self.rooms.lost(room, f"{error} while opening {len(batch)} tables")
            for table_id in opening:
                self._closed_while_opening.pop(table_id, None)  # they open again, elsewhere
            self.awaiting_room.extendleft(reversed(batch))  # they keep their confirmation
            self.place_awaiting()
            return
        finally:
            self._in_open_call -= opening
        now = time.monotonic()
        retry: list[PendingTable] = []
        for pending, answer in zip(batch, answers):
            closed_meanwhile = self._closed_while_opening.pop(pending.table_id, None)
            if answer.opened is not None:
                self._seat(pending, room, answer.opened)
                if closed_meanwhile is not None:
                    self.directory.finish(pending.table_id, closed_meanwhile, now)
                continue
            self.placement.unplace(room.room_id, pending.table_id, now)
            pending.attempts += 1
            if answer.retry and pending.attempts < MAX_PLACEMENT_ATTEMPTS:
                retry.append(pending)
            else:
                log.error("table %s could not be opened in room %s: %s", pending.table_id, room.room_id, answer.error)
                self._fail(pending, Refusal.INTERNAL, f"the table could not be opened: {answer.error}")
        if retry:
            self.awaiting_room.extendleft(reversed(retry))
            self.place_awaiting()

    async def _resume_in(self, room: RoomRecord, table_ids: list[str]) -> None:
        """Have `room` take over tables from the store; LookupTable then names it."""
        try:
            answers = await self.rooms.resume_tables(room, table_ids)
        except RoomUnreachable as error:
            self.rooms.lost(room, f"{error} while resuming tables")
            self.awaiting_resume.extendleft(reversed(table_ids))
            self.place_awaiting()
            return
        now = time.monotonic()
        for table_id, answer in zip(table_ids, answers):
            if answer.opened is None:
                self.placement.unplace(room.room_id, table_id, now)
                record = self.directory.get(table_id)
                if record is not None:
                    record.resuming = False
                self.directory.finish(table_id, "room lost", now)
                log.error("table %s could not resume in room %s: %s", table_id, room.room_id, answer.error)
            else:
                if self.directory.get(table_id) is None:  # this lobby restarted while the table moved
                    self.directory.add(TableRecord.opened(answer.opened, room.room_id, room.endpoint))
                self.directory.move(table_id, room.room_id, room.endpoint)
                self.table_admin.resumed(table_id, room.handle)
                log.info("table %s resumed in room %s at seq %d (epoch %d)", table_id, room.room_id,
                         answer.seq, answer.epoch)

    def _seat(self, pending: PendingTable, room: RoomRecord, opened: OpenedTable) -> None:
        """The room opened the table (`opened` says who sits where): keep
        its record and tell each player's front door."""
        by_ticket = {entrant.ticket: entrant for entrant in pending.group.entrants}
        added = TableRecord.opened(opened, room.room_id, room.endpoint)
        self.directory.add(added)
        log.info("table %s started in room %s, commitment %s, seats %s", pending.table_id, room.room_id,
                 opened.commitment[:16], list(opened.players))
        if pending.placed is not None:
            pending.placed.set_result(placed_table(added, self.token))
            return
        for seat, ticket in enumerate(opened.tickets):
            self.front_doors.seated(by_ticket[ticket], lobby_pb2.TableAssignment(
                table_id=pending.table_id, endpoint=room.endpoint, seat=seat,
                seat_token=self.token(pending.table_id, seat), game=opened.game, display_names=opened.players,
                ticket=ticket, deal_commitment=opened.commitment))

    def _fail(self, pending: PendingTable, refusal: Refusal, message: str) -> None:
        if pending.placed is not None:
            if not pending.placed.done():
                pending.placed.set_result(PlacingRefused(pending.table_id, message))
            return
        self.front_doors.fail_group(pending.group, refusal, message)

    def _tournament_table(self, table: TournamentTable) -> PendingTable:
        rules = game_rules(self.catalog, table.game, table.variant)
        seats = table_seats(rules, len(table.players))
        key = GatheringKey(table.game, table.variant, seats=seats)
        gathering = Gathering(key, seats, self.front_doors.options_for(table.game, table.options), time.monotonic())
        entrants = []
        for seat, (name, join) in enumerate(table.players):
            checked, _ = checked_join(rules, dict(join))
            entrants.append(Entrant(f"{table.table_id}#{seat}", name, "", key, checked))
        return PendingTable(table.table_id, table.seed, Group(0, gathering, entrants, time.monotonic()),
                            no_show_after_s=table.no_show_after_s)
