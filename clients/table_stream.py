"""Keeping one seat's table stream going: reading it into the replica, and
deciding, each time it ends, what comes next: the game's normal end, a
resync from the last seq held, a reconnect with backoff, or giving up with
the SessionDisconnected that says why."""

from __future__ import annotations

import asyncio
import logging

import grpc
import grpc.aio

from tablehost.clients.errors import (
    ClosedByAdministrator,
    LobbyError,
    ProtocolViolation,
    SeatTokenRejected,
    SessionDisconnected,
    StreamReplaced,
    TableCancelled,
    TableClosed,
    TableNotRunning,
)
from tablehost.clients.lobby_client import Assignment, LobbyClient
from tablehost.clients.table_connection import TableConnection, backoff_s
from tablehost.clients.table_replica import CommitOutcome, SeqGap, SessionCounts, TableReplica, ViewUpdate
from tablehost.v1 import table_pb2

log = logging.getLogger("tablehost.client")

# How a table stream ends when an administrator closed the table or took the seat.
ADMINISTRATORS_ENDINGS = (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.PERMISSION_DENIED)

_HALF_CLOSE_TIMEOUT_S = 1.0


class TableStream:
    """The stream of one session: `connection` holds its current call, and
    the reader feeds every message to the replica (and its bytes to
    `received`, when given). `failure` is why the stream stopped for good
    (None while it is usable)."""

    def __init__(self, assignment: Assignment, entropy: bytes, replica: TableReplica, lobby: LobbyClient | None,
                 counts: SessionCounts, *, auto_reconnect: bool, received: list[bytes] | None, connect_timeout: float,
                 max_connect_attempts: int, tls_root_cert: bytes | None, read_delay_s: float) -> None:
        self.connection = TableConnection(assignment, entropy, replica, lobby, self._read_stream,
                                          tls_root_cert=tls_root_cert, connect_timeout=connect_timeout,
                                          max_connect_attempts=max_connect_attempts)
        self.failure: SessionDisconnected | None = None
        self._replica = replica
        self._counts = counts
        self._lobby = lobby
        self._auto_reconnect = auto_reconnect
        self._max_connect_attempts = max_connect_attempts
        self._received = received
        self._read_delay_s = read_delay_s
        self._recovery: asyncio.Task[None] | None = None
        self._closed = False
        # Automatic reconnects since a message last proved a stream healthy.
        # After the first, each waits a growing backoff and they stop at the
        # connect attempts: a room that accepts and drops at once cannot loop
        # us, while one that is only crowded (its server cancelling calls it
        # has no room to hold) is tried again until it takes the stream.
        self._empty_reconnects = 0

    # -- control -------------------------------------------------------------

    async def drop(self) -> None:
        await self.connection.teardown()
        self._replica.notify()

    async def reconnect(self) -> None:
        if self._closed:
            raise SessionDisconnected(f"the session for table {self._replica.table_id} is closed")
        recovery = self._recovery
        if recovery is not None and recovery is not asyncio.current_task():
            await asyncio.wait([recovery])
            if self.connection.call is not None:
                return
        await self.connection.teardown()
        self.failure = None
        self._empty_reconnects = 0  # asked for: the automatic reconnects start afresh
        try:
            await self.connection.open_with_retry(lookup_first=False)
        except SessionDisconnected as error:
            self._fail(error)
            raise
        self._counts.reconnects += 1

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._recovery is not None and self._recovery is not asyncio.current_task():
            self._recovery.cancel()
            await asyncio.wait([self._recovery])
        call = self.connection.call
        if call is not None and not call.done():
            try:
                await asyncio.wait_for(self.connection.half_close(call), _HALF_CLOSE_TIMEOUT_S)
            except (grpc.aio.AioRpcError, asyncio.InvalidStateError, TimeoutError):
                pass  # the stream is going away either way
        await self.connection.teardown()
        self._replica.notify()

    def raise_if_unusable(self) -> None:
        if self.failure is not None:
            raise self.failure
        if self._closed:
            raise SessionDisconnected(f"the session for table {self._replica.table_id} is closed")
        if self.connection.call is None and not self.connection.opening and self._recovery is None:
            raise SessionDisconnected(f"not connected to table {self._replica.table_id}; call reconnect()")

    # -- reading -------------------------------------------------------------

    async def _read_stream(self, call: grpc.aio.StreamStreamCall) -> None:
        refused: str | None = None
        resync = replaced = moved = administered = False
        try:
            while True:
                if self._read_delay_s:
                    await asyncio.sleep(self._read_delay_s)
                raw = await call.read()
                if raw is grpc.aio.EOF:
                    why = "the host ended the stream"
                    break
                if self._received is not None:
                    self._received.append(raw)
                message = table_pb2.ServerMessage.FromString(raw)
                refused = _refusal(message) or refused
                await self._dispatch(message)
        except grpc.aio.AioRpcError as error:
            why = f"{error.code().name}: {error.details()}"
            replaced = error.code() == grpc.StatusCode.ABORTED
            # The room does not serve the table (any more): it moved, or is moving.
            moved = error.code() == grpc.StatusCode.NOT_FOUND
            administered = error.code() in ADMINISTRATORS_ENDINGS
        except asyncio.CancelledError:
            # grpc.aio reports a call cancelled on this side (its channel
            # closed under it) as CancelledError; only ours is a real cancel.
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise
            why = "the call was cancelled on the client side"
        except SeqGap as gap:
            why, resync = str(gap), True
        except (ValueError, TypeError) as error:
            # Bytes that do not decode, a view that is not a map: nothing
            # after this on the stream can be trusted either.
            self._fail(ProtocolViolation(f"table {self._replica.table_id} sent an invalid message: {error}"))
            await self.connection.teardown()
            return
        await self._stream_ended(call, why, resync=resync, refused=refused, replaced=replaced, moved=moved,
                                 administered=administered)

    async def _dispatch(self, message: table_pb2.ServerMessage) -> None:
        """Hand one message to the replica and write the ack it asks for. A
        snapshot, a new delta or the game's end proves the stream healthy."""
        replica = self._replica
        kind = message.WhichOneof("kind")
        if kind == "delta":
            if not replica.has_applied(message.delta.seq):
                ack = replica.on_delta(message.delta)
                self._empty_reconnects = 0
                if ack is not None:
                    await self.connection.send(table_pb2.ClientMessage(ack=ack))
        elif kind == "snapshot":
            replica.on_snapshot(message.snapshot)
            self._empty_reconnects = 0
        elif kind == "rejection":
            replica.on_rejection(message.rejection)
        elif kind == "accepted":
            accepted = message.accepted
            replica.resolve(accepted.act_id, CommitOutcome(accepted.act_id, True, accepted.seq, duplicate=True))
        elif kind == "game_over":
            replica.on_game_over(message.game_over)
            self._empty_reconnects = 0
        else:
            log.warning("table=%s: ignoring a server message of unknown kind %r", replica.table_id, kind)
            return
        replica.notify()

    # -- endings -------------------------------------------------------------

    async def _stream_ended(
        self, call: grpc.aio.StreamStreamCall, why: str, *, resync: bool, refused: str | None, replaced: bool = False,
        moved: bool = False, administered: bool = False,
    ) -> None:
        """What to do once a stream ended: finished, replaced, resynced, or
        reconnected with backoff. A refused seat token is asked about once
        (the lobby may know a new endpoint); a refusal because the room does
        not serve the table (`moved`) is asked about on every try while the
        lobby says the table is between rooms (served nowhere for a moment),
        and ends the session with TableClosed once it knows no such table."""
        if call is not self.connection.call or self._closed:
            return  # a stream already replaced, dropped or closed on purpose
        await self.connection.teardown()
        replica = self._replica
        if replica.result is not None:
            replica.notify()  # the game is over: the room closing streams is the normal end
            return
        if administered:
            self._fail(ClosedByAdministrator(f"table {replica.table_id}, seat {replica.seat}: {why}"))
        elif refused is not None and moved and await self._table_gone():
            closed = TableClosed if replica.dealt else TableCancelled
            self._fail(closed(f"table {replica.table_id} was closed and no room serves it any more ({why})"))
        elif replaced:
            self._fail(StreamReplaced(
                f"another stream for seat {replica.seat} of table {replica.table_id} took over ({why})"))
        elif resync:
            log.info("table=%s seat=%d resync from seq %d: %s", replica.table_id, replica.seat, replica.seq, why)
            self._recovery = asyncio.create_task(self._recover(lookup_first=False))
        elif refused is not None and (self._lobby is None or not self._auto_reconnect
                                      or (self._empty_reconnects > 0 and not moved)):
            self._fail(SeatTokenRejected(f"table {replica.table_id} refused the seat token: {refused}"))
        elif self._auto_reconnect and self._empty_reconnects < self._max_connect_attempts:
            delay_s = backoff_s(self._empty_reconnects)
            self._empty_reconnects += 1
            log.info("table=%s seat=%d stream ended (%s); reconnecting in %.2f s", replica.table_id, replica.seat, why,
                     delay_s)
            # A refused hello may mean this endpoint now serves another table:
            # ask the lobby where ours went before trying again.
            self._recovery = asyncio.create_task(self._recover(lookup_first=refused is not None, delay_s=delay_s))
        else:
            self._fail(SessionDisconnected(
                f"stream to table {replica.table_id} at {self.connection.endpoint} ended ({why}); call reconnect()"))
        replica.notify()

    async def _table_gone(self) -> bool:
        """Whether the lobby says no room will serve the table again (it
        finished or was closed), rather than that it is between rooms."""
        if self._lobby is None:
            return False  # nobody to ask: a refused token, as any other
        try:
            await self._lobby.lookup_table(self._replica.table_id)
        except TableNotRunning:
            return False  # it resumes in another room
        except LobbyError as error:
            return error.code == grpc.StatusCode.NOT_FOUND
        return False

    async def _recover(self, lookup_first: bool, delay_s: float = 0.0) -> None:
        try:
            if delay_s > 0:
                await asyncio.sleep(delay_s)  # backoff before trying a room that dropped a new stream
            await self.connection.open_with_retry(lookup_first)
            self._counts.reconnects += 1
        except SessionDisconnected as error:
            self._fail(error)
        finally:
            self._recovery = None
            self._replica.notify()

    def _fail(self, error: SessionDisconnected) -> None:
        self.failure = error
        replica = self._replica
        log.warning("table=%s seat=%d: %s", replica.table_id, replica.seat, error)
        replica.publish(ViewUpdate("disconnected", replica.seq, replica.view))
        replica.notify()


def _refusal(message: table_pb2.ServerMessage) -> str | None:
    """The message of a rejection of the seat token (not of a commit), if this is one."""
    if message.WhichOneof("kind") != "rejection":
        return None
    rejection = message.rejection
    if rejection.act_id or rejection.reason != table_pb2.REJECT_REASON_BAD_TOKEN:
        return None
    return rejection.message
