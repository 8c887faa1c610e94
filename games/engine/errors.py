"""Typed rule errors. Each carries a reason code that the wire protocol maps
one to one (tablehost.v1.RejectReason), so clients can act on a rejection
without parsing its message."""

from __future__ import annotations

import enum


class Reason(enum.Enum):
    NOT_YOUR_TURN = "not_your_turn"
    ILLEGAL_MOVE = "illegal_move"
    MALFORMED = "malformed"
    UNKNOWN_ACTION = "unknown_action"
    GAME_OVER = "game_over"


class RuleError(Exception):
    """An action the rules refuse. The state it was tried on is unchanged."""

    def __init__(self, reason: Reason, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
