"""The lobby actor: queues per game and variant, private tables by code,
spectators, seat tokens, and the rooms the tables are placed in.

No Ray call is held open per waiting player: players wait at the front
door they connected to, and each front door trades with the lobby in
batches over two calls of its own (`door_exchange` carries joins, leaves and
confirmations; `door_poll` waits for proposals and seatings). The rules of
matching live in actors/matchmaking.py, of placement in actors/placement.py,
and the table records in actors/table_directory.py: each method here is a
short protocol step over them.

It is a named actor so every front door of a cluster finds the same one,
and Ray restarts it when its process dies. Rooms are detached, so they and
their games outlive it; a restarted lobby takes them back (`inventory`: the
rooms' tables become its directory again), resumes from the store the tables
that were between rooms, and front doors send their waiting players again
when they see a new `incarnation`."""

from __future__ import annotations

import asyncio
import logging
import os
import time
import uuid
import warnings
from collections import deque
from dataclasses import dataclass, field
from collections.abc import Callable, Iterable
from typing import Any, Coroutine

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from tablehost.actors.client_input import brief
from tablehost.actors.client_limits import ClientLimits
from tablehost.actors.config import LobbyConfig
from tablehost.actors.log_format import configure_logging
from tablehost.actors.matchmaking import Entrant, Gathering, GatheringKey, Group, LobbyRefused, Matchmaker, Refusal
from tablehost.actors.placement import ANY_NODE, ROOM_RESOURCE, Placement, RoomRecord, RoomState, room_number
from tablehost.actors.process_tuning import tune_garbage_collection
from tablehost.actors.ray_classes import actor_class
from tablehost.actors.room import RoomActor, room_actor_name
from tablehost.actors.round_watch import RoundWatch
from tablehost.actors.store import StoreError, open_store
from tablehost.actors.table_admin import TableAdmin, TableListing
from tablehost.actors.table_results import TableResults, table_state
from tablehost.actors.table_directory import TableDescription, TableDirectory, TableRecord
from tablehost.actors.tokens import SPECTATOR_SEAT, SeatClaim, sign_seat_token
from tablehost.games.engine.fairness import TableSeed
from tablehost.games.engine.rng import Random
from tablehost.games.engine.rules import GameRules, InvalidJoin
from tablehost.games.registry import GameCatalog, UnknownGame, UnknownVariant

log = logging.getLogger("tablehost.lobby")

LOBBY_NAME = "tablehost-lobby"
NAMESPACE = "tablehost"
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6

JANITOR_PERIOD_S = 1.0
# A private table's turn timer, when its creator sets one: from a bot's
# tenth of a second to an hour.
MIN_TURN_TIMEOUT_MS = 100
MAX_TURN_TIMEOUT_MS = 3_600_000
# Tables one describe_tables call answers for (a front door sends batches of at most this many).
MAX_DESCRIBED = 2_000
NODES_REFRESH_S = 2.0
# After a room failed to start on a node, no other is started there for this
# long (a node without the room ports or the advertised address must not
# become a start storm); the other nodes start rooms meanwhile.
ROOM_START_BACKOFF_S = 5.0
# A table whose room keeps refusing it is failed after this many tries.
MAX_PLACEMENT_ATTEMPTS = 3
# A room that takes longer than this to open a batch of tables cannot be
# reached (hung, or cut off): it is dropped from placement and stopped.
OPEN_TABLES_TIMEOUT_S = 30.0
# A restarted lobby waits this long for its rooms' inventories; a room that
# has not answered by then is stopped (its tables resume from the store).
ROOM_INVENTORY_TIMEOUT_S = 10.0


def _was_restarted() -> bool:
    """Whether Ray restarted this actor. Ray's own property reads a
    deprecated attribute inside and warns on every call (three lines of
    text in a log that is otherwise one JSON object a line); the warning is
    Ray's to fix, not ours to pass on."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return bool(ray.get_runtime_context().was_current_actor_reconstructed)


@dataclass(eq=False)
class DoorMailbox:
    """What the lobby has for one front door until its next poll."""

    door_id: str
    last_seen: float
    proposals: list[tuple[int, str]] = field(default_factory=list)
    seated: list[dict[str, Any]] = field(default_factory=list)
    dropped: list[tuple[str, str, str]] = field(default_factory=list)
    wake: asyncio.Event = field(default_factory=asyncio.Event)

    def post(self) -> None:
        self.wake.set()

    def take(self) -> dict[str, Any]:
        mail = {"proposals": self.proposals, "seated": self.seated, "dropped": self.dropped}
        self.proposals, self.seated, self.dropped = [], [], []
        self.wake.clear()
        return mail

    @property
    def empty(self) -> bool:
        return not (self.proposals or self.seated or self.dropped)


@dataclass(eq=False)
class PendingTable:
    """A confirmed group on its way into a room."""

    table_id: str
    seed: TableSeed
    group: Group
    attempts: int = 0
    # A table a tournament seated itself: its seats are the entrants' order
    # (the pairing balanced them), and its caller awaits the outcome here.
    placed: asyncio.Future[dict[str, Any]] | None = None
    # Its seats that have not opened a stream this long after the table
    # opened are no-shows (a tournament forfeits them); None: no window.
    no_show_after_s: float | None = None


@ray.remote(num_cpus=0)
class LobbyActor:
    def __init__(self, config: LobbyConfig) -> None:
        configure_logging(config.room.log_format)
        self.config = config
        self.catalog = GameCatalog.load(config.room.game_modules, config.room.game_path)
        # Front doors compare it between calls: a new one means the lobby
        # restarted and forgot its queues, so they send their players again.
        self.incarnation = uuid.uuid4().hex
        restarted = _was_restarted()
        # A restarted lobby must not deal the tables' seeds (and ids) it dealt before.
        self._fixed_seed = config.seed is not None and not restarted
        self.seed = config.seed if config.seed is not None and not restarted else int.from_bytes(os.urandom(8), "big")
        self.rng = Random(self.seed)
        self.matchmaker = Matchmaker()
        self.client_limits = ClientLimits()
        self.placement = Placement(config.room.tables_per_room, config.rooms_per_cpu, config.free_slots,
                                   follow_demand=config.rooms_follow_demand)
        self.directory = TableDirectory(config.table_retention_s)
        self.doors: dict[str, DoorMailbox] = {}
        self._awaiting_room: deque[PendingTable] = deque()
        # Tables placed in a room and not yet opened there; one open_tables
        # call is in flight per room at a time, and what is placed meanwhile
        # goes in its next call, so a burst opens in a few large batches.
        self._to_open: dict[str, list[PendingTable]] = {}
        self._opening: set[str] = set()
        # Tables whose room died or is being drained, waiting for a slot in another room.
        self._awaiting_resume: deque[str] = deque()
        # Draining rooms asked to hand their tables off, not yet answered.
        self._handing_off: set[str] = set()
        # Nodes drained whole: no room starts there again (an upgraded node
        # rejoins Ray under a new node id).
        self._cordoned: set[str] = set()
        # Set when the host stops its rooms: none starts after, and their ends
        # are not taken for deaths whose tables must resume elsewhere.
        self._stopping = False
        self._room_counter = 0
        self._table_counter = 0
        # A restarted lobby counts tables from 1 again: its ids carry a tag of
        # its incarnation, so none can name a table an earlier incarnation
        # dealt (still running, or finished and kept in the store).
        self._id_tag = f"{self.incarnation[:8]}." if restarted else ""
        # Per node, until when no room is started there: one failed to start
        # (its node lacks what rooms need); the other nodes take its share.
        self._room_starts_paused: dict[str, float] = {}
        # Tables in an open_tables call not yet answered, and those among
        # them whose room already reported them closed (a deserted table
        # closes after its grace period, which a busy lobby can outlast
        # before it reads the answer): recorded as closed once seated.
        self._in_open_call: set[str] = set()
        self._closed_while_opening: dict[str, str] = {}
        self._nodes_refreshed = 0.0
        self._tasks: set[asyncio.Task[Any]] = set()
        # Started here, not by a call: a lobby Ray restarted must tidy, watch
        # and place before any front door asks it something.
        # Set (and replaced) whenever a room reports games over: what a
        # tournament waiting for its tables' results wakes on.
        self.results = TableResults(self.directory)
        self.table_admin = TableAdmin(self.directory, self.placement, self.results.changed)
        self.round_watch = RoundWatch()
        # Nodes Ray lists as dead (lost, or removed after a drain), as of the last refresh.
        self._nodes_dead = 0
        self._janitor = asyncio.get_running_loop().create_task(self._tidy_forever())
        tune_garbage_collection()
        self._take_back_rooms()
        if restarted:
            self._find_tables_between_rooms()
        log.info("lobby %s, seed %d; %d rooms and %d tables taken back", "restarted" if restarted else "up",
                 self.seed, len(self.placement.rooms), self.directory.running_count)

    async def ready(self, timeout_s: float = 120.0) -> dict[str, Any]:
        """Start the rooms every node's CPUs call for and wait until they
        serve (or `timeout_s`); idempotent. Rooms that follow demand may wait
        for the autoscaler's node: nobody waits for them here."""
        self._refresh_nodes(force=True)
        self._start_rooms_wanted()
        deadline = time.monotonic() + timeout_s
        while self.placement.starting and not self.placement.follow_demand and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        return await self.status()

    # -- front doors ---------------------------------------------------------------

    async def door_exchange(
        self,
        door_id: str,
        joins: list[dict[str, str]],
        leaves: list[str],
        answers: list[tuple[int, str, bool]],
    ) -> dict[str, Any]:
        """One batch from a front door: players who left (processed first),
        players who joined, and its answers to proposals (does it still hold
        that player?). Returns the joins refused, by ticket."""
        self._door(door_id)
        for ticket in leaves:
            self._each("a leave", lambda: self.matchmaker.leave(ticket))
        refused: dict[str, tuple[str, str]] = {}
        for join in joins:
            try:
                self._join(join, door_id)
            except LobbyRefused as refusal:
                refused[join["ticket"]] = (refusal.refusal.value, refusal.message)
            except Exception:  # a bug met by one player's join: that player alone is refused
                log.exception("the join of ticket %s failed", brief(str(join.get("ticket"))))
                refused[join["ticket"]] = (Refusal.INTERNAL.value, "this join could not be taken; join again")
        for group_id, ticket, present in answers:
            self._each("an answer to a proposal", lambda: self._answer(group_id, ticket, present))
        self._propose()
        self._place_awaiting()
        return {"refused": refused, "lobby": self.incarnation}

    def _answer(self, group_id: int, ticket: str, present: bool) -> None:
        if not present:
            self.matchmaker.decline(group_id, ticket)
            return
        group = self.matchmaker.confirm(group_id, ticket)
        if group is not None:
            self._awaiting_room.append(self._pending_table(group))

    @staticmethod
    def _each(what: str, step: Callable[[], object]) -> None:
        """One player's step of a front door's batch: a bug met by it is
        logged and costs that step alone, never the batch (every other
        player's join, leave and answer in it goes on)."""
        try:
            step()
        except Exception:
            log.exception("%s of a front door's batch failed", what)

    async def door_poll(self, door_id: str, timeout_s: float) -> dict[str, Any]:
        """Wait up to `timeout_s` for proposals, seatings or dropped players
        for this front door; each front door keeps one poll open."""
        door = self._door(door_id)
        if door.empty:
            try:
                await asyncio.wait_for(door.wake.wait(), timeout_s)
            except TimeoutError:
                pass
        door.last_seen = time.monotonic()
        return {**door.take(), "lobby": self.incarnation}

    async def leave_queue(self, ticket: str) -> bool:
        """Take a waiting ticket out (LeaveQueue, from any front door); its
        own front door ends its JoinQueue with CANCELLED."""
        entrant = self.matchmaker.leave(ticket)
        if entrant is None:
            return False
        self._drop(entrant, Refusal.CANCELLED, "left the queue")
        log.info("ticket %s left %s", ticket, entrant.key.label)
        self._propose()
        return True

    async def create_private_table(self, game: str, variant: str, turn_timeout_ms: int, seats: int = 0,
                                   client: str = "") -> dict[str, Any]:
        """A private table waiting for players, its code given to its creator
        (`client`: the identity its front door names; a client keeps a few
        waiting at most, actors/client_limits.py)."""
        rules = self._rules(game, variant)
        seats = self._seats(rules, seats)
        if turn_timeout_ms and not MIN_TURN_TIMEOUT_MS <= turn_timeout_ms <= MAX_TURN_TIMEOUT_MS:
            raise LobbyRefused(Refusal.INVALID_ARGUMENT,
                               f"turn_timeout_ms is 0 (the host's setting) or {MIN_TURN_TIMEOUT_MS} to "
                               f"{MAX_TURN_TIMEOUT_MS}, not {turn_timeout_ms}")
        if self.matchmaker.private_count >= self.config.max_private_tables:
            raise LobbyRefused(Refusal.RESOURCE_EXHAUSTED, "too many private tables are waiting to fill; try later")
        code = self._new_code()
        self.client_limits.admit_private_table(client, code, self._private_table_waits)
        overrides = {"turn_timeout_ms": turn_timeout_ms} if turn_timeout_ms else {}
        self.matchmaker.open_private(code, game, seats, self._options_for(game, overrides), time.monotonic())
        log.info("private %s table %s created", game, code)
        return {"code": code, "game": game, "seats": seats}

    def _private_table_waits(self, code: str) -> bool:
        return self.matchmaker.private_gathering(code) is not None

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
                tuple(record.players), record.commitment, self._token(table_id, SPECTATOR_SEAT))
        return described

    # -- tournaments --------------------------------------------------------------------

    async def place_tables(self, tables: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Open tables a tournament seated itself, not from the public queue:
        each {"table_id", "game", "variant", "seed", "options", "players":
        [{"name", "join"}] in seat order, "no_show_after_s"}. Returns, per
        table, where it runs and each seat's token; or, for a table already
        settled, its state as `table_results` gives it; or an `error`. Asking again for a table (a restarted tournament) opens
        nothing twice: a running or finished table is answered as it is."""
        waiting: list[asyncio.Future[dict[str, Any]]] = []
        for table in tables:
            future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
            waiting.append(future)
            record = self.directory.get(table["table_id"])
            if record is not None:
                future.set_result(self._placed(record))
                continue
            try:
                pending = self._tournament_table(table)
            except LobbyRefused as refusal:
                future.set_result({"table_id": table["table_id"], "error": refusal.message})
                continue
            pending.placed = future
            self._awaiting_room.append(pending)
        self._place_awaiting()
        return list(await asyncio.gather(*waiting))

    async def table_results(self, table_ids: list[str], timeout_s: float) -> dict[str, Any]:
        """Each table's state (actors/table_results.py), once one of them is
        no longer running or after `timeout_s`."""
        return await self.results.wait(table_ids, timeout_s)

    def _tournament_table(self, table: dict[str, Any]) -> PendingTable:
        rules = self._rules(table["game"], table.get("variant", ""))
        seats = self._seats(rules, len(table["players"]))
        key = GatheringKey(table["game"], table.get("variant", ""), seats=seats)
        gathering = Gathering(key, seats, self._options_for(table["game"], table.get("options", {})), time.monotonic())
        entrants = []
        for seat, player in enumerate(table["players"]):
            join, _ = self._checked_join(rules, dict(player.get("join", {})))
            entrants.append(Entrant(f"{table['table_id']}#{seat}", player["name"], "", key, join))
        window = table.get("no_show_after_s")
        return PendingTable(table["table_id"], table["seed"], Group(0, gathering, entrants, time.monotonic()),
                            no_show_after_s=float(window) if window is not None else None)

    def _placed(self, record: TableRecord) -> dict[str, Any]:
        """A running table's endpoint and seat tokens; a settled one's state
        (as `table_results` gives it)."""
        state = table_state(record)
        if state["state"] != "running":
            return {"table_id": record.table_id, **state}
        return {"table_id": record.table_id, "endpoint": record.endpoint, "game": record.game,
                "display_names": list(record.players), "deal_commitment": record.commitment,
                "seat_tokens": [self._token(record.table_id, seat) for seat in range(len(record.players))]}

    # -- rooms -----------------------------------------------------------------------

    async def tables_over(self, room_id: str, results: list[dict[str, Any]]) -> None:
        """A room reports games that ended, with their results (before the
        tables linger and close), or tables its no-shows ended (no result):
        tournaments waiting on them wake."""
        for entry in results:
            record = self.directory.get(entry["table_id"])
            if record is not None:
                record.result = entry["result"]
                record.no_show = list(entry.get("no_show", ()))
        self.results.changed()

    async def tables_closed(self, room_id: str, closed: list[dict[str, Any]]) -> None:
        """A room reports tables it closed: their slots are free again. A
        table cancelled before its deal names its absent seats, whose
        clients are counted as having left a seat empty."""
        now = time.monotonic()
        for entry in closed:
            table_id = entry["table_id"]
            record = self.directory.get(table_id)
            for seat in entry.get("absent", ()):
                if record is not None and 0 <= seat < len(record.clients):
                    self.client_limits.record_ghost_seat(record.clients[seat])
            self.placement.unplace(room_id, table_id, now)
            if self.directory.finish(table_id, entry["outcome"], now) is None and table_id in self._in_open_call:
                self._closed_while_opening[table_id] = entry["outcome"]
        # A table that ended without a result (deserted, failed, closed) is
        # news to a tournament waiting on it too.
        self.results.changed()
        self._place_awaiting()

    # -- what the operator and tests read ----------------------------------------------

    async def status(self) -> dict[str, Any]:
        rooms_by_node: dict[str, list[dict[str, Any]]] = {node: [] for node in self.placement.nodes}
        for room in sorted(self.placement.rooms.values(), key=lambda r: r.room_id):
            rooms_by_node.setdefault(room.node_id, []).append(
                {"room_id": room.room_id, "endpoint": room.endpoint, "state": room.state.value,
                 "tables": len(room.tables), "capacity": room.capacity, "pid": room.pid,
                 "metrics_endpoint": room.metrics_endpoint}
            )
        queues = [
            {"game": key.game, "variant": key.variant, "seats": key.seats, "partition": key.partition,
             "waiting": len(g.waiting), "proposed": g.proposed * g.seats}
            for key, g in sorted(self.matchmaker.gatherings.items(), key=lambda item: item[0].label)
            if not key.code
        ]
        return {
            "seed": self.seed,
            "incarnation": self.incarnation,
            "pid": os.getpid(),
            "run_id": self.config.room.run_id,
            "nodes": [
                {"node_id": node, "cpus": self.placement.nodes.get(node, 0.0), "alive": node in self.placement.nodes,
                 "rooms": rooms}
                for node, rooms in sorted(rooms_by_node.items())
            ],
            "queues": queues,
            "waiting": sum(q["waiting"] for q in queues),
            "private_tables": self.matchmaker.private_count,
            "rooms": len(self.placement.rooms),
            "tables": self.directory.running_count,
            "free_slots": self.placement.free,
            "tables_per_room": self.placement.tables_per_room,
            "tables_started": self.directory.started,
            "tables_awaiting_room": len(self._awaiting_room),
            "records_kept": self.directory.retained_count,
            "front_doors": len(self.doors),
            "nodes_alive": len(self.placement.nodes),
            "nodes_dead": self._nodes_dead,
            "tournament_rounds_overdue": len(self.round_watch.overdue(time.time())),
        }

    async def tournament_rounds(self) -> list[dict[str, Any]]:
        """The tournaments with a round in play: id, round, deadline, whether overdue."""
        return self.round_watch.in_play(time.time())

    async def tournament_round(self, tournament_id: str, number: int, deadline_s: float) -> None:
        """A tournament's round started with this deadline (epoch seconds);
        number 0: it has no round in play (actors/round_watch.py)."""
        if number:
            self.round_watch.started(tournament_id, number, deadline_s)
        else:
            self.round_watch.ended(tournament_id)

    async def drain(self, room_ids: list[str], node_id: str = "") -> dict[str, Any]:
        """Take rooms out of service (an upgrade, a node to retire): the rooms
        named, or every room on `node_id`, where no room starts again while
        the node runs. No new table goes to them and a
        replacement starts. With a store their tables move at once, as a dead
        room's do (each stream ends UNAVAILABLE and its player reconnects to
        wherever LookupTable points); without one their games play to the
        end. Each room stops once it holds no table. A request naming a room
        that does not exist or is not ready is refused whole."""
        if bool(room_ids) == bool(node_id):
            return {"error": "name the rooms to drain or a node, not both and not neither"}
        if node_id:
            # A prefix will do, as `tablehost status` shows the first characters of each id.
            matches = [node for node in self.placement.nodes if node.startswith(node_id)]
            if len(matches) != 1:
                how = "no live node" if not matches else f"{len(matches)} live nodes match"
                return {"error": f"{how} {node_id} (the nodes now: {', '.join(sorted(self.placement.nodes))})"}
            node_id = matches[0]
            # A room starting there is drained once ready; one being released is going anyway.
            room_ids = sorted((r.room_id for r in self.placement.rooms.values()
                               if r.node_id == node_id and r.state in (RoomState.READY, RoomState.DRAINING)),
                              key=room_number)
        rooms = []
        for room_id in dict.fromkeys(room_ids):
            room = self.placement.rooms.get(room_id)
            if room is None:
                known = ", ".join(sorted(self.placement.rooms, key=room_number)) or "none"
                return {"error": f"no room {room_id!r} (the rooms now: {known})"}
            if room.state not in (RoomState.READY, RoomState.DRAINING):
                return {"error": f"room {room_id} is {room.state.value}; only a ready room can be drained"}
            rooms.append(room)
        if node_id:
            self._cordoned.add(node_id)
        now = time.monotonic()
        for room in rooms:
            room.state = RoomState.DRAINING
            # Tables placed in it but not yet sent there open elsewhere.
            bound_here = self._to_open.pop(room.room_id, [])
            for pending in bound_here:
                self.placement.unplace(room.room_id, pending.table_id, now)
            self._awaiting_room.extendleft(reversed(bound_here))
            log.info("draining room %s on node %s: %d tables %s", room.room_id, room.node_id[:12], len(room.tables),
                     "move to other rooms" if self.config.room.store is not None else "play to their end")
        self._place_awaiting()  # starts their replacements
        for room in rooms:
            self._drain_step(room)
        return {"rooms": [room.room_id for room in rooms], "tables": sum(len(room.tables) for room in rooms),
                "tables_move": self.config.room.store is not None, "node_cordoned": bool(node_id)}

    def _drain_step(self, room: RoomRecord) -> None:
        """Stop a draining room that holds no table; with a store, ask it to
        hand off the tables it holds (again at each tidy, for any that were
        opening when the drain began)."""
        if room.state is not RoomState.DRAINING or room.room_id in self._opening:
            return
        if not room.tables:
            room.state = RoomState.RELEASING
            self._spawn(self._release_room(room, "drained"))
        elif self.config.room.store is not None and room.room_id not in self._handing_off:
            self._handing_off.add(room.room_id)
            self._spawn(self._hand_off(room))

    async def _hand_off(self, room: RoomRecord) -> None:
        """Ask a draining room to let its tables go, and resume them elsewhere."""
        try:
            moved = await asyncio.wait_for(room.handle.hand_off.remote(sorted(room.tables)), OPEN_TABLES_TIMEOUT_S)
        except (ray.exceptions.RayError, TimeoutError) as error:
            # Dead: its watch resumes its tables. Slow: the next tidy asks again.
            log.warning("room %s did not hand off its tables (%s)", room.room_id, type(error).__name__)
            return
        finally:
            self._handing_off.discard(room.room_id)
        now = time.monotonic()
        for table_id in moved:
            self.placement.unplace(room.room_id, table_id, now)
        self._resume_elsewhere(moved)
        log.info("room %s handed off %d tables; they resume in other rooms", room.room_id, len(moved))
        self._place_awaiting()
        if not room.tables:
            self._drain_step(room)  # else the tables it no longer holds are reported closed, and a tidy stops it

    # -- what administrators do (actors/table_admin.py) ----------------------------------

    async def list_tables(self, game: str, limit: int) -> TableListing:
        return self.table_admin.list(game, limit)

    async def close_table(self, table_id: str, reason: str) -> str:
        return await self.table_admin.close(table_id, reason)

    async def remove_seat(self, table_id: str, seat: int, reason: str) -> str:
        return await self.table_admin.remove_seat(table_id, seat, reason)

    async def adjudicate_table(self, table_id: str, places: list[int], reason: str) -> str:
        return await self.table_admin.adjudicate(table_id, places, reason)

    async def table_record(self, table_id: str) -> dict[str, Any]:
        record = self.directory.get(table_id)
        if record is None:
            raise LobbyRefused(Refusal.NOT_FOUND, f"no table {table_id!r} on record")
        return record.to_dict()

    async def stop_rooms(self) -> int:
        """Stop every room, as a host with an embedded Ray does when it stops:
        each is released (its streams end with a status) rather than left to
        end behind the lobby's back, whose ends the lobby would take for
        deaths and resume their tables elsewhere; no room starts after.
        Returns how many rooms were stopped."""
        self._stopping = True
        rooms = list(self.placement.rooms.values())
        for room in rooms:
            room.state = RoomState.RELEASING
            if room.handle is None:
                self.placement.remove(room.room_id)  # still starting: ended once it is up
        started = [room for room in rooms if room.handle is not None]
        await asyncio.gather(*(self._release_room(room, "stopping") for room in started))
        return len(started)

    async def room_handles(self) -> dict[str, Any]:
        return {room_id: room.handle for room_id, room in self.placement.rooms.items() if room.handle is not None}

    # -- matching ----------------------------------------------------------------------

    def _door(self, door_id: str) -> DoorMailbox:
        door = self.doors.get(door_id)
        if door is None:
            door = self.doors[door_id] = DoorMailbox(door_id, time.monotonic())
            log.info("front door %s connected", door_id)
        door.last_seen = time.monotonic()
        return door

    def _join(self, join: dict[str, Any], door_id: str) -> Entrant:
        """A player into a queue (split by the partition the game gives its
        join data) or a private table (which must be compatible with it)."""
        known = self.matchmaker.entrants.get(join["ticket"])
        if known is not None and known.door == door_id:
            return known  # sent again by its front door (its last exchange failed): already waiting
        self.client_limits.check_join(join.get("client", ""))
        code = join.get("code", "")
        if code:
            gathering = self.matchmaker.private_gathering(code)
            if gathering is None:
                raise LobbyRefused(Refusal.NOT_FOUND, f"no private table {code} is waiting for players")
            rules = self.catalog.rules(gathering.key.game)
            data, partition = self._checked_join(rules, join.get("join", {}))
            if gathering.partition is not None and partition != gathering.partition:
                raise LobbyRefused(Refusal.INVALID_ARGUMENT,
                                   f"your join data is not compatible with private table {code}'s players")
            gathering.partition = partition
        else:
            rules = self._rules(join["game"], join["variant"])
            data, partition = self._checked_join(rules, join.get("join", {}))
            gathering = self.matchmaker.queue(join["game"], join["variant"], self._seats(rules, join.get("seats", 0)),
                                              self._options_for(join["game"], {}), time.monotonic(), partition)
        return self.matchmaker.join(gathering, join["ticket"], join["name"] or join["ticket"], door_id, data,
                                    join.get("client", ""))

    @staticmethod
    def _checked_join(rules: GameRules, data: Any) -> tuple[dict[str, Any], str]:
        """A player's join data as the game accepts it, and its partition."""
        try:
            checked = rules.accepted_join(data)
            return checked, str(rules.join_partition(checked))
        except InvalidJoin as error:
            raise LobbyRefused(Refusal.INVALID_ARGUMENT, f"join data refused by {rules.name}: {error}") from None

    def _propose(self) -> None:
        for group in self.matchmaker.propose(time.monotonic()):
            for entrant in group.entrants:
                door = self.doors.get(entrant.door)
                if door is not None:
                    door.proposals.append((group.group_id, entrant.ticket))
                    door.post()

    def _drop(self, entrant: Entrant, refusal: Refusal, message: str) -> None:
        door = self.doors.get(entrant.door)
        if door is not None:
            door.dropped.append((entrant.ticket, refusal.value, message))
            door.post()

    def _pending_table(self, group: Group) -> PendingTable:
        self._table_counter += 1
        game = group.gathering.key.game
        # The run keeps a restarted host (same seed, same secret) from dealing
        # an id an old seat token names.
        run = self.config.room.run_id
        table_id = (f"{game}-{run + '-' if run else ''}{self._id_tag}{self._table_counter}"
                    f"-{self.rng.next_u64() & 0xFFFFFF:06x}")
        return PendingTable(table_id, self._table_seed(group), group)

    def _table_seed(self, group: Group) -> TableSeed:
        """A secret the players can check once the game is over: from the
        operating system's CSPRNG (the lobby's own PRNG is SplitMix64, whose
        every output gives its state away). A host started with a fixed seed
        derives it from that seed and the players' tickets instead, so the
        same players are dealt the same table whatever else the host did
        before: reproducible runs and tests, which promise players nothing."""
        if self._fixed_seed:
            tickets = "\n".join(sorted(entrant.ticket for entrant in group.entrants))
            return TableSeed.derived(self.seed.to_bytes(8, "big"), f"table of {tickets}")
        return TableSeed.new()

    def _fail_pending(self, pending: PendingTable, refusal: Refusal, message: str) -> None:
        if pending.placed is not None:
            if not pending.placed.done():
                pending.placed.set_result({"table_id": pending.table_id, "error": message})
            return
        self._fail_group(pending.group, refusal, message)

    # -- placing tables in rooms ---------------------------------------------------------

    def _place_awaiting(self) -> None:
        """Give each confirmed group a slot (least-loaded room first) and have
        each room open its new tables; start rooms if the slots run short."""
        resumes: dict[str, tuple[RoomRecord, list[str]]] = {}
        while self._awaiting_resume:
            room = self.placement.place(self._awaiting_resume[0])
            if room is None:
                break
            resumes.setdefault(room.room_id, (room, []))[1].append(self._awaiting_resume.popleft())
        for room, table_ids in resumes.values():
            self._spawn(self._resume_in(room, table_ids))
        placed: dict[str, RoomRecord] = {}
        while self._awaiting_room:
            room = self.placement.place(self._awaiting_room[0].table_id)
            if room is None:
                break
            self._to_open.setdefault(room.room_id, []).append(self._awaiting_room.popleft())
            placed[room.room_id] = room
        for room_id, room in placed.items():
            if room_id not in self._opening:
                self._opening.add(room_id)
                self._spawn(self._open_in(room))
        self._start_rooms_wanted()
        if self._awaiting_room and not self.placement.starting and not self.placement.free:
            self._fail_awaiting_if_no_room_can_start()

    async def _open_in(self, room: RoomRecord) -> None:
        """Open what is placed in `room`, one call at a time, until nothing is left."""
        try:
            while batch := self._to_open.pop(room.room_id, None):
                await self._open_tables(room, batch)
        finally:
            self._opening.discard(room.room_id)

    async def _open_tables(self, room: RoomRecord, batch: list[PendingTable]) -> None:
        requests = [
            {
                "table_id": pending.table_id,
                "game": pending.group.gathering.key.game,
                "variant": pending.group.gathering.key.variant,
                "seed": pending.seed,
                "entrants": [{"ticket": e.ticket, "name": e.name, "join": e.join, "client": e.client}
                             for e in pending.group.entrants],
                "options": pending.group.gathering.options,
                "keep_order": pending.placed is not None,
                "no_show_after_s": pending.no_show_after_s,
            }
            for pending in batch
        ]
        opening = {pending.table_id for pending in batch}
        self._in_open_call |= opening
        try:
            answers = await asyncio.wait_for(room.handle.open_tables.remote(requests), OPEN_TABLES_TIMEOUT_S)
        except (ray.exceptions.RayActorError, TimeoutError) as error:
            why = "it did not answer" if isinstance(error, TimeoutError) else f"it failed ({type(error).__name__})"
            self._room_died(room.room_id, f"{why} while opening {len(batch)} tables")
            ray.kill(room.handle)  # a room cut off must not keep serving tables the lobby has dropped
            for table_id in opening:
                self._closed_while_opening.pop(table_id, None)  # they open again, elsewhere
            self._awaiting_room.extendleft(reversed(batch))  # they keep their confirmation
            self._place_awaiting()
            return
        finally:
            self._in_open_call -= opening
        now = time.monotonic()
        retry: list[PendingTable] = []
        for pending, answer in zip(batch, answers):
            closed_meanwhile = self._closed_while_opening.pop(pending.table_id, None)
            if answer.record is not None:
                self._seat(pending, room, answer.record)
                if closed_meanwhile is not None:
                    self.directory.finish(pending.table_id, closed_meanwhile, now)
                continue
            self.placement.unplace(room.room_id, pending.table_id, now)
            pending.attempts += 1
            if answer.retry and pending.attempts < MAX_PLACEMENT_ATTEMPTS:
                retry.append(pending)
            else:
                log.error("table %s could not be opened in room %s: %s", pending.table_id, room.room_id, answer.error)
                self._fail_pending(pending, Refusal.INTERNAL, f"the table could not be opened: {answer.error}")
        if retry:
            self._awaiting_room.extendleft(reversed(retry))
            self._place_awaiting()

    async def _resume_in(self, room: RoomRecord, table_ids: list[str]) -> None:
        """Have `room` take over tables from the store; LookupTable then names it."""
        try:
            answers = await asyncio.wait_for(room.handle.resume_tables.remote(table_ids), OPEN_TABLES_TIMEOUT_S)
        except (ray.exceptions.RayActorError, TimeoutError) as error:
            self._room_died(room.room_id, f"it failed while resuming tables ({type(error).__name__})")
            ray.kill(room.handle)
            self._awaiting_resume.extendleft(reversed(table_ids))
            self._place_awaiting()
            return
        now = time.monotonic()
        for table_id, answer in zip(table_ids, answers):
            if answer.record is None:
                self.placement.unplace(room.room_id, table_id, now)
                record = self.directory.get(table_id)
                if record is not None:
                    record.resuming = False
                self.directory.finish(table_id, "room lost", now)
                log.error("table %s could not resume in room %s: %s", table_id, room.room_id, answer.error)
            else:
                if self.directory.get(table_id) is None:  # this lobby restarted while the table moved
                    self.directory.add(TableRecord.from_plain(answer.record, room.room_id, room.endpoint))
                self.directory.move(table_id, room.room_id, room.endpoint)
                self.table_admin.resumed(table_id, room.handle)
                log.info("table %s resumed in room %s at seq %d (epoch %d)", table_id, room.room_id,
                         answer.seq, answer.epoch)

    def _seat(self, pending: PendingTable, room: RoomRecord, record: dict[str, Any]) -> None:
        """The room opened the table (`record` says who sits where): keep
        the record and tell each player's front door."""
        by_ticket = {entrant.ticket: entrant for entrant in pending.group.entrants}
        names, game = record["players"], record["game"]
        added = TableRecord.from_plain(record, room.room_id, room.endpoint)
        self.directory.add(added)
        log.info("table %s started in room %s, commitment %s, seats %s", pending.table_id, room.room_id,
                 record["commitment"][:16], names)
        if pending.placed is not None:
            pending.placed.set_result(self._placed(added))
            return
        for seat, ticket in enumerate(record["tickets"]):
            entrant = by_ticket[ticket]
            door = self.doors.get(entrant.door)
            if door is None:
                continue  # its front door is gone; the seat waits out the grace period
            door.seated.append(
                {
                    "table_id": pending.table_id,
                    "endpoint": room.endpoint,
                    "seat": seat,
                    "seat_token": self._token(pending.table_id, seat),
                    "game": game,
                    "display_names": names,
                    "ticket": ticket,
                    "deal_commitment": record["commitment"],
                }
            )
            door.post()

    def _fail_group(self, group: Group, refusal: Refusal, message: str) -> None:
        for entrant in group.entrants:
            self._drop(entrant, refusal, message)

    def _nodes_without_new_rooms(self) -> set[str]:
        """Nodes where no room is started now: a room failed to start there
        lately, or the node was drained."""
        now = time.monotonic()
        self._room_starts_paused = {node: until for node, until in self._room_starts_paused.items() if until > now}
        return set(self._room_starts_paused) | self._cordoned

    def _fail_awaiting_if_no_room_can_start(self) -> None:
        """While room starts are backing off after failures on every node and
        no room has a slot, the groups waiting for one are told rather than
        left hanging."""
        if self.placement.nodes and set(self.placement.nodes) <= self._nodes_without_new_rooms():
            while self._awaiting_room:
                self._fail_pending(self._awaiting_room.popleft(), Refusal.UNAVAILABLE,
                                 "no room could be started for the table; try again shortly")

    # -- rooms: start, watch, release -----------------------------------------------------

    def _start_rooms_wanted(self) -> None:
        if self._stopping:
            return
        for node_id in self.placement.rooms_to_start(excluded=self._nodes_without_new_rooms(),
                                                     tables_waiting=len(self._awaiting_room) + len(self._awaiting_resume)):
            self._room_counter += 1
            room_id = f"room-{self._room_counter}"
            self.placement.add_starting(room_id, node_id)
            self._spawn(self._start_room(room_id, node_id))

    async def _start_room(self, room_id: str, node_id: str) -> None:
        """Rooms are detached and named after the lobby: one that dies does
        not take its rooms' games with it, and finds them again."""
        lobby = ray.get_runtime_context().current_actor
        named = {"name": room_actor_name(LOBBY_NAME, room_id), "namespace": NAMESPACE, "lifetime": "detached"}
        handle: Any = None
        try:
            try:
                if node_id == ANY_NODE:
                    # Wherever a room node has a free room slot; while none
                    # has, the room waits, and Ray's autoscaler adds a node.
                    handle = actor_class(RoomActor).options(resources={ROOM_RESOURCE: 1}, **named).remote(
                        room_id, self.config.room, lobby)
                else:
                    handle = actor_class(RoomActor).options(
                        scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False), **named
                    ).remote(room_id, self.config.room, lobby)
                started = await handle.start.remote()
            except (ray.exceptions.ActorUnschedulableError, ray.exceptions.RayActorError) as error:
                # The node went away between choosing it and placing the room.
                log.warning("room %s could not start on node %s (%s); letting Ray place it", room_id, node_id, error)
                ray.kill(handle)  # frees its name
                handle = actor_class(RoomActor).options(**named).remote(room_id, self.config.room, lobby)
                started = await handle.start.remote()
        except Exception:  # a room that cannot start must not take the lobby down
            log.exception("room %s failed to start", room_id)
            if handle is not None:
                ray.kill(handle)  # detached: left alive, every retry would leave one more process
            self.placement.remove(room_id)
            self._room_starts_paused[node_id] = time.monotonic() + ROOM_START_BACKOFF_S
            self._start_rooms_wanted()  # on the other nodes
            if self._awaiting_room and not self.placement.starting and not self.placement.free:
                self._fail_awaiting_if_no_room_can_start()
            return
        if room_id not in self.placement.rooms:
            ray.kill(handle)  # forgotten while starting (the lobby is stopping)
            return
        self.placement.mark_ready(room_id, handle, started["endpoint"], started["node_id"], started["pid"],
                                  time.monotonic(), started["metrics_endpoint"])
        log.info("room %s ready on node %s at %s", room_id, started["node_id"][:12], started["endpoint"])
        self._spawn(self._watch(room_id, handle))
        if started["node_id"] in self._cordoned:  # drained while this room was starting there
            self.placement.rooms[room_id].state = RoomState.DRAINING
            self._drain_step(self.placement.rooms[room_id])
        self._place_awaiting()

    def _take_back_rooms(self) -> None:
        """Rooms outlive a lobby that dies: take back every room named after
        this lobby, with its tables, and watch it again. A room that does not
        answer in time is stopped; its tables resume from the store."""
        prefix = room_actor_name(LOBBY_NAME, "")
        names = [actor["name"] for actor in ray.util.list_named_actors(all_namespaces=True)
                 if actor["namespace"] == NAMESPACE and actor["name"].startswith(prefix)]
        handles = {}
        for name in names:
            try:
                handles[name] = ray.get_actor(name, namespace=NAMESPACE)
            except ValueError:
                continue  # it died since the listing
        me = ray.get_runtime_context().current_actor
        asked: dict[Any, str] = {handle.inventory.remote(me): name for name, handle in handles.items()}
        answered, _ = ray.wait(list(asked), num_returns=len(asked), timeout=ROOM_INVENTORY_TIMEOUT_S)
        now = time.monotonic()
        for reference, name in asked.items():
            room_id, handle = name.removeprefix(prefix), handles[name]
            self._room_counter = max(self._room_counter, room_number(room_id))
            try:
                if reference not in answered:
                    raise TimeoutError(f"no answer within {ROOM_INVENTORY_TIMEOUT_S:.0f} s")
                inventory: dict[str, Any] = ray.get(reference)
            except (ray.exceptions.RayError, TimeoutError) as error:
                log.warning("room %s could not be taken back (%s); stopping it", room_id, error)
                ray.kill(handle)
                continue
            records = inventory["records"]
            self.placement.adopt(room_id, inventory["node_id"], inventory["capacity"], {r["table_id"] for r in records})
            self.placement.mark_ready(room_id, handle, inventory["endpoint"], inventory["node_id"], inventory["pid"], now,
                                      inventory["metrics_endpoint"])
            for record in records:
                self.directory.add(TableRecord.from_plain(record, room_id, inventory["endpoint"]))
            self._spawn(self._watch(room_id, handle))

    def _find_tables_between_rooms(self) -> None:
        """Tables of this run the store holds unfinished and no room holds:
        their room died while the previous lobby moved them. They resume
        like a dead room's tables."""
        if self.config.room.store is None:
            return
        store = open_store(self.config.room.store)
        try:
            for table_id in store.unfinished():
                if self.directory.running(table_id) is not None:
                    continue
                header = store.header(table_id)
                if header["run_id"] != self.config.room.run_id:
                    continue  # an earlier run's: its players' tokens are refused anyway
                record = TableRecord.from_plain(header["record"], "", "")
                record.resuming = True
                self.directory.add(record)
                self._awaiting_resume.append(table_id)
        except StoreError as error:
            log.error("the store could not list the tables to resume: %s", error)
        finally:
            store.close()

    async def _watch(self, room_id: str, handle: Any) -> None:
        """Keep the room's `watch` call open: Ray fails it the moment the
        room's process dies, which is how a dead room is noticed."""
        try:
            await handle.watch.remote()
            why = "it stopped"
        except ray.exceptions.RayError as error:
            why = f"its actor died ({type(error).__name__})"
        room = self.placement.rooms.get(room_id)
        if room is not None and room.state is not RoomState.RELEASING:
            self._room_died(room_id, why)

    def _room_died(self, room_id: str, why: str) -> None:
        """A room is gone: it takes no more tables. With a store its tables
        resume in other rooms from their checkpoints and journals; without
        one they are lost."""
        room = self.placement.remove(room_id)
        if room is None:
            return
        # Tables placed in it but not yet sent keep their confirmation: elsewhere.
        self._awaiting_room.extendleft(reversed(self._to_open.pop(room_id, [])))
        if self.config.room.store is None:
            lost = self.directory.lose_room(room_id, time.monotonic())
            log.warning("room %s on node %s is gone (%s); %d tables lost with it (no store)",
                        room_id, room.node_id[:12], why, len(lost))
        else:
            moving = self.directory.tables_in(room_id)
            self._resume_elsewhere(moving)
            log.warning("room %s on node %s is gone (%s); its %d tables resume in other rooms",
                        room_id, room.node_id[:12], why, len(moving))
        self._place_awaiting()  # also starts a replacement room if the slots now run short

    def _resume_elsewhere(self, table_ids: Iterable[str]) -> None:
        """Tables no room serves now (theirs died, or handed them off): each
        waits for a slot in another room, which resumes it from the store;
        LookupTable answers `running: false` meanwhile."""
        for table_id in table_ids:
            record = self.directory.get(table_id)
            if record is not None:
                record.resuming = True
                self._awaiting_resume.append(table_id)

    async def _release_room(self, room: RoomRecord, why: str) -> None:
        try:
            await room.handle.stop.remote()
        except ray.exceptions.RayError:
            pass  # it is going away either way
        ray.kill(room.handle)
        self.placement.remove(room.room_id)
        log.info("released %s room %s", why, room.room_id)

    # -- housekeeping ------------------------------------------------------------------------

    async def _tidy_forever(self) -> None:
        while True:
            await asyncio.sleep(JANITOR_PERIOD_S)
            try:
                self._tidy(time.monotonic())
            except Exception:  # housekeeping must go on whatever one round hit
                log.exception("lobby housekeeping failed; trying again in %.0f s", JANITOR_PERIOD_S)

    def _tidy(self, now: float) -> None:
        self._refresh_nodes()
        for dropped in self.matchmaker.expire(now, self.config.confirm_timeout_s):
            self._drop(dropped.entrant, dropped.refusal, dropped.message)
        for door in [d for d in self.doors.values() if now - d.last_seen >= self.config.door_timeout_s]:
            gone = self.matchmaker.drop_door(door.door_id)
            del self.doors[door.door_id]
            log.warning("front door %s stopped polling; %d waiting players left with it", door.door_id, len(gone))
        for code in self.matchmaker.private_codes_older_than(now - self.config.private_table_ttl_s):
            for entrant in self.matchmaker.close_private(code):
                self._drop(entrant, Refusal.NOT_FOUND, f"private table {code} expired before it filled")
        self.matchmaker.prune_empty_queues()
        self.client_limits.tidy(self._private_table_waits)
        self.directory.expire(now)
        for room in self.placement.rooms_to_release(now, self.config.idle_release_s):
            room.state = RoomState.RELEASING  # at once: no table may be placed in it meanwhile
            self._spawn(self._release_room(room, "idle"))
        for room in self.placement.draining():
            self._drain_step(room)
        self._cordoned &= set(self.placement.nodes)  # a node that left is gone for good
        self._propose()
        self._place_awaiting()

    def _refresh_nodes(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._nodes_refreshed < NODES_REFRESH_S:
            return
        self._nodes_refreshed = now
        nodes = ray.nodes()
        self.placement.set_nodes(
            {node["NodeID"]: float(node["Resources"].get("CPU", 0.0)) for node in nodes if node["Alive"]}
        )
        self._nodes_dead = sum(1 for node in nodes if not node["Alive"])

    # -- small helpers -------------------------------------------------------------------------

    def _rules(self, game: str, variant: str) -> GameRules:
        try:
            self.catalog.check_variant(game, variant)
        except (UnknownGame, UnknownVariant) as error:
            raise LobbyRefused(Refusal.INVALID_ARGUMENT, str(error.args[0])) from None
        return self.catalog.rules(game)

    @staticmethod
    def _seats(rules: GameRules, asked: int) -> int:
        try:
            return rules.table_seats(asked)
        except ValueError as error:
            raise LobbyRefused(Refusal.INVALID_ARGUMENT, str(error)) from None

    def _new_code(self) -> str:
        while True:
            code = "".join(CODE_ALPHABET[self.rng.below(len(CODE_ALPHABET))] for _ in range(CODE_LENGTH))
            if self.matchmaker.private_gathering(code) is None:
                return code

    def _options_for(self, game: str, overrides: dict[str, Any]) -> dict[str, Any]:
        return {**self.config.game_options.get(game, {}), **overrides}

    def _token(self, table_id: str, seat: int) -> str:
        expires_ms = time.time_ns() // 1_000_000 + int(self.config.token_ttl_s * 1000)
        return sign_seat_token(self.config.room.token_secret,
                               SeatClaim(table_id, seat, expires_ms, self.config.room.run_id))

    def _spawn(self, coroutine: Coroutine[Any, Any, Any]) -> None:
        """Run a step in the background, keeping a reference so it is not collected mid-flight."""
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

