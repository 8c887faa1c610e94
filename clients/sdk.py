"""The asyncio client SDK: `LobbyClient` for the front door's lobby service and
`TableSession` for one seat's stream at its table (docs/protocol.md).

A session keeps the seat's view by applying every delta in order, checks
each view hash against the host's, acks a mismatch at once (and every
`ack_every`-th change otherwise), and turns the protocol's asynchronous answers into
awaitable results: `commit()` resolves with the delta that applied the action
or the rejection of it, `wait_for_request()` with the next view in which the
game asks this seat to act (the view's "request": its legal actions and
deadline). It recovers by itself from the ordinary failures of a
long-lived stream: a gap in the seqs (resync from the last seq held), a
dropped connection or a stream the room ended because it fell behind
(reconnect with the last seq), a room that moved (ask the lobby where the
table is served now). Commits in flight when the stream broke are sent
again with the same act_id, which the host never applies twice. A stream
the room replaced by a newer one for the same seat (another session of
this seat said hello) is not reconnected: two sessions of one seat would
only take the seat from each other in turn (StreamReplaced).

A session sends 32 random bytes of its own in every hello: the host mixes a
seat's first into the deal, after telling it the commitment to the table's
seed (`Assignment.deal_commitment`). With `record=True` it keeps the stream's
messages, so `received_game()` can hand a finished game to verification
(clients/game_record.py, `tablehost verify`).

With `tls_root_cert` (PEM bytes of the certificates to trust), the lobby
client and the table sessions it hands out connect over TLS.

Only the stdlib, grpcio, the generated tablehost.v1 modules and clients.codec
are used: a client learns everything it needs from the host's messages.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

import grpc
import grpc.aio

from tablehost.clients.codec import View, apply_delta, decode, encode_action, view_hash
from tablehost.clients.errors import (
    ClosedByAdministrator,
    LobbyError,
    ProtocolViolation,
    QueueCancelled,
    SeatTokenRejected,
    SessionDisconnected,
    StreamReplaced,
    TableCancelled,
    TableClosed,
    TableNotRunning,
    TableUnreachable,
)
from tablehost.clients.game_record import ReceivedGame
from tablehost.clients.lobby_client import SPECTATOR_SEAT, Assignment, LobbyClient, open_channel
from tablehost.v1 import table_pb2

__all__ = [
    "ACK_EVERY",
    "ADMINISTRATORS_ENDINGS",
    "DEALING_STAGE",
    "MAX_ACT_ID_LENGTH",
    "SPECTATOR_SEAT",
    "Assignment",
    "ClosedByAdministrator",
    "CommitOutcome",
    "GameResult",
    "LobbyClient",
    "LobbyError",
    "ProtocolViolation",
    "QueueCancelled",
    "SeatTokenRejected",
    "SessionDisconnected",
    "StreamReplaced",
    "TableCancelled",
    "TableClosed",
    "TableNotRunning",
    "TableSession",
    "TableUnreachable",
    "ViewUpdate",
    "open_channel",
    "reject_reason_name",
]

log = logging.getLogger("tablehost.client")

T = TypeVar("T")

MAX_ACT_ID_LENGTH = 64
# The stage a table's view shows until it deals.
DEALING_STAGE = "dealing"

# The Play method's path, from the service descriptor. The SDK builds the
# call itself instead of using the generated stub so that it receives each
# ServerMessage's bytes exactly as they came off the wire (`record=True`).
_PLAY_METHOD = "/{}/Play".format(table_pb2.DESCRIPTOR.services_by_name["Table"].full_name)

# Acked when a delta could not be applied at all. Any hash other than the
# host's means "desync, send me a snapshot"; this one is well formed, so a
# strict host still reads it as a desync rather than a protocol error.
_UNCOMPUTED_HASH = "0" * 64
# A view in step with the host's is acked once every this many changes: the
# session checks every delta's hash itself and acks a mismatch at once, so
# the host hears of a desync at the delta that caused it; the acks between
# would cost the room a message each and tell it nothing (docs/protocol.md,
# section 2). 1 acks every change.
ACK_EVERY = 16

_FIRST_BACKOFF_S = 0.1
_MAX_BACKOFF_S = 2.0
_HALF_CLOSE_TIMEOUT_S = 1.0

# Each table channel gets a connection of its own. By default gRPC shares one
# connection among all the channels a process opens to the same target, and
# keeps it while any of those channel objects lives, closed or not: a
# session reopened after its connection went silent (a blackholed route, a
# NAT that forgot it) would be handed that same dead connection again.
# It also pings while a stream is open and quiet, so a connection that went
# silent ends (UNAVAILABLE, and the session reconnects) within about 20 s
# instead of never: every 15 s, no more often than rooms allow (10 s,
# docs/protocol.md "Keepalive"), and never with no call open.
_OWN_CONNECTION = (
    ("grpc.use_local_subchannel_pool", 1),
    ("grpc.keepalive_time_ms", 15_000),
    ("grpc.keepalive_timeout_ms", 5_000),
    ("grpc.keepalive_permit_without_calls", 0),
    ("grpc.http2.max_pings_without_data", 0),
)

_NOT_YET: Any = object()

# How a table stream ends when an administrator closed the table or took the seat.
ADMINISTRATORS_ENDINGS = (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.PERMISSION_DENIED)


class _Unreachable(Exception):
    """One connection attempt failed; the retry loop decides what next."""


# -- records -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CommitOutcome:
    """What became of one commit.

    `accepted` with the `seq` that applied it (`duplicate` when the host
    answered an act_id it had already applied), or not accepted with the
    `reason` (a tablehost.v1.RejectReason value such as
    table_pb2.REJECT_REASON_ILLEGAL_MOVE) and the host's `message`.
    `round_trip_s` is the time from writing the commit to receiving its outcome."""

    act_id: str
    accepted: bool
    seq: int = 0
    reason: int = table_pb2.REJECT_REASON_UNSPECIFIED
    message: str = ""
    duplicate: bool = False
    round_trip_s: float = 0.0

    @property
    def reason_name(self) -> str:
        """The reason's name, e.g. "REJECT_REASON_ILLEGAL_MOVE", for people."""
        return reject_reason_name(self.reason)


@dataclass(frozen=True, slots=True)
class GameResult:
    """tablehost.v1.GameOver: the winner's seat, the scores by seat, and the
    game's own result map (Big Two: winner, cards_left, scores)."""

    winner: int
    scores: list[int]
    result: dict[str, Any]
    seq: int


@dataclass(frozen=True, slots=True)
class ViewUpdate:
    """One change a subscriber sees (`TableSession.subscribe`): the view after
    a snapshot or a delta (`previous` is the view before it), the game's end,
    or the session giving up on the stream."""

    kind: Literal["snapshot", "delta", "game_over", "disconnected"]
    seq: int
    view: View
    previous: View | None = None
    act_id: str = ""
    automatic: bool = False


@dataclass(slots=True)
class _Pending:
    future: asyncio.Future[CommitOutcome]
    action: bytes


def reject_reason_name(reason: int) -> str:
    """The RejectReason name of a wire value, tolerating values added to the
    enum after this SDK was generated."""
    try:
        return table_pb2.RejectReason.Name(reason)
    except ValueError:
        return f"REJECT_REASON_{reason}"


# -- one seat's table stream -------------------------------------------------


def _backoff_s(retries: int) -> float:
    """The wait before trying a table again after `retries` tries that failed
    (connections, or streams dropped before their first message): none before
    the first retry of a stream, then doubling from _FIRST_BACKOFF_S up to
    _MAX_BACKOFF_S."""
    return 0.0 if retries == 0 else min(_FIRST_BACKOFF_S * 2 ** (retries - 1), _MAX_BACKOFF_S)


class TableSession:
    """One player's (or spectator's) `Table.Play` stream and the view it keeps.

    Create it with `await TableSession.connect(assignment, lobby)`. The view
    is replaced by snapshots and advanced by deltas on a background task;
    callers read `view`, `seq` and `result` and await `wait_for_request()`,
    `commit()` and `wait_game_over()`. Counters: `desyncs` (hash mismatches,
    each answered by a host snapshot), `rejects` (this session's commits the
    host refused), `gaps` (deltas that skipped a seq, each answered by a
    resync), `reconnects`, `stream_rejections` (rejections not tied to a
    commit, such as acks dropped for flooding) and `hashes_checked` (views
    whose hash was compared with the host's, snapshots and deltas). Over TLS
    it trusts `tls_root_cert`, by default its lobby client's.

    A stream that ends is reopened by itself (`auto_reconnect`) with the last
    seq held. A new stream that ends again before its first message (a crowded
    room's server cancels calls it has no room to hold) is tried again after a
    growing backoff, up to `max_connect_attempts` times; then waiters get
    SessionDisconnected, and `reconnect()` starts the attempts afresh.

    `read_delay_s` makes a slow reader, for load tests: the session pauses
    that long before reading each message of its stream, as a client on a
    busy device or a poor link falls behind what the room sends.

    `entropy` (default: 32 bytes from the operating system) goes in every
    hello; the table mixes a seat's first into its deal.

    `ack_every` (default ACK_EVERY): a view in step is acked every this many
    changes; a mismatch is acked at once, whatever it is."""

    def __init__(
        self,
        assignment: Assignment,
        lobby: LobbyClient | None = None,
        *,
        auto_reconnect: bool = True,
        record: bool = False,
        connect_timeout: float = 5.0,
        max_connect_attempts: int = 6,
        tls_root_cert: bytes | None = None,
        read_delay_s: float = 0.0,
        entropy: bytes | None = None,
        ack_every: int = ACK_EVERY,
    ) -> None:
        if ack_every < 1:
            raise ValueError(f"ack_every is at least 1 (every change), got {ack_every}")
        self.assignment = assignment
        self.entropy = os.urandom(32) if entropy is None else entropy
        self.table_id = assignment.table_id
        self.endpoint = assignment.endpoint
        self.result: GameResult | None = None
        self.desyncs = 0
        self.rejects = 0
        self.gaps = 0
        self.reconnects = 0
        self.stream_rejections = 0
        self.hashes_checked = 0
        self.received: list[bytes] = []
        self._read_delay_s = read_delay_s
        self._ack_every = ack_every
        # The seq of the last ack sent or snapshot taken: the next in-step ack
        # is due `ack_every` changes after it.
        self._acked_seq = 0
        self._lobby = lobby
        self._tls_root_cert = tls_root_cert if tls_root_cert is not None or lobby is None else lobby.tls_root_cert
        self._auto_reconnect = auto_reconnect
        self._record = record
        self._connect_timeout = connect_timeout
        self._max_connect_attempts = max_connect_attempts
        self._seat = assignment.seat
        self._view: View = {}
        self._seq = 0
        self._have_view = False
        # False from a delta whose hash differs from the host's (or that did
        # not apply) until the snapshot that answers it: the view is not the
        # host's meanwhile, and no request is handed out from it.
        self._in_step = True
        self._channel: grpc.aio.Channel | None = None
        self._call: grpc.aio.StreamStreamCall | None = None
        self._reader: asyncio.Task[None] | None = None
        self._recovery: asyncio.Task[None] | None = None
        self._opening = False
        self._closed = False
        self._failure: SessionDisconnected | None = None
        # Automatic reconnects since a message last proved a stream healthy.
        # After the first, each waits a growing backoff and they stop at the
        # connect attempts: a room that accepts and drops at once cannot loop
        # us, while one that is only crowded (its server cancelling calls it
        # has no room to hold) is tried again until it takes the stream.
        self._empty_reconnects = 0
        self._pending: dict[str, _Pending] = {}
        self._write_lock = asyncio.Lock()
        self._changed = asyncio.Event()
        self._subscribers: list[asyncio.Queue[ViewUpdate]] = []

    @classmethod
    async def connect(
        cls,
        assignment: Assignment,
        lobby: LobbyClient | None = None,
        *,
        auto_reconnect: bool = True,
        record: bool = False,
        connect_timeout: float = 5.0,
        max_connect_attempts: int = 6,
        tls_root_cert: bytes | None = None,
        read_delay_s: float = 0.0,
        snapshot_timeout: float = 30.0,
        entropy: bytes | None = None,
        ack_every: int = ACK_EVERY,
    ) -> TableSession:
        """Open the stream, say Hello with seq 0 and return once the first
        snapshot arrived. With a lobby, an unreachable endpoint is looked up
        again (the room may have moved since the assignment).

        `connect_timeout` bounds each attempt to connect (a room that is gone
        is noticed fast); `snapshot_timeout` bounds the wait for the first
        snapshot once connected, which a room busy opening hundreds of tables
        at once can take seconds to send."""
        session = cls(
            assignment,
            lobby,
            auto_reconnect=auto_reconnect,
            record=record,
            connect_timeout=connect_timeout,
            max_connect_attempts=max_connect_attempts,
            tls_root_cert=tls_root_cert,
            read_delay_s=read_delay_s,
            entropy=entropy,
            ack_every=ack_every,
        )
        try:
            await session._open_with_retry(lookup_first=False)
            await session._wait_until(
                lambda: True if session._have_view or session.result is not None else _NOT_YET,
                snapshot_timeout,
                what=f"the first snapshot of table {assignment.table_id}",
            )
        except BaseException:
            await session.close()
            raise
        return session

    async def __aenter__(self) -> TableSession:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.close()

    # -- state ---------------------------------------------------------------

    @property
    def view(self) -> View:
        """The current view. Never mutated in place (each change builds a new
        map), so a caller may keep a reference as a consistent snapshot."""
        return self._view

    @property
    def seq(self) -> int:
        return self._seq

    @property
    def seat(self) -> int:
        return self._seat

    @property
    def connected(self) -> bool:
        return self._call is not None

    @property
    def game_over(self) -> bool:
        return self.result is not None

    def received_game(self) -> ReceivedGame:
        """What this session received, for verifying the game once it is over
        (`ReceivedGame.check_deal`, `tablehost verify`); needs `record=True`."""
        if not self._record:
            raise ValueError("this session was not opened with record=True, so it kept no messages")
        return ReceivedGame(self.assignment.table_id, self.assignment.seat, self.assignment.game,
                            self.assignment.deal_commitment, b"" if self.assignment.is_spectator else self.entropy,
                            list(self.received))

    def subscribe(self) -> asyncio.Queue[ViewUpdate]:
        """A queue that receives every change from now on, for callers that
        must see each move (a terminal narrating the game), not just the
        latest view."""
        queue: asyncio.Queue[ViewUpdate] = asyncio.Queue()
        self._subscribers.append(queue)
        return queue

    # -- waiting and acting --------------------------------------------------

    @property
    def request(self) -> dict[str, Any] | None:
        """What the game asks this seat now (its view's "request": the legal
        actions, the deadline, and for a large choice its description), or
        None; None too while the view is out of step with the host's (a
        desync, until its snapshot arrives): nothing to act on from it."""
        request = self._view.get("request") if self._in_step else None
        return request if isinstance(request, dict) else None

    @property
    def in_step(self) -> bool:
        """False from a delta that did not give the host's view (its hash
        differed, or it did not apply) until the host's snapshot arrives."""
        return self._in_step

    @property
    def dealt(self) -> bool:
        """Whether the table has dealt: its view is the game's, no longer the
        table waiting for every seat's hello (docs/protocol.md, "The deal")."""
        return self._have_view and self._view.get("stage") != DEALING_STAGE

    async def wait_dealt(self, timeout: float | None = None) -> View:
        """The first view of the dealt game (at once if it is dealt already):
        what to read a hand or a first player from after `connect`, which
        may return with the table still waiting for the other seats."""
        return await self._wait_until(lambda: self._view if self.dealt or self.result is not None else _NOT_YET,
                                      timeout, what=f"the deal of table {self.table_id}")

    async def wait_for_request(self, after_seq: int = -1, timeout: float | None = None) -> View | None:
        """The view once the game asks this seat to act (it carries a
        "request"), or None once the game is over. Several seats may be asked
        at once, and a seat may be asked out of turn. With `after_seq`, only a
        view newer than that seq counts: after a rejection, wait for the table
        to move on instead of retrying against the same view. After a desync
        it waits for the host's snapshot: a view the host disagrees with is
        never handed out to act on."""

        def ready() -> View | None:
            if self.result is not None:
                return None
            if self._seq > after_seq and self.request is not None:
                return self._view
            return _NOT_YET

        return await self._wait_until(ready, timeout, what=f"a request for seat {self._seat}")

    async def commit(self, action: dict[str, Any], act_id: str | None = None, timeout: float = 10.0) -> CommitOutcome:
        """Send one action and return its outcome; a rejection is an outcome,
        not an exception. The pending act_id is registered before the commit
        is written, so its delta cannot arrive unnoticed. Raises TimeoutError
        when no outcome arrives in time, SessionDisconnected when the stream
        is lost for good, ValueError for an act_id that is already in flight
        or of the wrong length (1 to 64 bytes of UTF-8)."""
        act_id = uuid.uuid4().hex if act_id is None else act_id
        if not 1 <= len(act_id.encode()) <= MAX_ACT_ID_LENGTH:
            raise ValueError(f"an act_id has 1 to {MAX_ACT_ID_LENGTH} bytes of UTF-8, got {len(act_id.encode())}")
        if act_id in self._pending:
            raise ValueError(f"commit {act_id!r} is already waiting for its outcome")
        pending = _Pending(asyncio.get_running_loop().create_future(), encode_action(action))
        self._pending[act_id] = pending
        started = time.perf_counter()
        try:
            # A failed write is not an error here: a reconnect sends every
            # pending commit again, and otherwise the wait below reports why.
            await self._send(table_pb2.ClientMessage(commit=table_pb2.Commit(act_id=act_id, action=pending.action)))
            outcome = await self._wait_until(
                lambda: pending.future.result() if pending.future.done() else _NOT_YET,
                timeout,
                what=f"the outcome of commit {act_id}",
            )
        finally:
            del self._pending[act_id]
        return dataclasses.replace(outcome, round_trip_s=time.perf_counter() - started)

    async def wait_game_over(self, timeout: float | None = None) -> GameResult:
        """The game's result once GameOver arrived."""
        return await self._wait_until(
            lambda: self.result if self.result is not None else _NOT_YET,
            timeout,
            what=f"the end of the game at table {self.table_id}",
        )

    # -- connection control --------------------------------------------------

    async def drop(self) -> None:
        """Cut the stream abruptly, as a network failure would, without any
        automatic reconnect: tests of `reconnect()` start here."""
        await self._teardown()
        self._notify()

    async def reconnect(self) -> None:
        """Reopen the stream with Hello{last_seq}: the room replays the
        missing deltas or sends a snapshot. An unreachable endpoint is retried
        with bounded backoff, asking the lobby (if given) where the table is
        served now. Raises TableUnreachable when every attempt failed."""
        if self._closed:
            raise SessionDisconnected(f"the session for table {self.table_id} is closed")
        recovery = self._recovery
        if recovery is not None and recovery is not asyncio.current_task():
            await asyncio.wait([recovery])
            if self._call is not None:
                return
        await self._teardown()
        self._failure = None
        self._empty_reconnects = 0  # asked for: the automatic reconnects start afresh
        try:
            await self._open_with_retry(lookup_first=False)
        except SessionDisconnected as error:
            self._fail(error)
            raise
        self.reconnects += 1

    async def close(self) -> None:
        """End the stream politely (half-close, so the room logs a client
        that left) and release the channel. Waiters get SessionDisconnected."""
        if self._closed:
            return
        self._closed = True
        if self._recovery is not None and self._recovery is not asyncio.current_task():
            self._recovery.cancel()
            await asyncio.wait([self._recovery])
        call = self._call
        if call is not None and not call.done():
            try:
                await asyncio.wait_for(self._half_close(call), _HALF_CLOSE_TIMEOUT_S)
            except (grpc.aio.AioRpcError, asyncio.InvalidStateError, TimeoutError):
                pass  # the stream is going away either way
        await self._teardown()
        self._notify()

    async def _half_close(self, call: grpc.aio.StreamStreamCall) -> None:
        async with self._write_lock:
            await call.done_writing()

    # -- internals: connecting -----------------------------------------------

    async def _open_with_retry(self, lookup_first: bool) -> None:
        self._opening = True
        try:
            endpoint = self.endpoint
            if lookup_first:
                endpoint = await self._lookup() or endpoint
            failure = ""
            for attempt in range(1, self._max_connect_attempts + 1):
                try:
                    await self._open(endpoint)
                    return
                except _Unreachable as error:
                    failure = str(error)
                    log.info("table=%s seat=%d attempt %d: %s", self.table_id, self._seat, attempt, failure)
                if attempt == self._max_connect_attempts:
                    break
                await asyncio.sleep(_backoff_s(attempt))
                endpoint = await self._lookup() or endpoint
            raise TableUnreachable(
                f"table {self.table_id} unreachable after {self._max_connect_attempts} attempts; last: {failure}"
            )
        finally:
            self._opening = False
            self._notify()

    async def _lookup(self) -> str | None:
        if self._lobby is None:
            return None
        try:
            endpoint = await self._lobby.lookup_table(self.table_id)
        except (LobbyError, TableNotRunning) as error:
            log.info("table=%s: lookup failed: %s", self.table_id, error)
            return None
        if endpoint != self.endpoint:
            log.info("table=%s moved from %s to %s", self.table_id, self.endpoint, endpoint)
        return endpoint

    async def _open(self, endpoint: str) -> None:
        """Connect, open Play, say Hello with the last seq held, send again
        every commit still waiting for its outcome, then start reading.

        The reader starts last so that a stream failing at once cannot start
        a recovery while this attempt is still running."""
        channel = open_channel(endpoint, self._tls_root_cert, _OWN_CONNECTION)
        problem = await _connection_problem(channel, self._connect_timeout)
        if problem is not None:
            await channel.close()
            raise _Unreachable(f"no connection to {endpoint}: {problem}")
        # No response deserializer: the reader gets each message's wire bytes.
        play = channel.stream_stream(_PLAY_METHOD, request_serializer=table_pb2.ClientMessage.SerializeToString)
        call = play()
        hello = table_pb2.Hello(seat_token=self.assignment.seat_token, last_seq=self._seq, entropy=self.entropy)
        try:
            async with self._write_lock:
                await call.write(table_pb2.ClientMessage(hello=hello))
                for act_id, pending in list(self._pending.items()):
                    if not pending.future.done():
                        commit = table_pb2.Commit(act_id=act_id, action=pending.action)
                        await call.write(table_pb2.ClientMessage(commit=commit))
        except (grpc.aio.AioRpcError, asyncio.InvalidStateError) as error:
            call.cancel()
            await channel.close()
            raise _Unreachable(f"{endpoint} ended the stream at the hello: {error}") from None
        except BaseException:
            call.cancel()
            await channel.close()
            raise
        self._channel, self._call, self.endpoint = channel, call, endpoint
        self._reader = asyncio.create_task(self._read_stream(call), name=f"table {self.table_id} seat {self._seat}")
        log.debug("table=%s seat=%d opened at %s last_seq=%d", self.table_id, self._seat, endpoint, self._seq)

    async def _send(self, message: table_pb2.ClientMessage) -> bool:
        """Write on the current stream; False when there is none to write on.
        Writes are serialized: grpc.aio allows one write at a time."""
        async with self._write_lock:
            call = self._call
            if call is None or call.done():
                return False
            try:
                await call.write(message)
            except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
                return False
            except asyncio.CancelledError:
                # grpc.aio raises CancelledError for a call cancelled by
                # drop() or close(); only our own cancellation propagates.
                task = asyncio.current_task()
                if task is not None and task.cancelling():
                    raise
                return False
            return True

    async def _teardown(self) -> None:
        """Forget the current stream first, so its reader's end is ignored."""
        call, channel, reader = self._call, self._channel, self._reader
        self._call = self._channel = self._reader = None
        if call is not None:
            call.cancel()
        if reader is not None and reader is not asyncio.current_task():
            reader.cancel()
            await asyncio.wait([reader])
        if channel is not None:
            await channel.close()

    # -- internals: reading --------------------------------------------------

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
                if self._record:
                    self.received.append(raw)
                message = table_pb2.ServerMessage.FromString(raw)
                refused = self._refusal(message) or refused
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
        except _Resync as gap:
            why, resync = str(gap), True
        except (ValueError, TypeError) as error:
            # Bytes that do not decode, a view that is not a map: nothing
            # after this on the stream can be trusted either.
            self._fail(ProtocolViolation(f"table {self.table_id} sent an invalid message: {error}"))
            await self._teardown()
            return
        await self._stream_ended(call, why, resync=resync, refused=refused, replaced=replaced, moved=moved,
                                 administered=administered)

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
        if call is not self._call or self._closed:
            return  # a stream already replaced, dropped or closed on purpose
        await self._teardown()
        if self.result is not None:
            self._notify()  # the game is over: the room closing streams is the normal end
            return
        if administered:
            self._fail(ClosedByAdministrator(f"table {self.table_id}, seat {self._seat}: {why}"))
        elif refused is not None and moved and await self._table_gone():
            closed = TableClosed if self.dealt else TableCancelled
            self._fail(closed(f"table {self.table_id} was closed and no room serves it any more ({why})"))
        elif replaced:
            self._fail(StreamReplaced(f"another stream for seat {self._seat} of table {self.table_id} took over ({why})"))
        elif resync:
            log.info("table=%s seat=%d resync from seq %d: %s", self.table_id, self._seat, self._seq, why)
            self._recovery = asyncio.create_task(self._recover(lookup_first=False))
        elif refused is not None and (self._lobby is None or not self._auto_reconnect
                                      or (self._empty_reconnects > 0 and not moved)):
            self._fail(SeatTokenRejected(f"table {self.table_id} refused the seat token: {refused}"))
        elif self._auto_reconnect and self._empty_reconnects < self._max_connect_attempts:
            delay_s = _backoff_s(self._empty_reconnects)
            self._empty_reconnects += 1
            log.info("table=%s seat=%d stream ended (%s); reconnecting in %.2f s", self.table_id, self._seat, why,
                     delay_s)
            # A refused hello may mean this endpoint now serves another table:
            # ask the lobby where ours went before trying again.
            self._recovery = asyncio.create_task(self._recover(lookup_first=refused is not None, delay_s=delay_s))
        else:
            self._fail(
                SessionDisconnected(f"stream to table {self.table_id} at {self.endpoint} ended ({why}); call reconnect()")
            )
        self._notify()

    async def _table_gone(self) -> bool:
        """Whether the lobby says no room will serve the table again (it
        finished or was closed), rather than that it is between rooms."""
        if self._lobby is None:
            return False  # nobody to ask: a refused token, as any other
        try:
            await self._lobby.lookup_table(self.table_id)
        except TableNotRunning:
            return False  # it resumes in another room
        except LobbyError as error:
            return error.code == grpc.StatusCode.NOT_FOUND
        return False

    async def _recover(self, lookup_first: bool, delay_s: float = 0.0) -> None:
        try:
            if delay_s > 0:
                await asyncio.sleep(delay_s)  # backoff before trying a room that dropped a new stream
            await self._open_with_retry(lookup_first)
            self.reconnects += 1
        except SessionDisconnected as error:
            self._fail(error)
        finally:
            self._recovery = None
            self._notify()

    def _refusal(self, message: table_pb2.ServerMessage) -> str | None:
        if message.WhichOneof("kind") != "rejection":
            return None
        rejection = message.rejection
        if rejection.act_id or rejection.reason != table_pb2.REJECT_REASON_BAD_TOKEN:
            return None
        return rejection.message

    async def _dispatch(self, message: table_pb2.ServerMessage) -> None:
        kind = message.WhichOneof("kind")
        if kind == "delta":
            await self._on_delta(message.delta)
        elif kind == "snapshot":
            self._on_snapshot(message.snapshot)
        elif kind == "rejection":
            self._on_rejection(message.rejection)
        elif kind == "accepted":
            accepted = message.accepted
            self._resolve(accepted.act_id, CommitOutcome(accepted.act_id, True, accepted.seq, duplicate=True))
        elif kind == "game_over":
            self._on_game_over(message.game_over)
        else:
            log.warning("table=%s: ignoring a server message of unknown kind %r", self.table_id, kind)
            return
        self._notify()

    def _on_snapshot(self, snapshot: table_pb2.Snapshot) -> None:
        view = decode(snapshot.view)
        if not isinstance(view, dict):
            raise TypeError(f"a snapshot's view is a map, got {type(view).__name__}")
        previous = self._view if self._have_view else None
        self._view, self._seq, self._have_view = view, snapshot.seq, True
        self._acked_seq = snapshot.seq  # a snapshot needs no ack
        self._in_step = True  # the host's view, whole (a mismatch below is this codec's fault)
        self._seat = snapshot.seat
        self.table_id = snapshot.table_id or self.table_id
        self._empty_reconnects = 0
        self.hashes_checked += 1
        if view_hash(view) != snapshot.view_hash:
            self.desyncs += 1
            log.warning("table=%s seat=%d seq=%d: snapshot hash mismatch", self.table_id, self._seat, self._seq)
        self._publish(ViewUpdate("snapshot", snapshot.seq, view, previous))

    async def _on_delta(self, delta: table_pb2.Delta) -> None:
        if delta.seq <= self._seq and self._have_view:
            return  # replayed after a reconnect and already applied
        if not self._have_view or delta.seq != self._seq + 1:
            self.gaps += 1
            raise _Resync(f"expected seq {self._seq + 1}, got {delta.seq}")
        previous = self._view
        try:
            view = apply_delta(previous, decode(delta.delta))
            computed = view_hash(view)
            applied = True
        except (ValueError, TypeError) as error:
            # Keep the old view; the mismatching ack below brings a snapshot.
            log.warning("table=%s seat=%d seq=%d: delta does not apply: %s", self.table_id, self._seat, delta.seq, error)
            view, computed, applied = previous, _UNCOMPUTED_HASH, False
        self._view, self._seq = view, delta.seq
        self._empty_reconnects = 0
        self.hashes_checked += 1
        self._in_step = applied and computed == delta.view_hash
        if not self._in_step:
            self.desyncs += 1
            log.warning("table=%s seat=%d seq=%d act_id=%s: view hash mismatch (desync)",
                        self.table_id, self._seat, delta.seq, delta.act_id)
        if delta.act_id:
            self._resolve(delta.act_id, CommitOutcome(delta.act_id, True, delta.seq))
        # Published before the ack's write yields, so no one sees the new
        # view without its update already queued.
        self._publish(ViewUpdate("delta", delta.seq, view, previous, delta.act_id, delta.automatic))
        # Wake waiters before the ack's write: the seat whose turn this delta
        # gives should not wait behind it.
        self._notify()
        if not self._in_step or delta.seq - self._acked_seq >= self._ack_every:
            self._acked_seq = delta.seq
            await self._send(table_pb2.ClientMessage(ack=table_pb2.Ack(seq=delta.seq, view_hash=computed)))

    def _on_rejection(self, rejection: table_pb2.Rejection) -> None:
        pending = self._pending.get(rejection.act_id) if rejection.act_id else None
        if pending is not None and not pending.future.done():
            self.rejects += 1
            pending.future.set_result(
                CommitOutcome(rejection.act_id, False, reason=rejection.reason, message=rejection.message)
            )
        elif not rejection.act_id:
            self.stream_rejections += 1
            log.info("table=%s seat=%d: host refused a message: %s (%s)", self.table_id, self._seat,
                     rejection.message, reject_reason_name(rejection.reason))

    def _on_game_over(self, game_over: table_pb2.GameOver) -> None:
        result = decode(game_over.result) if game_over.result else {}
        if not isinstance(result, dict):
            raise TypeError(f"a game's result is a map, got {type(result).__name__}")
        self.result = GameResult(game_over.winner, list(game_over.scores), result, game_over.seq)
        self._empty_reconnects = 0
        self._publish(ViewUpdate("game_over", game_over.seq, self._view))

    def _resolve(self, act_id: str, outcome: CommitOutcome) -> None:
        pending = self._pending.get(act_id)
        if pending is not None and not pending.future.done():
            pending.future.set_result(outcome)

    # -- internals: waking waiters -------------------------------------------

    def _publish(self, update: ViewUpdate) -> None:
        for queue in self._subscribers:
            queue.put_nowait(update)

    def _notify(self) -> None:
        """Wake every waiter; each re-checks its condition."""
        self._changed.set()
        self._changed = asyncio.Event()

    @property
    def failure(self) -> SessionDisconnected | None:
        """Why the session stopped (what its next call would raise), or None
        while it is usable."""
        return self._failure

    def _fail(self, error: SessionDisconnected) -> None:
        self._failure = error
        log.warning("table=%s seat=%d: %s", self.table_id, self._seat, error)
        self._publish(ViewUpdate("disconnected", self._seq, self._view))
        self._notify()

    def _raise_if_unusable(self) -> None:
        if self._failure is not None:
            raise self._failure
        if self._closed:
            raise SessionDisconnected(f"the session for table {self.table_id} is closed")
        if self._call is None and not self._opening and self._recovery is None:
            raise SessionDisconnected(f"not connected to table {self.table_id}; call reconnect()")

    async def _wait_until(self, ready: Callable[[], T], timeout: float | None, *, what: str) -> T:
        """Return `ready()` once it is not _NOT_YET; raise if the session
        can no longer get there, or TimeoutError naming `what` in time."""
        try:
            async with asyncio.timeout(timeout):
                while True:
                    changed = self._changed
                    value = ready()
                    if value is not _NOT_YET:
                        return value
                    self._raise_if_unusable()
                    await changed.wait()
        except TimeoutError:
            raise TimeoutError(f"waited {timeout:g}s for {what} (table {self.table_id}, seq {self._seq})") from None


async def _connection_problem(channel: grpc.aio.Channel, timeout: float) -> str | None:
    """None once the channel is connected, else why not. A refused connection
    shows as TRANSIENT_FAILURE at once; `channel_ready()` would keep retrying
    on gRPC's own backoff until the timeout, delaying the lobby lookup that
    finds a moved room."""
    try:
        async with asyncio.timeout(timeout):
            state = channel.get_state(try_to_connect=True)
            while state != grpc.ChannelConnectivity.READY:
                if state in (grpc.ChannelConnectivity.TRANSIENT_FAILURE, grpc.ChannelConnectivity.SHUTDOWN):
                    return "connection failed"
                await channel.wait_for_state_change(state)
                state = channel.get_state(try_to_connect=True)
    except TimeoutError:
        return f"not connected within {timeout:g}s"
    return None


class _Resync(Exception):
    """A delta skipped a seq: reopen the stream from the last seq held."""
