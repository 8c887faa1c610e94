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
    __slots__ = ("nodes", "queues", "rooms", "tables", "free_slots", "tables_per_room", "tables_started", "waiting", "private_tables", "tables_awaiting_room", "front_doors", "waiting_here", "age_s")
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
    AGE_S_FIELD_NUMBER: _ClassVar[int]
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
    age_s: float
    def __init__(self, nodes: _Optional[_Iterable[_Union[NodeStatus, _Mapping]]] = ..., queues: _Optional[_Iterable[_Union[QueueStatus, _Mapping]]] = ..., rooms: _Optional[int] = ..., tables: _Optional[int] = ..., free_slots: _Optional[int] = ..., tables_per_room: _Optional[int] = ..., tables_started: _Optional[int] = ..., waiting: _Optional[int] = ..., private_tables: _Optional[int] = ..., tables_awaiting_room: _Optional[int] = ..., front_doors: _Optional[int] = ..., waiting_here: _Optional[int] = ..., age_s: _Optional[float] = ...) -> None: ...

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

class ListTablesRequest(_message.Message):
    __slots__ = ("game", "limit")
    GAME_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    game: str
    limit: int
    def __init__(self, game: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class TableList(_message.Message):
    __slots__ = ("tables", "total")
    TABLES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    tables: _containers.RepeatedCompositeFieldContainer[TableSummary]
    total: int
    def __init__(self, tables: _Optional[_Iterable[_Union[TableSummary, _Mapping]]] = ..., total: _Optional[int] = ...) -> None: ...

class TableSummary(_message.Message):
    __slots__ = ("table_id", "game", "variant", "room_id", "players", "started_ms", "resuming", "tournament_id")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    ROOM_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    STARTED_MS_FIELD_NUMBER: _ClassVar[int]
    RESUMING_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    game: str
    variant: str
    room_id: str
    players: _containers.RepeatedScalarFieldContainer[str]
    started_ms: int
    resuming: bool
    tournament_id: str
    def __init__(self, table_id: _Optional[str] = ..., game: _Optional[str] = ..., variant: _Optional[str] = ..., room_id: _Optional[str] = ..., players: _Optional[_Iterable[str]] = ..., started_ms: _Optional[int] = ..., resuming: _Optional[bool] = ..., tournament_id: _Optional[str] = ...) -> None: ...

class CloseTableRequest(_message.Message):
    __slots__ = ("table_id", "reason")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    reason: str
    def __init__(self, table_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class RemoveSeatRequest(_message.Message):
    __slots__ = ("table_id", "seat", "reason")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    seat: int
    reason: str
    def __init__(self, table_id: _Optional[str] = ..., seat: _Optional[int] = ..., reason: _Optional[str] = ...) -> None: ...

class AdjudicateTableRequest(_message.Message):
    __slots__ = ("table_id", "places", "reason")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    PLACES_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    places: _containers.RepeatedScalarFieldContainer[int]
    reason: str
    def __init__(self, table_id: _Optional[str] = ..., places: _Optional[_Iterable[int]] = ..., reason: _Optional[str] = ...) -> None: ...

class TournamentActionRequest(_message.Message):
    __slots__ = ("tournament_id", "reason")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    reason: str
    def __init__(self, tournament_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class RemovePlayerRequest(_message.Message):
    __slots__ = ("tournament_id", "player", "reason")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    player: str
    reason: str
    def __init__(self, tournament_id: _Optional[str] = ..., player: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class DrainRequest(_message.Message):
    __slots__ = ("room_ids", "node_id", "reason")
    ROOM_IDS_FIELD_NUMBER: _ClassVar[int]
    NODE_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    room_ids: _containers.RepeatedScalarFieldContainer[str]
    node_id: str
    reason: str
    def __init__(self, room_ids: _Optional[_Iterable[str]] = ..., node_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class DrainStarted(_message.Message):
    __slots__ = ("room_ids", "tables", "tables_move")
    ROOM_IDS_FIELD_NUMBER: _ClassVar[int]
    TABLES_FIELD_NUMBER: _ClassVar[int]
    TABLES_MOVE_FIELD_NUMBER: _ClassVar[int]
    room_ids: _containers.RepeatedScalarFieldContainer[str]
    tables: int
    tables_move: bool
    def __init__(self, room_ids: _Optional[_Iterable[str]] = ..., tables: _Optional[int] = ..., tables_move: _Optional[bool] = ...) -> None: ...

class AdminDone(_message.Message):
    __slots__ = ("summary",)
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    summary: str
    def __init__(self, summary: _Optional[str] = ...) -> None: ...
