"""One seat's replica of its table: the view kept from the host's snapshots
and deltas, each view hash checked against the host's, the acks that tell
the host so, the commits waiting for their outcome, and the changes handed
to subscribers and waiters. No I/O: the stream (clients/table_stream.py)
feeds it each message and writes the acks it asks for."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from tablehost.clients.codec import View, apply_delta, decode, encode_action, view_hash
from tablehost.v1 import table_pb2

log = logging.getLogger("tablehost.client")

T = TypeVar("T")

MAX_ACT_ID_LENGTH = 64
# The stage a table's view shows until it deals.
DEALING_STAGE = "dealing"

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

# What a waiter's condition returns while it does not hold yet.
NOT_YET: Any = object()


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
class PendingCommit:
    """A commit written (or to write again) whose outcome has not arrived."""

    future: asyncio.Future[CommitOutcome]
    action: bytes


def reject_reason_name(reason: int) -> str:
    """The RejectReason name of a wire value, tolerating values added to the
    enum after this SDK was generated."""
    try:
        return table_pb2.RejectReason.Name(reason)
    except ValueError:
        return f"REJECT_REASON_{reason}"


class SessionCounts:
    """What a session counts, kept as plain attributes of TableSession (see
    there) for its replica and its stream to add to."""

    def __init__(self) -> None:
        self.desyncs = 0
        self.rejects = 0
        self.gaps = 0
        self.reconnects = 0
        self.stream_rejections = 0
        self.hashes_checked = 0


class SeqGap(Exception):
    """A delta skipped a seq: reopen the stream from the last seq held."""


class TableReplica:
    """The view one seat holds of its table, and who waits on it.

    `view` is replaced by snapshots and advanced by deltas, never mutated in
    place; `in_step` is False from a delta whose hash is not the host's until
    the snapshot that answers it. `on_delta` returns the ack to write, if one
    is due. Every change wakes the waiters (`notify`), who re-check their
    condition (`wait_until`)."""

    def __init__(self, table_id: str, seat: int, ack_every: int, counts: SessionCounts) -> None:
        self.table_id = table_id
        self.seat = seat
        self.view: View = {}
        self.seq = 0
        self.have_view = False
        # False from a delta whose hash differs from the host's (or that did
        # not apply) until the snapshot that answers it: the view is not the
        # host's meanwhile, and no request is handed out from it.
        self.in_step = True
        self.result: GameResult | None = None
        self.pending: dict[str, PendingCommit] = {}
        self._counts = counts
        self._ack_every = ack_every
        # The seq of the last ack sent or snapshot taken: the next in-step ack
        # is due `ack_every` changes after it.
        self._acked_seq = 0
        self._changed = asyncio.Event()
        self._subscribers: list[asyncio.Queue[ViewUpdate]] = []

    @property
    def request(self) -> dict[str, Any] | None:
        """The view's "request" while the view is in step with the host's."""
        request = self.view.get("request") if self.in_step else None
        return request if isinstance(request, dict) else None

    @property
    def dealt(self) -> bool:
        return self.have_view and self.view.get("stage") != DEALING_STAGE

    def has_applied(self, seq: int) -> bool:
        """Whether a delta of this seq is already in the view (replayed after a reconnect)."""
        return seq <= self.seq and self.have_view

    # -- the host's messages -------------------------------------------------

    def on_snapshot(self, snapshot: table_pb2.Snapshot) -> None:
        view = decode(snapshot.view)
        if not isinstance(view, dict):
            raise TypeError(f"a snapshot's view is a map, got {type(view).__name__}")
        previous = self.view if self.have_view else None
        self.view, self.seq, self.have_view = view, snapshot.seq, True
        self._acked_seq = snapshot.seq  # a snapshot needs no ack
        self.in_step = True  # the host's view, whole (a mismatch below is this codec's fault)
        self.seat = snapshot.seat
        self.table_id = snapshot.table_id or self.table_id
        self._counts.hashes_checked += 1
        if view_hash(view) != snapshot.view_hash:
            self._counts.desyncs += 1
            log.warning("table=%s seat=%d seq=%d: snapshot hash mismatch", self.table_id, self.seat, self.seq)
        self.publish(ViewUpdate("snapshot", snapshot.seq, view, previous))

    def on_delta(self, delta: table_pb2.Delta) -> table_pb2.Ack | None:
        """Apply a delta that is not in the view yet (`has_applied`) and
        return the ack to write now, if one is due. Raises SeqGap."""
        if not self.have_view or delta.seq != self.seq + 1:
            self._counts.gaps += 1
            raise SeqGap(f"expected seq {self.seq + 1}, got {delta.seq}")
        previous = self.view
        try:
            view = apply_delta(previous, decode(delta.delta))
            computed = view_hash(view)
            applied = True
        except (ValueError, TypeError) as error:
            # Keep the old view; the mismatching ack below brings a snapshot.
            log.warning("table=%s seat=%d seq=%d: delta does not apply: %s", self.table_id, self.seat, delta.seq, error)
            view, computed, applied = previous, _UNCOMPUTED_HASH, False
        self.view, self.seq = view, delta.seq
        self._counts.hashes_checked += 1
        self.in_step = applied and computed == delta.view_hash
        if not self.in_step:
            self._counts.desyncs += 1
            log.warning("table=%s seat=%d seq=%d act_id=%s: view hash mismatch (desync)",
                        self.table_id, self.seat, delta.seq, delta.act_id)
        if delta.act_id:
            self.resolve(delta.act_id, CommitOutcome(delta.act_id, True, delta.seq))
        # Published before the ack's write yields, so no one sees the new
        # view without its update already queued.
        self.publish(ViewUpdate("delta", delta.seq, view, previous, delta.act_id, delta.automatic))
        # Wake waiters before the ack's write: the seat whose turn this delta
        # gives should not wait behind it.
        self.notify()
        if not self.in_step or delta.seq - self._acked_seq >= self._ack_every:
            self._acked_seq = delta.seq
            return table_pb2.Ack(seq=delta.seq, view_hash=computed)
        return None

    def on_rejection(self, rejection: table_pb2.Rejection) -> None:
        pending = self.pending.get(rejection.act_id) if rejection.act_id else None
        if pending is not None and not pending.future.done():
            self._counts.rejects += 1
            pending.future.set_result(
                CommitOutcome(rejection.act_id, False, reason=rejection.reason, message=rejection.message)
            )
        elif not rejection.act_id:
            self._counts.stream_rejections += 1
            log.info("table=%s seat=%d: host refused a message: %s (%s)", self.table_id, self.seat,
                     rejection.message, reject_reason_name(rejection.reason))

    def on_game_over(self, game_over: table_pb2.GameOver) -> None:
        result = decode(game_over.result) if game_over.result else {}
        if not isinstance(result, dict):
            raise TypeError(f"a game's result is a map, got {type(result).__name__}")
        self.result = GameResult(game_over.winner, list(game_over.scores), result, game_over.seq)
        self.publish(ViewUpdate("game_over", game_over.seq, self.view))

    # -- commits awaiting their outcome ---------------------------------------

    def expect(self, act_id: str, action: dict[str, Any]) -> PendingCommit:
        """Register a commit before it is written, so its outcome cannot
        arrive unnoticed. ValueError for an act_id already in flight or of
        the wrong length."""
        if not 1 <= len(act_id.encode()) <= MAX_ACT_ID_LENGTH:
            raise ValueError(f"an act_id has 1 to {MAX_ACT_ID_LENGTH} bytes of UTF-8, got {len(act_id.encode())}")
        if act_id in self.pending:
            raise ValueError(f"commit {act_id!r} is already waiting for its outcome")
        pending = PendingCommit(asyncio.get_running_loop().create_future(), encode_action(action))
        self.pending[act_id] = pending
        return pending

    def forget(self, act_id: str) -> None:
        del self.pending[act_id]

    def resolve(self, act_id: str, outcome: CommitOutcome) -> None:
        pending = self.pending.get(act_id)
        if pending is not None and not pending.future.done():
            pending.future.set_result(outcome)

    # -- subscribers and waiters ---------------------------------------------

    def subscribe(self) -> asyncio.Queue[ViewUpdate]:
        queue: asyncio.Queue[ViewUpdate] = asyncio.Queue()
        self._subscribers.append(queue)
        return queue

    def publish(self, update: ViewUpdate) -> None:
        for queue in self._subscribers:
            queue.put_nowait(update)

    def notify(self) -> None:
        """Wake every waiter; each re-checks its condition."""
        self._changed.set()
        self._changed = asyncio.Event()

    async def wait_until(self, ready: Callable[[], T], timeout: float | None, *, what: str,
                         check_usable: Callable[[], None]) -> T:
        """Return `ready()` once it is not NOT_YET; raise what `check_usable`
        raises once the session can no longer get there, or TimeoutError
        naming `what` in time."""
        try:
            async with asyncio.timeout(timeout):
                while True:
                    changed = self._changed
                    value = ready()
                    if value is not NOT_YET:
                        return value
                    check_usable()
                    await changed.wait()
        except TimeoutError:
            raise TimeoutError(f"waited {timeout:g}s for {what} (table {self.table_id}, seq {self.seq})") from None
