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

This module is the SDK's entry point; the parts live beside it: errors.py,
lobby_client.py, table_replica.py (the view), table_connection.py and
table_stream.py (the stream), table_waits.py (what callers await). Only the
stdlib, grpcio, the generated tablehost.v1 modules and clients.codec are
used: a client learns everything it needs from the host's messages.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from typing import Any

from tablehost.clients.codec import View
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
from tablehost.clients.table_replica import (
    ACK_EVERY,
    DEALING_STAGE,
    MAX_ACT_ID_LENGTH,
    CommitOutcome,
    GameResult,
    SessionCounts,
    TableReplica,
    ViewUpdate,
    reject_reason_name,
)
from tablehost.clients.table_stream import ADMINISTRATORS_ENDINGS, TableStream
from tablehost.clients.table_waits import TableWaits

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


class TableSession(SessionCounts):
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
    changes; a mismatch is acked at once, whatever it is.

    Its parts: a TableReplica (the view), a TableStream (keeping the stream
    going) and TableWaits (what its callers await)."""

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
        super().__init__()
        self.assignment = assignment
        self.entropy = os.urandom(32) if entropy is None else entropy
        self.received: list[bytes] = []
        self._record = record
        self._replica = TableReplica(assignment.table_id, assignment.seat, ack_every, self)
        self._stream = TableStream(
            assignment, self.entropy, self._replica, lobby, self, auto_reconnect=auto_reconnect,
            received=self.received if record else None, connect_timeout=connect_timeout,
            max_connect_attempts=max_connect_attempts, read_delay_s=read_delay_s,
            tls_root_cert=tls_root_cert if tls_root_cert is not None or lobby is None else lobby.tls_root_cert,
        )
        self._waits = TableWaits(self._replica, self._stream)

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
        session = cls(assignment, lobby, auto_reconnect=auto_reconnect, record=record, connect_timeout=connect_timeout,
                      max_connect_attempts=max_connect_attempts, tls_root_cert=tls_root_cert,
                      read_delay_s=read_delay_s, entropy=entropy, ack_every=ack_every)
        try:
            await session._stream.connection.open_with_retry(lookup_first=False)
            await session._waits.first_message(snapshot_timeout)
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
        return self._replica.view

    @property
    def seq(self) -> int:
        return self._replica.seq

    @property
    def seat(self) -> int:
        return self._replica.seat

    @property
    def table_id(self) -> str:
        return self._replica.table_id

    @property
    def endpoint(self) -> str:
        return self._stream.connection.endpoint

    @property
    def connected(self) -> bool:
        return self._stream.connection.call is not None

    @property
    def result(self) -> GameResult | None:
        return self._replica.result

    @property
    def game_over(self) -> bool:
        return self._replica.result is not None

    @property
    def failure(self) -> SessionDisconnected | None:
        """Why the session stopped (what its next call would raise), or None
        while it is usable."""
        return self._stream.failure

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
        return self._replica.subscribe()

    # -- waiting and acting --------------------------------------------------

    @property
    def request(self) -> dict[str, Any] | None:
        """What the game asks this seat now (its view's "request": the legal
        actions, the deadline, and for a large choice its description), or
        None; None too while the view is out of step with the host's (a
        desync, until its snapshot arrives): nothing to act on from it."""
        return self._replica.request

    @property
    def in_step(self) -> bool:
        """False from a delta that did not give the host's view (its hash
        differed, or it did not apply) until the host's snapshot arrives."""
        return self._replica.in_step

    @property
    def dealt(self) -> bool:
        """Whether the table has dealt: its view is the game's, no longer the
        table waiting for every seat's hello (docs/protocol.md, "The deal")."""
        return self._replica.dealt

    async def wait_dealt(self, timeout: float | None = None) -> View:
        """The first view of the dealt game (at once if it is dealt already):
        what to read a hand or a first player from after `connect`, which
        may return with the table still waiting for the other seats."""
        return await self._waits.dealt(timeout)

    async def wait_for_request(self, after_seq: int = -1, timeout: float | None = None) -> View | None:
        """The view once the game asks this seat to act (it carries a
        "request"), or None once the game is over. Several seats may be asked
        at once, and a seat may be asked out of turn. With `after_seq`, only a
        view newer than that seq counts: after a rejection, wait for the table
        to move on instead of retrying against the same view. After a desync
        it waits for the host's snapshot: a view the host disagrees with is
        never handed out to act on."""
        return await self._waits.request(after_seq, timeout)

    async def commit(self, action: dict[str, Any], act_id: str | None = None, timeout: float = 10.0) -> CommitOutcome:
        """Send one action and return its outcome; a rejection is an outcome,
        not an exception. The pending act_id is registered before the commit
        is written, so its delta cannot arrive unnoticed. Raises TimeoutError
        when no outcome arrives in time, SessionDisconnected when the stream
        is lost for good, ValueError for an act_id that is already in flight
        or of the wrong length (1 to 64 bytes of UTF-8)."""
        return await self._waits.commit(action, uuid.uuid4().hex if act_id is None else act_id, timeout)

    async def wait_game_over(self, timeout: float | None = None) -> GameResult:
        """The game's result once GameOver arrived."""
        return await self._waits.game_over(timeout)

    # -- connection control --------------------------------------------------

    async def drop(self) -> None:
        """Cut the stream abruptly, as a network failure would, without any
        automatic reconnect: tests of `reconnect()` start here."""
        await self._stream.drop()

    async def reconnect(self) -> None:
        """Reopen the stream with Hello{last_seq}: the room replays the
        missing deltas or sends a snapshot. An unreachable endpoint is retried
        with bounded backoff, asking the lobby (if given) where the table is
        served now. Raises TableUnreachable when every attempt failed."""
        await self._stream.reconnect()

    async def close(self) -> None:
        """End the stream politely (half-close, so the room logs a client
        that left) and release the channel. Waiters get SessionDisconnected."""
        await self._stream.close()
