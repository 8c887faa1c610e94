"""The exceptions the SDK raises: a lobby call that failed, and each way a
table session stops (a SessionDisconnected, saying why)."""

from __future__ import annotations

import grpc
import grpc.aio


class LobbyError(RuntimeError):
    """A lobby call failed; `code` is the gRPC status the front door returned."""

    def __init__(self, call: str, error: grpc.aio.AioRpcError) -> None:
        self.code: grpc.StatusCode = error.code()
        self.details: str = error.details() or ""
        super().__init__(f"{call} failed: {self.code.name}: {self.details}")


class QueueCancelled(LobbyError):
    """JoinQueue ended because the ticket left the queue (LeaveQueue)."""


class TableNotRunning(LookupError):
    """The lobby knows the table but no room serves it at the moment."""


class SessionDisconnected(ConnectionError):
    """The table stream ended and was not restored. `reconnect()` may still
    succeed (the host keeps the seat for a grace period)."""


class StreamReplaced(SessionDisconnected):
    """Another stream for the same seat said hello (status ABORTED), so the
    room ended this one. Not reconnected automatically: the newer session
    holds the seat; `reconnect()` takes it back on purpose."""


class SeatTokenRejected(SessionDisconnected):
    """The room refused the seat token (BAD_TOKEN): expired, forged, or for a
    table this room no longer serves."""


class TableClosed(SessionDisconnected):
    """The table was closed before its game ended (every player left, a
    tournament's no-shows, a failed game) and no room serves it any more:
    its room refused the seat (not served here) and the lobby knows no
    running table of that id."""


class ClosedByAdministrator(TableClosed):
    """An administrator closed the table (status FAILED_PRECONDITION) or took
    this seat from its player (PERMISSION_DENIED); the message says why.
    Not reconnected: the room refuses the seat from now on."""


class TableCancelled(TableClosed):
    """The table was closed before it dealt: a seat's player never came
    (docs/protocol.md, "The deal"). Nothing was played: join the queue again."""


class TableUnreachable(SessionDisconnected):
    """Reconnecting gave up: neither the table's endpoint nor the one the
    lobby named accepted a connection within the allowed attempts."""


class ProtocolViolation(SessionDisconnected):
    """The host sent something the protocol does not allow (undecodable view
    bytes, a view that is not a map); the session stops trusting the stream."""
