"""Typed rule errors, and the one list of reasons a command can be refused.

`Reason` is that list for the whole host: the rules raise some of them, the
table (tokens, seats, floods, message order) the others. The wire protocol's
tablehost.v1.RejectReason has the same names, each written
REJECT_REASON_<NAME>; the table service maps one to the other by name at the
edge (a test checks the two lists are the same), so a client acts on a
rejection without parsing its message."""

from __future__ import annotations

import enum


class Reason(enum.Enum):
    NOT_YOUR_TURN = "not_your_turn"  # the seat has no request open
    NOT_YOUR_SEAT = "not_your_seat"  # a spectator, or an action on behalf of another seat
    ILLEGAL_MOVE = "illegal_move"
    MALFORMED = "malformed"  # bytes or a payload of the wrong shape
    UNKNOWN_ACTION = "unknown_action"
    GAME_OVER = "game_over"
    RATE_LIMITED = "rate_limited"  # more messages than a stream may send
    BAD_TOKEN = "bad_token"
    PROTOCOL = "protocol"  # a message out of order or out of bounds


class RuleError(Exception):
    """An action the rules refuse. The state it was tried on is unchanged."""

    def __init__(self, reason: Reason, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
