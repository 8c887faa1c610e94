from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RejectReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    REJECT_REASON_UNSPECIFIED: _ClassVar[RejectReason]
    REJECT_REASON_NOT_YOUR_TURN: _ClassVar[RejectReason]
    REJECT_REASON_NOT_YOUR_SEAT: _ClassVar[RejectReason]
    REJECT_REASON_ILLEGAL_MOVE: _ClassVar[RejectReason]
    REJECT_REASON_MALFORMED: _ClassVar[RejectReason]
    REJECT_REASON_UNKNOWN_ACTION: _ClassVar[RejectReason]
    REJECT_REASON_GAME_OVER: _ClassVar[RejectReason]
    REJECT_REASON_RATE_LIMITED: _ClassVar[RejectReason]
    REJECT_REASON_BAD_TOKEN: _ClassVar[RejectReason]
    REJECT_REASON_PROTOCOL: _ClassVar[RejectReason]
REJECT_REASON_UNSPECIFIED: RejectReason
REJECT_REASON_NOT_YOUR_TURN: RejectReason
REJECT_REASON_NOT_YOUR_SEAT: RejectReason
REJECT_REASON_ILLEGAL_MOVE: RejectReason
REJECT_REASON_MALFORMED: RejectReason
REJECT_REASON_UNKNOWN_ACTION: RejectReason
REJECT_REASON_GAME_OVER: RejectReason
REJECT_REASON_RATE_LIMITED: RejectReason
REJECT_REASON_BAD_TOKEN: RejectReason
REJECT_REASON_PROTOCOL: RejectReason

class TableLocation(_message.Message):
    __slots__ = ("table_id", "endpoint", "running")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    RUNNING_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    endpoint: str
    running: bool
    def __init__(self, table_id: _Optional[str] = ..., endpoint: _Optional[str] = ..., running: _Optional[bool] = ...) -> None: ...

class ClientMessage(_message.Message):
    __slots__ = ("hello", "commit", "ack")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    COMMIT_FIELD_NUMBER: _ClassVar[int]
    ACK_FIELD_NUMBER: _ClassVar[int]
    hello: Hello
    commit: Commit
    ack: Ack
    def __init__(self, hello: _Optional[_Union[Hello, _Mapping]] = ..., commit: _Optional[_Union[Commit, _Mapping]] = ..., ack: _Optional[_Union[Ack, _Mapping]] = ...) -> None: ...

class Hello(_message.Message):
    __slots__ = ("seat_token", "last_seq", "entropy")
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    LAST_SEQ_FIELD_NUMBER: _ClassVar[int]
    ENTROPY_FIELD_NUMBER: _ClassVar[int]
    seat_token: str
    last_seq: int
    entropy: bytes
    def __init__(self, seat_token: _Optional[str] = ..., last_seq: _Optional[int] = ..., entropy: _Optional[bytes] = ...) -> None: ...

class Commit(_message.Message):
    __slots__ = ("act_id", "action")
    ACT_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    act_id: str
    action: bytes
    def __init__(self, act_id: _Optional[str] = ..., action: _Optional[bytes] = ...) -> None: ...

class Ack(_message.Message):
    __slots__ = ("seq", "view_hash")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    VIEW_HASH_FIELD_NUMBER: _ClassVar[int]
    seq: int
    view_hash: str
    def __init__(self, seq: _Optional[int] = ..., view_hash: _Optional[str] = ...) -> None: ...

class ServerMessage(_message.Message):
    __slots__ = ("snapshot", "delta", "rejection", "game_over", "accepted")
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    DELTA_FIELD_NUMBER: _ClassVar[int]
    REJECTION_FIELD_NUMBER: _ClassVar[int]
    GAME_OVER_FIELD_NUMBER: _ClassVar[int]
    ACCEPTED_FIELD_NUMBER: _ClassVar[int]
    snapshot: Snapshot
    delta: Delta
    rejection: Rejection
    game_over: GameOver
    accepted: Accepted
    def __init__(self, snapshot: _Optional[_Union[Snapshot, _Mapping]] = ..., delta: _Optional[_Union[Delta, _Mapping]] = ..., rejection: _Optional[_Union[Rejection, _Mapping]] = ..., game_over: _Optional[_Union[GameOver, _Mapping]] = ..., accepted: _Optional[_Union[Accepted, _Mapping]] = ...) -> None: ...

class Accepted(_message.Message):
    __slots__ = ("act_id", "seq")
    ACT_ID_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    act_id: str
    seq: int
    def __init__(self, act_id: _Optional[str] = ..., seq: _Optional[int] = ...) -> None: ...

class Snapshot(_message.Message):
    __slots__ = ("seq", "view", "view_hash", "seat", "table_id")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    VIEW_HASH_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    seq: int
    view: bytes
    view_hash: str
    seat: int
    table_id: str
    def __init__(self, seq: _Optional[int] = ..., view: _Optional[bytes] = ..., view_hash: _Optional[str] = ..., seat: _Optional[int] = ..., table_id: _Optional[str] = ...) -> None: ...

class Delta(_message.Message):
    __slots__ = ("seq", "act_id", "delta", "view_hash", "automatic")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    ACT_ID_FIELD_NUMBER: _ClassVar[int]
    DELTA_FIELD_NUMBER: _ClassVar[int]
    VIEW_HASH_FIELD_NUMBER: _ClassVar[int]
    AUTOMATIC_FIELD_NUMBER: _ClassVar[int]
    seq: int
    act_id: str
    delta: bytes
    view_hash: str
    automatic: bool
    def __init__(self, seq: _Optional[int] = ..., act_id: _Optional[str] = ..., delta: _Optional[bytes] = ..., view_hash: _Optional[str] = ..., automatic: _Optional[bool] = ...) -> None: ...

class Rejection(_message.Message):
    __slots__ = ("act_id", "reason", "message")
    ACT_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    act_id: str
    reason: RejectReason
    message: str
    def __init__(self, act_id: _Optional[str] = ..., reason: _Optional[_Union[RejectReason, str]] = ..., message: _Optional[str] = ...) -> None: ...

class GameOver(_message.Message):
    __slots__ = ("seq", "result", "scores", "winner", "record")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    RECORD_FIELD_NUMBER: _ClassVar[int]
    seq: int
    result: bytes
    scores: _containers.RepeatedScalarFieldContainer[int]
    winner: int
    record: bytes
    def __init__(self, seq: _Optional[int] = ..., result: _Optional[bytes] = ..., scores: _Optional[_Iterable[int]] = ..., winner: _Optional[int] = ..., record: _Optional[bytes] = ...) -> None: ...
