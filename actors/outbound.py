"""What a room sends down a table stream, as domain records. The gRPC
servicer turns them into protobuf at the edge (table_service.py)."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from tablehost.games.engine.errors import Reason



@dataclass(frozen=True, slots=True)
class SnapshotOut:
    seq: int
    view: bytes
    view_hash: str
    seat: int
    table_id: str


@dataclass(frozen=True, slots=True)
class DeltaOut:
    seq: int
    act_id: str
    delta: bytes
    view_hash: str
    automatic: bool


@dataclass(frozen=True, slots=True)
class RejectionOut:
    act_id: str
    reason: Reason
    message: str


@dataclass(frozen=True, slots=True)
class AcceptedOut:
    act_id: str
    seq: int


@dataclass(frozen=True, slots=True)
class GameOverOut:
    seq: int
    result: bytes
    scores: tuple[int, ...]
    winner: int
    record: bytes  # what verifying the game needs (games/engine/verification.py)


class StreamEnd(enum.Enum):
    """How a table's stream ends when the room closes it."""

    FINISHED = "finished"  # the game is over and every message was sent: status OK
    UNAVAILABLE = "unavailable"  # closed unfinished (deserted) or the room is stopping
    FAILED = "failed"  # the game's rules failed: status INTERNAL
    REPLACED = "replaced"  # a newer stream for the same seat took over: status ABORTED
    FLOODED = "flooded"  # it sent far more than its seat's budget: status RESOURCE_EXHAUSTED
    CANCELLED = "cancelled"  # a seat never came before the deal: status NOT_FOUND (the table is gone)
    CLOSED = "closed"  # an administrator closed the table: status FAILED_PRECONDITION
    REMOVED = "removed"  # an administrator took the seat from its player: status PERMISSION_DENIED


@dataclass(frozen=True, slots=True)
class CloseOut:
    """End the stream, after whatever was queued before it."""

    details: str
    ending: StreamEnd = StreamEnd.UNAVAILABLE


Outbound = SnapshotOut | DeltaOut | RejectionOut | AcceptedOut | GameOverOut | CloseOut

# A record's fixed fields (seq, hash, flags) and its envelope, roughly.
_RECORD_OVERHEAD_BYTES = 96


def record_size(record: Outbound) -> int:
    """About what a record costs while it waits in a stream's queue: its
    variable bytes (a view, a delta, a message) plus a fixed overhead, which
    is what bounds the queue by bytes (actors/outbox.py)."""
    if isinstance(record, DeltaOut):
        return _RECORD_OVERHEAD_BYTES + len(record.delta) + len(record.act_id)
    if isinstance(record, SnapshotOut):
        return _RECORD_OVERHEAD_BYTES + len(record.view) + len(record.table_id)
    if isinstance(record, RejectionOut):
        return _RECORD_OVERHEAD_BYTES + len(record.message) + len(record.act_id)
    if isinstance(record, GameOverOut):
        return _RECORD_OVERHEAD_BYTES + len(record.result) + 8 * len(record.scores) + len(record.record)
    return _RECORD_OVERHEAD_BYTES
