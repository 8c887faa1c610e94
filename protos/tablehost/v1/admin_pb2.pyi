from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class StatusRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class HostStatus(_message.Message):
    __slots__ = ("nodes", "queues", "rooms", "tables", "free_slots", "tables_per_room", "tables_started", "waiting", "private_tables", "tables_awaiting_room", "front_doors", "waiting_here")
    NODES_FIELD_NUMBER: _ClassVar[int]
    QUEUES_FIELD_NUMBER: _ClassVar[int]
    ROOMS_FIELD_NUMBER: _ClassVar[int]
    TABLES_FIELD_NUMBER: _ClassVar[int]
    FREE_SLOTS_FIELD_NUMBER: _ClassVar[int]
    TABLES_PER_ROOM_FIELD_NUMBER: _ClassVar[int]
    TABLES_STARTED_FIELD_NUMBER: _ClassVar[int]
    WAITING_FIELD_NUMBER: _ClassVar[int]
    PRIVATE_TABLES_FIELD_NUMBER: _ClassVar[int]
    TABLES_AWAITING_ROOM_FIELD_NUMBER: _ClassVar[int]
    FRONT_DOORS_FIELD_NUMBER: _ClassVar[int]
    WAITING_HERE_FIELD_NUMBER: _ClassVar[int]
    nodes: _containers.RepeatedCompositeFieldContainer[NodeStatus]
    queues: _containers.RepeatedCompositeFieldContainer[QueueStatus]
    rooms: int
    tables: int
    free_slots: int
    tables_per_room: int
    tables_started: int
    waiting: int
    private_tables: int
    tables_awaiting_room: int
    front_doors: int
    waiting_here: int
    def __init__(self, nodes: _Optional[_Iterable[_Union[NodeStatus, _Mapping]]] = ..., queues: _Optional[_Iterable[_Union[QueueStatus, _Mapping]]] = ..., rooms: _Optional[int] = ..., tables: _Optional[int] = ..., free_slots: _Optional[int] = ..., tables_per_room: _Optional[int] = ..., tables_started: _Optional[int] = ..., waiting: _Optional[int] = ..., private_tables: _Optional[int] = ..., tables_awaiting_room: _Optional[int] = ..., front_doors: _Optional[int] = ..., waiting_here: _Optional[int] = ...) -> None: ...

class NodeStatus(_message.Message):
    __slots__ = ("node_id", "cpus", "alive", "rooms")
    NODE_ID_FIELD_NUMBER: _ClassVar[int]
    CPUS_FIELD_NUMBER: _ClassVar[int]
    ALIVE_FIELD_NUMBER: _ClassVar[int]
    ROOMS_FIELD_NUMBER: _ClassVar[int]
    node_id: str
    cpus: float
    alive: bool
    rooms: _containers.RepeatedCompositeFieldContainer[RoomStatus]
    def __init__(self, node_id: _Optional[str] = ..., cpus: _Optional[float] = ..., alive: _Optional[bool] = ..., rooms: _Optional[_Iterable[_Union[RoomStatus, _Mapping]]] = ...) -> None: ...

class RoomStatus(_message.Message):
    __slots__ = ("room_id", "endpoint", "state", "tables", "capacity", "pid", "metrics_endpoint")
    ROOM_ID_FIELD_NUMBER: _ClassVar[int]
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    TABLES_FIELD_NUMBER: _ClassVar[int]
    CAPACITY_FIELD_NUMBER: _ClassVar[int]
    PID_FIELD_NUMBER: _ClassVar[int]
    METRICS_ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    room_id: str
    endpoint: str
    state: str
    tables: int
    capacity: int
    pid: int
    metrics_endpoint: str
    def __init__(self, room_id: _Optional[str] = ..., endpoint: _Optional[str] = ..., state: _Optional[str] = ..., tables: _Optional[int] = ..., capacity: _Optional[int] = ..., pid: _Optional[int] = ..., metrics_endpoint: _Optional[str] = ...) -> None: ...

class QueueStatus(_message.Message):
    __slots__ = ("game", "variant", "waiting", "proposed", "seats", "partition")
    GAME_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    WAITING_FIELD_NUMBER: _ClassVar[int]
    PROPOSED_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    PARTITION_FIELD_NUMBER: _ClassVar[int]
    game: str
    variant: str
    waiting: int
    proposed: int
    seats: int
    partition: str
    def __init__(self, game: _Optional[str] = ..., variant: _Optional[str] = ..., waiting: _Optional[int] = ..., proposed: _Optional[int] = ..., seats: _Optional[int] = ..., partition: _Optional[str] = ...) -> None: ...
