"""What a room sends down a table stream, as domain records. The gRPC
servicer turns them into protobuf at the edge (table_service.py)."""

from __future__ import annotations

import enum
from dataclasses import dataclass



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
    reason: str  # a games.engine.errors.Reason value, or one of the host-level reasons below
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


class StreamEnd(enum.Enum):
    """How a table's stream ends when the room closes it."""

    FINISHED = "finished"  # the game is over and every message was sent: status OK
    UNAVAILABLE = "unavailable"  # closed unfinished (deserted) or the room is stopping
    FAILED = "failed"  # the game's rules failed: status INTERNAL


@dataclass(frozen=True, slots=True)
class CloseOut:
    """End the stream, after whatever was queued before it."""

    details: str
    ending: StreamEnd = StreamEnd.UNAVAILABLE


# Reasons only the host can give (the rules never see seats or tokens).
NOT_YOUR_SEAT = "not_your_seat"
RATE_LIMITED = "rate_limited"
BAD_TOKEN = "bad_token"
PROTOCOL = "protocol"

Outbound = SnapshotOut | DeltaOut | RejectionOut | AcceptedOut | GameOverOut | CloseOut
