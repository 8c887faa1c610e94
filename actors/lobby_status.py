"""The lobby's `status` as typed records (it crosses a Ray call to the
front doors): every node with the rooms on it, the public queues, and the
counts an operator and the metrics read."""

from __future__ import annotations

from dataclasses import dataclass

from tablehost.actors.door_exchange import QueueStatus
from tablehost.actors.placement import Placement, RoomRecord


@dataclass(frozen=True, slots=True)
class RoomStatus:
    """One room as the lobby books it: where it serves, its state, and its
    tables out of its capacity."""

    room_id: str
    endpoint: str
    state: str
    tables: int
    capacity: int
    pid: int
    metrics_endpoint: str

    @classmethod
    def of(cls, room: RoomRecord) -> RoomStatus:
        return cls(room.room_id, room.endpoint, room.state.value, len(room.tables), room.capacity, room.pid,
                   room.metrics_endpoint)


@dataclass(frozen=True, slots=True)
class NodeStatus:
    """A Ray node the lobby knows of (gone, if no longer alive, while rooms
    are still booked on it) with its CPUs and rooms."""

    node_id: str
    cpus: float
    alive: bool
    rooms: tuple[RoomStatus, ...]


def nodes_status(placement: Placement) -> tuple[NodeStatus, ...]:
    """Every live node and every node still holding a room, by id, each
    with its rooms by id."""
    rooms_by_node: dict[str, list[RoomStatus]] = {node: [] for node in placement.nodes}
    for room in sorted(placement.rooms.values(), key=lambda r: r.room_id):
        rooms_by_node.setdefault(room.node_id, []).append(RoomStatus.of(room))
    return tuple(NodeStatus(node, placement.nodes.get(node, 0.0), node in placement.nodes, tuple(rooms))
                 for node, rooms in sorted(rooms_by_node.items()))


@dataclass(frozen=True, slots=True)
class LobbyStatus:
    """The lobby's state for the operator (`tablehost status`, the admin
    service, the front door's gauges): its seed and incarnation, where its
    rooms are, its queues, and its counts of rooms, tables and players."""

    seed: int
    incarnation: str
    pid: int
    run_id: str
    nodes: tuple[NodeStatus, ...]
    queues: tuple[QueueStatus, ...]
    waiting: int
    private_tables: int
    rooms: int
    tables: int
    free_slots: int
    tables_per_room: int
    tables_started: int
    tables_awaiting_room: int
    records_kept: int
    front_doors: int
    nodes_alive: int
    nodes_dead: int
    tournament_rounds_overdue: int
