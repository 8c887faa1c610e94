"""Where tables go: the lobby's book of rooms and their free slots, as plain
data (no Ray), so the placement rules are tested in process.

- Every live node gets about `rooms_per_cpu` rooms per CPU, so each core has
  a room process to run before tables are packed further into the rooms
  that exist. A node with no CPUs gets none.
- A new table goes into the ready room holding the fewest tables (ties: the
  node holding the fewest, then the oldest room), so tables spread evenly
  over rooms and nodes.
- A room starts when the rooms' free slots fall below the reserve, or when
  a node has fewer rooms than its CPUs call for; never one per table.
- An empty room beyond both is released after it has been idle a while.
- A dead room is dropped at once: no table is placed in it again.
- A draining room (an operator is taking it out of service) takes no new
  table and no longer counts towards its node's rooms or the reserve, so a
  replacement starts while its tables move out or finish."""

from __future__ import annotations

import enum
import math
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any


class RoomState(enum.Enum):
    STARTING = "starting"
    READY = "ready"
    DRAINING = "draining"
    RELEASING = "releasing"


@dataclass(eq=False)
class RoomRecord:
    room_id: str
    node_id: str
    capacity: int
    handle: Any = None
    endpoint: str = ""
    # Where its process serves Prometheus metrics ("" when it does not).
    metrics_endpoint: str = ""
    pid: int = 0
    state: RoomState = RoomState.STARTING
    tables: set[str] = field(default_factory=set)
    idle_since: float = 0.0

    @property
    def free(self) -> int:
        return self.capacity - len(self.tables)


# The custom Ray resource a room node declares (one unit per room it may
# hold) and every room asks for when rooms follow demand: a room Ray cannot
# place is the demand Ray's autoscaler adds a room node for.
ROOM_RESOURCE = "tablehost_room"
# Where a room is planned when Ray, not the lobby, chooses its node.
ANY_NODE = ""


class Placement:
    def __init__(self, tables_per_room: int, rooms_per_cpu: float, free_slots: int,
                 follow_demand: bool = False) -> None:
        """`follow_demand`: rooms start only for the tables waiting and the
        free-slot reserve, on whatever room node Ray finds or its autoscaler
        adds (planned at ANY_NODE), and every idle room beyond the reserve is
        released, the last one too, so an idle node can be removed. Without
        it, each node keeps about a room per CPU."""
        if tables_per_room < 1:
            raise ValueError(f"a room holds at least one table, not {tables_per_room}")
        self.tables_per_room = tables_per_room
        self.rooms_per_cpu = rooms_per_cpu
        self.free_slots = free_slots
        self.follow_demand = follow_demand
        self.nodes: dict[str, float] = {}  # live node id -> CPUs
        self.rooms: dict[str, RoomRecord] = {}

    # -- the cluster -------------------------------------------------------------

    def set_nodes(self, cpus_by_node: dict[str, float]) -> None:
        self.nodes = dict(cpus_by_node)

    def rooms_for_node(self, node_id: str) -> int:
        """How many rooms a node should keep: about one per CPU (none when
        rooms follow demand)."""
        if self.follow_demand:
            return 0
        return math.ceil(self.nodes.get(node_id, 0) * self.rooms_per_cpu)

    def _live_rooms(self) -> list[RoomRecord]:
        """The rooms that are or will be in service (starting or ready)."""
        return [room for room in self.rooms.values() if room.state in (RoomState.STARTING, RoomState.READY)]

    def _rooms_per_node(self) -> Counter[str]:
        return Counter(room.node_id for room in self._live_rooms())

    # -- rooms -------------------------------------------------------------------

    def add_starting(self, room_id: str, node_id: str) -> RoomRecord:
        room = self.rooms[room_id] = RoomRecord(room_id, node_id, self.tables_per_room)
        return room

    def mark_ready(self, room_id: str, handle: Any, endpoint: str, node_id: str, pid: int, now: float,
                   metrics_endpoint: str = "") -> RoomRecord:
        room = self.rooms[room_id]
        room.handle, room.endpoint, room.node_id, room.pid = handle, endpoint, node_id, pid
        room.metrics_endpoint = metrics_endpoint
        room.state, room.idle_since = RoomState.READY, now
        return room

    def adopt(self, room_id: str, node_id: str, capacity: int, tables: set[str]) -> RoomRecord:
        """A room that was running before this lobby started (the lobby
        restarted), with the tables it holds; mark_ready it next."""
        room = self.rooms[room_id] = RoomRecord(room_id, node_id, capacity, tables=set(tables))
        return room

    def draining(self) -> list[RoomRecord]:
        return [room for room in self.rooms.values() if room.state is RoomState.DRAINING]

    def remove(self, room_id: str) -> RoomRecord | None:
        """A room that died, failed to start or was released."""
        return self.rooms.pop(room_id, None)

    def rooms_to_start(self, excluded: Collection[str] = frozenset(), tables_waiting: int = 0) -> list[str]:
        """Nodes to start rooms on now (one entry per room), counting rooms
        already starting: first nodes short of their per-CPU rooms, then as
        many as the free-slot reserve needs, each on the least-roomed node.
        `excluded` nodes get none (a room failed to start there lately).
        When rooms follow demand: as many rooms at ANY_NODE as the tables
        waiting for a room and the reserve need."""
        if self.follow_demand:
            free = sum(room.free for room in self._live_rooms())
            wanted = max(0, tables_waiting + self.free_slots - free)
            return [ANY_NODE] * math.ceil(wanted / self.tables_per_room)
        nodes = {node: cpus for node, cpus in self.nodes.items() if node not in excluded}
        if not nodes:
            return []
        per_node = self._rooms_per_node()
        plan: list[str] = []
        for node_id in sorted(nodes):
            missing = self.rooms_for_node(node_id) - per_node[node_id]
            plan.extend([node_id] * max(0, missing))
            per_node[node_id] += max(0, missing)
        free = sum(room.free for room in self._live_rooms()) + len(plan) * self.tables_per_room
        if not self._live_rooms() and not plan:
            plan.append(self._least_roomed_node(per_node, nodes))  # at least one room, CPUs or not
            per_node[plan[-1]] += 1
            free += self.tables_per_room
        while free < self.free_slots:
            node_id = self._least_roomed_node(per_node, nodes)
            plan.append(node_id)
            per_node[node_id] += 1
            free += self.tables_per_room
        return plan

    @staticmethod
    def _least_roomed_node(per_node: Counter[str], nodes: dict[str, float]) -> str:
        """Of `nodes` (id -> CPUs), the one with the fewest rooms per CPU
        (nodes with CPUs first)."""
        with_cpus = [node for node, cpus in nodes.items() if cpus > 0] or list(nodes)
        return min(sorted(with_cpus), key=lambda node: per_node[node] / max(nodes[node], 1.0))

    def rooms_to_release(self, now: float, idle_s: float) -> list[RoomRecord]:
        """Ready rooms that are empty, idle for `idle_s`, and beyond both the
        per-CPU rooms of their node and the free-slot reserve; never the last room."""
        per_node = self._rooms_per_node()
        live = self._live_rooms()
        free = sum(room.free for room in live)
        released: list[RoomRecord] = []
        for room in sorted(live, key=lambda r: r.idle_since):
            if room.state is not RoomState.READY or room.tables or now - room.idle_since < idle_s:
                continue
            if len(live) - len(released) <= 1 and not self.follow_demand:
                continue  # rooms_to_start keeps one room, CPUs or not: the last would only start again
            if per_node[room.node_id] <= self.rooms_for_node(room.node_id):
                continue
            if free - room.capacity < self.free_slots:
                continue
            released.append(room)
            per_node[room.node_id] -= 1
            free -= room.capacity
        return released

    # -- tables --------------------------------------------------------------------

    def place(self, table_id: str) -> RoomRecord | None:
        """Take a slot for a table in the least-loaded ready room; None when
        every ready room is full (the caller waits for a room to start)."""
        candidates = [room for room in self.rooms.values() if room.state is RoomState.READY and room.free > 0]
        if not candidates:
            return None
        tables_per_node: Counter[str] = Counter()
        for room in self.rooms.values():
            tables_per_node[room.node_id] += len(room.tables)
        room = min(candidates, key=lambda r: (len(r.tables), tables_per_node[r.node_id], room_number(r.room_id)))
        room.tables.add(table_id)
        return room

    def unplace(self, room_id: str, table_id: str, now: float) -> None:
        """The table closed (or never opened): its slot is free again."""
        room = self.rooms.get(room_id)
        if room is None or table_id not in room.tables:
            return
        room.tables.discard(table_id)
        if not room.tables:
            room.idle_since = now

    @property
    def free(self) -> int:
        return sum(room.free for room in self.rooms.values() if room.state is RoomState.READY)

    @property
    def starting(self) -> int:
        return sum(1 for room in self.rooms.values() if room.state is RoomState.STARTING)


def room_number(room_id: str) -> int:
    """The N of "room-N" (0 for any other name): rooms are numbered in start order."""
    digits = room_id.rpartition("-")[2]
    return int(digits) if digits.isdigit() else 0
