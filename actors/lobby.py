"""The lobby actor (R-L1 to R-L6): queues per game and variant, private
tables by code, spectators, seat tokens, and the warm pool of room actors
spread over the cluster's nodes.

Front doors call it once per player per game (never per move); it is a
named actor so every front door of a cluster finds the same one."""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from actors.config import LobbyConfig
from actors.room import RoomActor
from actors.tokens import SPECTATOR_SEAT, SeatClaim, sign_seat_token
from games.engine.rng import Random
from games.registry import get_rules

log = logging.getLogger("tablehost.lobby")

LOBBY_NAME = "tablehost-lobby"
NAMESPACE = "tablehost"
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"


class Cancelled(Exception):
    """The ticket left its queue before a table was filled."""


@dataclass(eq=False)
class Entrant:
    ticket: str
    name: str
    seated: asyncio.Future[dict[str, Any]] = field(default_factory=lambda: asyncio.get_running_loop().create_future())


@dataclass
class Gathering:
    """Players waiting for one table: a public queue or a private table."""

    game: str
    seats: int
    options: dict[str, Any]
    entrants: list[Entrant] = field(default_factory=list)


@dataclass
class RoomRecord:
    handle: Any
    endpoint: str
    node_id: str
    table_id: str | None = None
    idle_since: float = field(default_factory=time.monotonic)


@ray.remote(num_cpus=0)
class LobbyActor:
    def __init__(self, config: LobbyConfig) -> None:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
        self.config = config
        self.seed = config.seed if config.seed is not None else int.from_bytes(os.urandom(8), "big")
        self.rng = Random(self.seed)
        self.queues: dict[tuple[str, str], Gathering] = {}
        self.private: dict[str, Gathering] = {}
        self.tickets: dict[str, Gathering] = {}
        self.rooms: dict[str, RoomRecord] = {}
        self.warm: list[str] = []
        self.tables: dict[str, str] = {}
        self.table_log: list[dict[str, Any]] = []
        self._room_counter = 0
        self._table_counter = 0
        self._filling = 0
        self._placing: Counter[str] = Counter()
        self._janitor: asyncio.Task[None] | None = None
        log.info("lobby up, seed %d", self.seed)

    async def ready(self) -> dict[str, Any]:
        """Fill the warm pool and start releasing idle rooms; idempotent."""
        if self._janitor is None:
            self._janitor = asyncio.get_running_loop().create_task(self._release_idle_rooms())
        await self._top_up_pool()
        return await self.stats()

    # -- queues -----------------------------------------------------------------

    async def join_queue(self, game: str, variant: str, name: str, ticket: str) -> dict[str, Any]:
        """Wait for a seat at the next table of `game` (R-L1)."""
        rules = get_rules(game)
        key = (game, variant)
        gathering = self.queues.get(key)
        if gathering is None:
            gathering = self.queues[key] = Gathering(game, rules.max_seats, self._options_for(game, {}))
        return await self._enter(gathering, ticket, name, lambda: self.queues.pop(key, None))

    async def leave_queue(self, ticket: str) -> bool:
        gathering = self.tickets.pop(ticket, None)
        if gathering is None:
            return False
        for entrant in gathering.entrants:
            if entrant.ticket == ticket:
                gathering.entrants.remove(entrant)
                entrant.seated.set_exception(Cancelled(ticket))
                log.info("ticket %s left the %s queue", ticket, gathering.game)
                return True
        return False

    async def create_private_table(self, game: str, variant: str, turn_timeout_ms: int) -> dict[str, Any]:
        rules = get_rules(game)
        code = "".join(CODE_ALPHABET[self.rng.below(len(CODE_ALPHABET))] for _ in range(6))
        overrides = {"turn_timeout_ms": turn_timeout_ms} if turn_timeout_ms else {}
        self.private[code] = Gathering(game, rules.max_seats, self._options_for(game, overrides))
        log.info("private %s table %s created", game, code)
        return {"code": code, "game": game, "seats": rules.max_seats}

    async def join_private_table(self, code: str, name: str, ticket: str) -> dict[str, Any]:
        gathering = self.private.get(code)
        if gathering is None:
            raise KeyError(f"no private table {code}")
        return await self._enter(gathering, ticket, name, lambda: self.private.pop(code, None))

    async def spectate(self, table_id: str) -> dict[str, Any] | None:
        room_id = self.tables.get(table_id)
        if room_id is None:
            return None
        record = self.rooms[room_id]
        return {
            "table_id": table_id,
            "endpoint": record.endpoint,
            "seat": SPECTATOR_SEAT,
            "seat_token": self._token(table_id, SPECTATOR_SEAT),
            "game": self._logged(table_id)["game"],
            "display_names": self._logged(table_id)["players"],
            "ticket": "",
        }

    async def lookup_table(self, table_id: str) -> dict[str, Any] | None:
        room_id = self.tables.get(table_id)
        if room_id is None:
            return None
        return {"table_id": table_id, "endpoint": self.rooms[room_id].endpoint, "running": True}

    # -- rooms ------------------------------------------------------------------

    async def room_released(self, room_id: str, table_id: str) -> None:
        """A room finished its game and reset itself: back to the warm pool."""
        self.tables.pop(table_id, None)
        record = self.rooms.get(room_id)
        if record is not None:
            record.table_id = None
            record.idle_since = time.monotonic()
            self.warm.append(room_id)

    async def stats(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "rooms": len(self.rooms),
            "warm": len(self.warm),
            "warm_rooms": list(self.warm),
            "tables": len(self.tables),
            "waiting": {f"{game}/{variant}": len(g.entrants) for (game, variant), g in self.queues.items()},
            "tables_started": self._table_counter,
        }

    async def table_record(self, table_id: str) -> dict[str, Any]:
        return self._logged(table_id)

    async def room_handles(self) -> dict[str, Any]:
        return {room_id: record.handle for room_id, record in self.rooms.items()}

    # -- internals ----------------------------------------------------------------

    async def _enter(self, gathering: Gathering, ticket: str, name: str, close: Any) -> dict[str, Any]:
        ticket = ticket or f"ticket-{self.rng.next_u64():016x}"
        if ticket in self.tickets:
            raise ValueError(f"ticket {ticket} is already waiting")
        entrant = Entrant(ticket, name or ticket)
        gathering.entrants.append(entrant)
        self.tickets[ticket] = gathering
        if len(gathering.entrants) >= gathering.seats:
            seated = gathering.entrants[: gathering.seats]
            del gathering.entrants[: gathering.seats]
            for each in seated:
                self.tickets.pop(each.ticket, None)
            if not gathering.entrants:
                close()
            asyncio.get_running_loop().create_task(self._start_table(gathering, seated))
        return await entrant.seated

    async def _start_table(self, gathering: Gathering, entrants: list[Entrant]) -> None:
        try:
            room_id = await self._take_room()
            record = self.rooms[room_id]
            self._table_counter += 1
            table_id = f"{gathering.game}-{self._table_counter}-{self.rng.next_u64() & 0xFFFFFF:06x}"
            table_seed = self.rng.next_u64()
            opened = await record.handle.open_table.remote(
                table_id,
                gathering.game,
                table_seed,
                [{"ticket": e.ticket, "name": e.name} for e in entrants],
                gathering.options,
            )
        except Exception as error:  # a room that failed to start fails this table, not the lobby
            log.exception("could not start a %s table", gathering.game)
            for entrant in entrants:
                if not entrant.seated.done():
                    entrant.seated.set_exception(RuntimeError(f"could not start a table: {error}"))
            return
        record.table_id = table_id
        self.tables[table_id] = room_id
        by_ticket = {entrant.ticket: entrant for entrant in entrants}
        names = [by_ticket[ticket].name for ticket in opened["seated"]]
        self.table_log.append(
            {"table_id": table_id, "game": gathering.game, "seed": table_seed, "room_id": room_id,
             "players": names, "tickets": opened["seated"], "options": gathering.options,
             "entrants": [entrant.ticket for entrant in entrants]}
        )
        log.info("table %s started in room %s, seed %d, seats %s", table_id, room_id, table_seed, names)
        for seat, ticket in enumerate(opened["seated"]):
            entrant = by_ticket[ticket]
            if entrant.seated.done():
                continue
            entrant.seated.set_result(
                {
                    "table_id": table_id,
                    "endpoint": opened["endpoint"],
                    "seat": seat,
                    "seat_token": self._token(table_id, seat),
                    "game": gathering.game,
                    "display_names": names,
                    "ticket": ticket,
                }
            )
        asyncio.get_running_loop().create_task(self._top_up_pool())

    async def _take_room(self) -> str:
        while self.warm:
            room_id = self.warm.pop()
            if room_id in self.rooms:
                return room_id
        return await self._new_room()

    async def _new_room(self) -> str:
        self._room_counter += 1
        room_id = f"room-{self._room_counter}"
        node_id = self._least_loaded_node()
        lifetime = "detached" if self.config.detached else None
        lobby = ray.get_runtime_context().current_actor
        placed_on = node_id
        self._placing[node_id] += 1
        try:
            handle = RoomActor.options(
                scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False), lifetime=lifetime
            ).remote(room_id, self.config.room, lobby)
            endpoint = await handle.start.remote()
        except (ray.exceptions.ActorUnschedulableError, ray.exceptions.RayActorError) as error:
            # The node went away between choosing it and placing the room.
            log.warning("room %s could not start on node %s (%s); letting Ray place it", room_id, node_id, error)
            handle = RoomActor.options(lifetime=lifetime).remote(room_id, self.config.room, lobby)
            endpoint = await handle.start.remote()
            placed_on = (await handle.status.remote())["node_id"]
        finally:
            self._placing[node_id] -= 1
        self.rooms[room_id] = RoomRecord(handle, endpoint, placed_on)
        return room_id

    def _least_loaded_node(self) -> str:
        """R-L4: rooms are spread over the cluster's live nodes, each new one
        on the node holding the fewest. The affinity is hard because Ray's
        soft affinity spills to other nodes under load, which unbalances the
        spread; a node lost meanwhile is handled in _new_room."""
        alive = sorted(node["NodeID"] for node in ray.nodes() if node["Alive"])
        held = Counter(record.node_id for record in self.rooms.values()) + self._placing
        return min(alive, key=lambda node_id: held[node_id])

    async def _top_up_pool(self) -> None:
        """Keep `warm_pool_size` started rooms waiting, so a filled queue
        starts its game without a cold actor start."""
        missing = self.config.warm_pool_size - len(self.warm) - self._filling
        if missing <= 0:
            return
        self._filling += missing
        try:
            room_ids = await asyncio.gather(*(self._new_room() for _ in range(missing)))
        finally:
            self._filling -= missing
        self.warm.extend(room_ids)

    async def _release_idle_rooms(self) -> None:
        """R-L4: warm rooms beyond the pool size that stay idle are released."""
        period = max(0.5, self.config.idle_release_s / 4)
        while True:
            await asyncio.sleep(period)
            now = time.monotonic()
            surplus = len(self.warm) - self.config.warm_pool_size
            for room_id in list(self.warm):
                if surplus <= 0:
                    break
                record = self.rooms[room_id]
                if now - record.idle_since >= self.config.idle_release_s:
                    self.warm.remove(room_id)
                    del self.rooms[room_id]
                    ray.kill(record.handle)
                    surplus -= 1
                    log.info("released idle room %s", room_id)

    def _options_for(self, game: str, overrides: dict[str, Any]) -> dict[str, Any]:
        return {**self.config.game_options.get(game, {}), **overrides}

    def _token(self, table_id: str, seat: int) -> str:
        expires_ms = time.time_ns() // 1_000_000 + int(self.config.token_ttl_s * 1000)
        return sign_seat_token(self.config.room.token_secret, SeatClaim(table_id, seat, expires_ms))

    def _logged(self, table_id: str) -> dict[str, Any]:
        for entry in reversed(self.table_log):
            if entry["table_id"] == table_id:
                return entry
        raise KeyError(table_id)
