from tablehost.v1 import table_pb2 as _table_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class JoinQueueRequest(_message.Message):
    __slots__ = ("game", "variant", "display_name", "ticket", "join_data", "seats")
    GAME_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    TICKET_FIELD_NUMBER: _ClassVar[int]
    JOIN_DATA_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    game: str
    variant: str
    display_name: str
    ticket: str
    join_data: bytes
    seats: int
    def __init__(self, game: _Optional[str] = ..., variant: _Optional[str] = ..., display_name: _Optional[str] = ..., ticket: _Optional[str] = ..., join_data: _Optional[bytes] = ..., seats: _Optional[int] = ...) -> None: ...

class TableAssignment(_message.Message):
    __slots__ = ("table_id", "endpoint", "seat", "seat_token", "game", "display_names", "ticket", "deal_commitment")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAMES_FIELD_NUMBER: _ClassVar[int]
    TICKET_FIELD_NUMBER: _ClassVar[int]
    DEAL_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    endpoint: str
    seat: int
    seat_token: str
    game: str
    display_names: _containers.RepeatedScalarFieldContainer[str]
    ticket: str
    deal_commitment: str
    def __init__(self, table_id: _Optional[str] = ..., endpoint: _Optional[str] = ..., seat: _Optional[int] = ..., seat_token: _Optional[str] = ..., game: _Optional[str] = ..., display_names: _Optional[_Iterable[str]] = ..., ticket: _Optional[str] = ..., deal_commitment: _Optional[str] = ...) -> None: ...

class LeaveQueueRequest(_message.Message):
    __slots__ = ("ticket",)
    TICKET_FIELD_NUMBER: _ClassVar[int]
    ticket: str
    def __init__(self, ticket: _Optional[str] = ...) -> None: ...

class LeaveQueueResponse(_message.Message):
    __slots__ = ("removed",)
    REMOVED_FIELD_NUMBER: _ClassVar[int]
    removed: bool
    def __init__(self, removed: _Optional[bool] = ...) -> None: ...

class CreatePrivateTableRequest(_message.Message):
    __slots__ = ("game", "variant", "turn_timeout_ms", "seats")
    GAME_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    TURN_TIMEOUT_MS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    game: str
    variant: str
    turn_timeout_ms: int
    seats: int
    def __init__(self, game: _Optional[str] = ..., variant: _Optional[str] = ..., turn_timeout_ms: _Optional[int] = ..., seats: _Optional[int] = ...) -> None: ...

class PrivateTable(_message.Message):
    __slots__ = ("code", "game", "seats")
    CODE_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    code: str
    game: str
    seats: int
    def __init__(self, code: _Optional[str] = ..., game: _Optional[str] = ..., seats: _Optional[int] = ...) -> None: ...

class JoinPrivateTableRequest(_message.Message):
    __slots__ = ("code", "display_name", "ticket", "join_data")
    CODE_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    TICKET_FIELD_NUMBER: _ClassVar[int]
    JOIN_DATA_FIELD_NUMBER: _ClassVar[int]
    code: str
    display_name: str
    ticket: str
    join_data: bytes
    def __init__(self, code: _Optional[str] = ..., display_name: _Optional[str] = ..., ticket: _Optional[str] = ..., join_data: _Optional[bytes] = ...) -> None: ...

class SpectateRequest(_message.Message):
    __slots__ = ("table_id",)
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    def __init__(self, table_id: _Optional[str] = ...) -> None: ...

class LookupTableRequest(_message.Message):
    __slots__ = ("table_id",)
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    def __init__(self, table_id: _Optional[str] = ...) -> None: ...
