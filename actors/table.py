"""One table's authoritative game, its seq and log, and its subscribers:
everything a room does per move, with no gRPC and no Ray in sight (the
servicer and the actor wrap it). Single-threaded by construction: every
method runs on the room actor's event loop.

Per move: apply the commit to the Match, then for every viewer
(each seat and the spectators) compute the new view, the delta from the old
one and the new hash, append them to the log, and queue them to that
viewer's streams. Reconnects replay from the log."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

import msgpack

from tablehost.actors.outbound import (
    AcceptedOut,
    CloseOut,
    DeltaOut,
    GameOverOut,
    Outbound,
    RejectionOut,
    SnapshotOut,
    StreamEnd,
)
from tablehost.actors.outbox import Outbox
from tablehost.actors.tokens import SPECTATOR_SEAT
from tablehost.games.engine.errors import Reason, RuleError
from tablehost.games.engine.match import Match
from tablehost.games.engine.rules import GameRules
from tablehost.games.engine.views import EncodedView, View, canonical_bytes, delta_bytes, encode_view

log = logging.getLogger("tablehost.table")

MAX_ACT_ID_LENGTH = 64
# Every seat acks every change, and a table changes up to four times per
# commit of one seat: acks get four times the commit budget.
ACKS_PER_COMMIT = 4


def wall_clock_ms() -> int:
    return time.time_ns() // 1_000_000


class TokenBucket:
    """Per-stream flood control: `rate` messages a second, `burst` at once."""

    __slots__ = ("rate", "burst", "_tokens", "_stamp")

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self._tokens, self._stamp = burst, time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self._tokens = min(self.burst, self._tokens + (now - self._stamp) * self.rate)
        self._stamp = now
        if self._tokens < 1:
            return False
        self._tokens -= 1
        return True


@dataclass(eq=False)
class Subscriber:
    """One open stream: a seat's player, or a spectator (seat -1). Commits
    and other messages (acks) have separate budgets, so a client acking
    every delta of a fast table is never refused a move for it."""

    seat: int
    bucket: TokenBucket
    ack_bucket: TokenBucket
    outbox: Outbox[Outbound] = field(default_factory=Outbox)


@dataclass(frozen=True, slots=True)
class Change:
    """One published change in the log: per viewer, the delta bytes and the hash after it."""

    seq: int
    act_id: str
    automatic: bool
    deltas: dict[int, tuple[bytes, str]]


@dataclass
class TableStats:
    moves: int = 0
    automatic_moves: int = 0
    rejects: int = 0
    desyncs: int = 0


class TableOwner(Protocol):
    """What a table tells the room that holds it. Each is called on the
    room's loop, from inside the table's own step, so the room must only
    schedule work, never close the table re-entrantly."""

    def table_finished(self, table: "Table") -> None:
        """The game is over and its last messages are queued."""

    def table_idle(self, table: "Table") -> None:
        """The table's last stream (player or spectator) has closed."""

    def table_failed(self, table: "Table", details: str) -> None:
        """The rules raised unexpectedly; the table has closed its streams."""


class Table:
    def __init__(
        self,
        table_id: str,
        rules: GameRules,
        seed: int,
        players: list[str],
        options: dict[str, Any],
        *,
        rate: float = 200.0,
        burst: float = 400.0,
        clock: Callable[[], int] = wall_clock_ms,
        owner: TableOwner | None = None,
        join: list[dict[str, Any]] | None = None,
    ) -> None:
        self.table_id = table_id
        self.clock = clock
        self.match = Match(rules, seed, players, options, clock(), join)
        self.seq = 0
        self.stats = TableStats()
        # Set when the rules raised something other than a RuleError: the
        # table is closed and takes no more commits (its room carries on).
        self.failure: str | None = None
        # Since when no player has had a stream open (monotonic seconds);
        # None while one has. A table nobody ever joins counts from its start.
        self.deserted_since: float | None = time.monotonic()
        self._rate, self._burst = rate, burst
        self._owner = owner
        # The views published per move: every seat's, and the spectators'
        # only while a spectator is watching (nobody needs it otherwise).
        self._viewers: list[int] = list(range(len(players)))
        self._views: dict[int, EncodedView] = {v: encode_view(self._view_of(v)) for v in self._viewers}
        # Per viewer, the seq its views start at and the hash there: what an
        # ack of that seq is checked against (later seqs are in the log).
        self._base: dict[int, tuple[int, str]] = {v: (0, view.hash) for v, view in self._views.items()}
        self._spectators = 0
        self._log: list[Change] = []
        # The first outcome of each (seat, act_id): the seq that applied it,
        # or the rejection, sent again for a repeated act_id.
        self._outcomes: dict[tuple[int, str], int | RejectionOut] = {}
        self._subscribers: set[Subscriber] = set()
        self._timer: asyncio.TimerHandle | None = None
        # The room's loop, looked up once: asyncio.get_running_loop() makes a
        # system call each time, and the timer is set again on every move.
        self._loop = asyncio.get_running_loop()
        self._schedule_timer()

    # -- streams -------------------------------------------------------------

    @property
    def subscriber_count(self) -> int:
        return len(self._subscribers)

    def subscribe(self, seat: int, last_seq: int) -> Subscriber:
        """Attach a stream and queue what it is missing: the deltas after
        `last_seq` when the log has them, else a snapshot."""
        subscriber = Subscriber(
            seat,
            TokenBucket(self._rate, self._burst),
            TokenBucket(self._rate * ACKS_PER_COMMIT, self._burst * ACKS_PER_COMMIT),
        )
        self._subscribers.add(subscriber)
        if seat == SPECTATOR_SEAT:
            self._watch_as_spectator()
        else:
            self.deserted_since = None
        if self._base[seat][0] < last_seq <= self.seq:
            for change in self._log[last_seq:]:
                self._queue_delta(subscriber, change)
        else:
            subscriber.outbox.put(self._snapshot(seat))
        if self.match.result is not None:
            subscriber.outbox.put(self._game_over())
        return subscriber

    @property
    def seated_streams(self) -> int:
        return sum(1 for subscriber in self._subscribers if subscriber.seat != SPECTATOR_SEAT)

    @property
    def over(self) -> bool:
        return self.match.result is not None

    def unsubscribe(self, subscriber: Subscriber) -> None:
        """Detach a stream. A game every player has left starts its grace
        period (the room closes it if nobody returns); a table with no
        stream left at all is reported idle, so a finished one closes at once."""
        if subscriber not in self._subscribers:
            return
        self._subscribers.discard(subscriber)
        if subscriber.seat == SPECTATOR_SEAT:
            self._spectators -= 1
            if self._spectators == 0:
                self._stop_spectator_views()
        elif self.seated_streams == 0 and not self.over:
            self.deserted_since = time.monotonic()
        if not self._subscribers and self._owner is not None:
            self._owner.table_idle(self)

    def close(self, details: str) -> None:
        """Stop the timer and end every stream: the room is done with the table.
        A finished game's streams end with OK, so a client reading its final
        messages is never cut off by an error status."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.failure is not None:
            ending = StreamEnd.FAILED
        else:
            ending = StreamEnd.FINISHED if self.over else StreamEnd.UNAVAILABLE
        for subscriber in self._subscribers:
            subscriber.outbox.put(CloseOut(details, ending))
        self._subscribers.clear()

    # -- client messages -----------------------------------------------------

    def commit(self, subscriber: Subscriber, act_id: str, action_bytes: bytes) -> None:
        """Apply and publish, or reject to this stream alone, changing nothing."""
        if self.failure is not None:
            return  # the table is closed; this stream's end is already queued
        if not subscriber.bucket.take():
            self._reject(subscriber, act_id, Reason.RATE_LIMITED, "too many messages; slow down", remember=False)
            return
        if not 0 < len(act_id.encode()) <= MAX_ACT_ID_LENGTH:
            self._reject(subscriber, act_id, Reason.PROTOCOL, f"act_id must be 1-{MAX_ACT_ID_LENGTH} UTF-8 bytes", False)
            return
        key = (subscriber.seat, act_id)
        previous = self._outcomes.get(key)
        if previous is not None:
            self._repeat(subscriber, act_id, previous)
            return
        if subscriber.seat == SPECTATOR_SEAT:
            self._reject(subscriber, act_id, Reason.NOT_YOUR_SEAT, "spectators cannot act")
            return
        try:
            action = msgpack.unpackb(action_bytes, raw=False)
        except Exception as error:  # msgpack raises several unrelated types for bad bytes
            self._reject(subscriber, act_id, Reason.MALFORMED, f"action bytes are not msgpack: {error}")
            return
        if isinstance(action, dict) and "seat" in action:
            if action["seat"] != subscriber.seat:
                self._reject(
                    subscriber, act_id, Reason.NOT_YOUR_SEAT,
                    f"your token is for seat {subscriber.seat}, not seat {action['seat']!r}",
                )
                return
            action = {key: value for key, value in action.items() if key != "seat"}
        try:
            self.match.act(subscriber.seat, action, self.clock())
        except RuleError as error:
            self._reject(subscriber, act_id, error.reason, error.message)
            return
        except Exception as error:  # a bug in the rules: this table ends, its room goes on
            self._fail(f"its rules failed on a commit from seat {subscriber.seat}", error)
            return
        self.stats.moves += 1
        self._outcomes[key] = self.seq + 1
        self._publish(act_id, automatic=False, first=subscriber)

    def ack(self, subscriber: Subscriber, seq: int, client_hash: str) -> None:
        """A hash that differs from ours at that seq is a desync: count it and
        resend the whole view."""
        if not 0 <= seq <= self.seq:
            subscriber.outbox.put(RejectionOut("", Reason.PROTOCOL, f"ack for seq {seq}; the table is at {self.seq}"))
            return
        expected = self._hash_at(subscriber.seat, seq)
        if expected is None:
            # A seq from before this stream's views were kept (a spectator
            # from an earlier watch): nothing to compare; resend the view.
            subscriber.outbox.put(self._snapshot(subscriber.seat))
            return
        if client_hash != expected:
            self.stats.desyncs += 1
            log.warning(
                "desync table=%s seq=%d seat=%d: client hash %s, host %s; sending a snapshot",
                self.table_id, seq, subscriber.seat, client_hash[:12], expected[:12],
            )
            subscriber.outbox.put(self._snapshot(subscriber.seat))

    def rate_limited(self, subscriber: Subscriber) -> bool:
        """True when a message other than a commit must be dropped for flooding."""
        return not subscriber.ack_bucket.take()

    # -- internals -------------------------------------------------------------

    def _view_of(self, viewer: int) -> View:
        return self.match.view(None if viewer == SPECTATOR_SEAT else viewer)

    def _hash_at(self, viewer: int, seq: int) -> str | None:
        base_seq, base_hash = self._base[viewer]
        if seq == self.seq:
            return self._views[viewer].hash
        if seq == base_seq:
            return base_hash
        if base_seq < seq < self.seq:
            return self._log[seq - 1].deltas[viewer][1]
        return None

    def _watch_as_spectator(self) -> None:
        """The first spectator starts the public view being published."""
        self._spectators += 1
        if SPECTATOR_SEAT in self._views:
            return
        view = self._views[SPECTATOR_SEAT] = encode_view(self._view_of(SPECTATOR_SEAT))
        self._base[SPECTATOR_SEAT] = (self.seq, view.hash)
        self._viewers.append(SPECTATOR_SEAT)

    def _stop_spectator_views(self) -> None:
        self._viewers.remove(SPECTATOR_SEAT)
        del self._views[SPECTATOR_SEAT], self._base[SPECTATOR_SEAT]

    def _snapshot(self, viewer: int) -> SnapshotOut:
        view = self._views[viewer]
        return SnapshotOut(self.seq, view.data, view.hash, viewer, self.table_id)

    def _game_over(self) -> GameOverOut:
        result = self.match.result or {}
        return GameOverOut(
            self.seq, canonical_bytes(result), tuple(result.get("scores", ())), result.get("winner", -1)
        )

    def _publish(self, act_id: str, automatic: bool, first: Subscriber | None = None) -> None:
        """Log one change and queue it to every stream; the committer's stream
        first, since its player is the one waiting on the outcome."""
        try:
            new_views = self.match.views([None if v == SPECTATOR_SEAT else v for v in self._viewers])
        except Exception as error:  # a bug in the game's views: same as in its actions
            self._fail("its views failed after a move", error)
            return
        self.seq += 1
        deltas: dict[int, tuple[bytes, str]] = {}
        shared: dict[int, bytes] = {}  # values the views share, encoded once
        for seat, new_view in new_views.items():
            viewer = SPECTATOR_SEAT if seat is None else seat
            encoded = encode_view(new_view, shared)
            deltas[viewer] = (delta_bytes(self._views[viewer], encoded), encoded.hash)
            self._views[viewer] = encoded
        change = Change(self.seq, act_id, automatic, deltas)
        self._log.append(change)
        if first is not None and first in self._subscribers:
            self._queue_delta(first, change)
        for subscriber in self._subscribers:
            if subscriber is not first:
                self._queue_delta(subscriber, change)
        log.debug("published table=%s seq=%d act_id=%s automatic=%s", self.table_id, self.seq, act_id, automatic)
        if self.match.result is not None:
            self._finish()
        else:
            self._schedule_timer()

    def _queue_delta(self, subscriber: Subscriber, change: Change) -> None:
        delta_bytes, new_hash = change.deltas[subscriber.seat]
        subscriber.outbox.put(DeltaOut(change.seq, change.act_id, delta_bytes, new_hash, change.automatic))

    def _finish(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        game_over = self._game_over()
        for subscriber in self._subscribers:
            subscriber.outbox.put(game_over)
        log.info("game over table=%s seq=%d result=%s", self.table_id, self.seq, self.match.result)
        if self._owner is not None:
            self._owner.table_finished(self)

    def _schedule_timer(self) -> None:
        """One timer, on the room's loop, for the earliest deadline of the
        open requests; every published change sets it again."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        deadline = self.match.deadline_ms
        if deadline is None:
            return
        delay = max(0.0, (deadline - self.clock()) / 1000)
        self._timer = self._loop.call_later(delay, self._expire, self.seq)

    def _expire(self, scheduled_at_seq: int) -> None:
        """Take the default of every request whose deadline has passed, the
        earliest first, each published as its own change marked automatic."""
        self._timer = None
        if scheduled_at_seq != self.seq or self.failure is not None:
            return
        now = self.clock()
        while self.match.result is None and (request := self.match.next_expired(now)) is not None:
            try:
                self.match.act_automatically(request, now)
            except Exception as error:  # even a RuleError here is the game's bug: its own default
                self._fail(f"its automatic move for seat {request.seat} failed when its deadline passed", error)
                return
            self.stats.moves += 1
            self.stats.automatic_moves += 1
            log.info("deadline passed table=%s seq=%d seat=%d: automatic move", self.table_id, self.seq + 1,
                     request.seat)
            self._publish("", automatic=True)
            if self.failure is not None:
                return
        self._schedule_timer()

    def _fail(self, what: str, error: Exception) -> None:
        """End this table with a clear status: its game can no longer be
        trusted. Only this table's streams end; the room's others go on."""
        self.failure = f"table {self.table_id} was closed: {what} ({type(error).__name__}: {error})"
        log.error("table failed table=%s seq=%d: %s", self.table_id, self.seq, self.failure, exc_info=error)
        self.close(self.failure)
        if self._owner is not None:
            self._owner.table_failed(self, self.failure)

    def _reject(self, subscriber: Subscriber, act_id: str, reason: Reason, message: str, remember: bool = True) -> None:
        self.stats.rejects += 1
        rejection = RejectionOut(act_id, reason, message)
        if remember and act_id:
            self._outcomes[(subscriber.seat, act_id)] = rejection
        log.info("rejected table=%s seq=%d act_id=%s seat=%d: %s (%s)", self.table_id, self.seq, act_id,
                 subscriber.seat, message, reason)
        subscriber.outbox.put(rejection)

    def _repeat(self, subscriber: Subscriber, act_id: str, outcome: int | RejectionOut) -> None:
        if isinstance(outcome, RejectionOut):
            subscriber.outbox.put(outcome)
        else:
            subscriber.outbox.put(AcceptedOut(act_id, outcome))
