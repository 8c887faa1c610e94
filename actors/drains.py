"""Taking rooms out of service (an upgrade, a node to retire): no new table
goes to a draining room and a replacement starts. With a store its tables
move at once, as a dead room's do (each stream ends UNAVAILABLE and its
player reconnects to wherever LookupTable points); without one their games
play to the end. Each room stops once it holds no table."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from tablehost.actors.config import LobbyConfig
from tablehost.actors.placement import Placement, RoomRecord, RoomState, room_number
from tablehost.actors.room_calls import RoomUnreachable
from tablehost.actors.room_supervisor import RoomSupervisor
from tablehost.actors.table_opener import TableOpener

log = logging.getLogger("tablehost.lobby")


@dataclass(frozen=True, slots=True)
class DrainStarted:
    """The rooms a drain took out of service, the tables they held, whether
    those move to other rooms now (else they play to their end), and
    whether a node was cordoned."""

    rooms: tuple[str, ...]
    tables: int
    tables_move: bool
    node_cordoned: bool


@dataclass(frozen=True, slots=True)
class DrainRefused:
    """Why a drain was refused whole (nothing was changed)."""

    error: str


class Drains:
    def __init__(self, config: LobbyConfig, placement: Placement, rooms: RoomSupervisor, opener: TableOpener,
                 spawn: Callable[[Coroutine[Any, Any, Any]], None]) -> None:
        self.config = config
        self.placement = placement
        self.rooms = rooms
        self.opener = opener
        self._spawn = spawn
        # Draining rooms asked to hand their tables off, not yet answered.
        self._handing_off: set[str] = set()

    @property
    def tables_move(self) -> bool:
        return self.config.room.store is not None

    def drain(self, room_ids: list[str], node_id: str = "") -> DrainStarted | DrainRefused:
        """Drain the rooms named, or every room on `node_id` (where no room
        starts again while the node runs). A request naming a room that does
        not exist or is not ready is refused whole."""
        if bool(room_ids) == bool(node_id):
            return DrainRefused("name the rooms to drain or a node, not both and not neither")
        if node_id:
            # A prefix will do, as `tablehost status` shows the first characters of each id.
            matches = [node for node in self.placement.nodes if node.startswith(node_id)]
            if len(matches) != 1:
                how = "no live node" if not matches else f"{len(matches)} live nodes match"
                return DrainRefused(f"{how} {node_id} (the nodes now: {', '.join(sorted(self.placement.nodes))})")
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
                return DrainRefused(f"no room {room_id!r} (the rooms now: {known})")
            if room.state not in (RoomState.READY, RoomState.DRAINING):
                return DrainRefused(f"room {room_id} is {room.state.value}; only a ready room can be drained")
            rooms.append(room)
        if node_id:
            self.rooms.cordoned.add(node_id)
        for room in rooms:
            room.state = RoomState.DRAINING
            self.opener.take_back_unopened(room.room_id)  # they open elsewhere
            log.info("draining room %s on node %s: %d tables %s", room.room_id, room.node_id[:12], len(room.tables),
                     "move to other rooms" if self.tables_move else "play to their end")
        self.opener.place_awaiting()  # starts their replacements
        self.step()
        return DrainStarted(tuple(room.room_id for room in rooms), sum(len(room.tables) for room in rooms),
                            self.tables_move, bool(node_id))

    def step(self) -> None:
        """Each draining room's next step: stopped once it holds no table;
        with a store, asked to hand off the tables it holds (again at each
        step, for any that were opening when the drain began)."""
        for room in self.placement.draining():
            if room.room_id in self.opener.opening:
                continue
            if not room.tables:
                self.rooms.release(room, "drained")
            elif self.tables_move and room.room_id not in self._handing_off:
                self._handing_off.add(room.room_id)
                self._spawn(self._hand_off(room))

    async def _hand_off(self, room: RoomRecord) -> None:
        """Ask a draining room to let its tables go, and resume them elsewhere."""
        try:
            moved = await self.rooms.hand_off(room)
        except RoomUnreachable as error:
            # Dead: its watch resumes its tables. Slow: the next step asks again.
            log.warning("room %s did not hand off its tables (%s)", room.room_id, error)
            return
        finally:
            self._handing_off.discard(room.room_id)
        now = time.monotonic()
        for table_id in moved:
            self.placement.unplace(room.room_id, table_id, now)
        self.opener.resume_elsewhere(moved)
        log.info("room %s handed off %d tables; they resume in other rooms", room.room_id, len(moved))
        self.opener.place_awaiting()
        self.step()  # else the tables it no longer holds are reported closed, and a later step stops it
