"""One table's authoritative game, its seq and log, and its subscribers:
everything a room does per move, with no gRPC and no Ray in sight (the
servicer and the actor wrap it). Single-threaded by construction: every
method runs on the room actor's event loop.

Per move: apply the commit to the Match, write it to the room's journal
(persist), and once the journal has made it durable (released) compute, for
every viewer (each seat and the spectators), the new view, the delta from
the old one and the new hash, append them to the log and queue them to that
viewer's streams (publish). One command is in flight at a time: commits
that arrive meanwhile wait their turn, so nothing any client sees is ahead
of what is durable. Reconnects replay from the log.

A table may first wait for its deal (`deal_wait_ms`): each seat's first
hello brings its entropy, and the deal, journaled and published as the
first change, comes once every seat has said hello or the wait is over.
A table of players from a queue is cancelled instead when a seat never
said hello (`cancel_if_absent`): nobody plays beside a seat left empty by
a player who queued and never came; a tournament's table is dealt, and its
absent players forfeit by its own rules."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

from tablehost.actors.act_outcomes import ActOutcomes
from tablehost.actors.budgets import ACKS_PER_COMMIT, FLOOD_COOLDOWN_S, SeatBudget
from tablehost.actors.outbound import (
    AcceptedOut,
    CloseOut,
    DeltaOut,
    GameOverOut,
    Outbound,
    RejectionOut,
    SnapshotOut,
    StreamEnd,
    record_size,
)
from tablehost.actors.client_input import BadInput, brief, brief_value, clip, decode_action
from tablehost.actors.journal import Journal
from tablehost.actors.log_budget import LogBudget, left_out_note
from tablehost.actors.log_format import log_fields
from tablehost.actors.metrics import TableMetrics
from tablehost.actors.outbox import Outbox
from tablehost.actors.store import Checkpoint, Fenced, JournalEntry, StoredTable
from tablehost.actors.tokens import SPECTATOR_SEAT
from tablehost.actors.view_log import Change, ViewLog
from tablehost.games.engine.errors import Reason, RuleError
from tablehost.games.engine.fairness import TableSeed
from tablehost.games.engine.match import DEALER_SEAT, Command, Match, replay
from tablehost.games.engine.rules import GameRules
from tablehost.games.engine.verification import game_record
from tablehost.games.engine.views import View, canonical_bytes

log = logging.getLogger("tablehost.table")

MAX_ACT_ID_LENGTH = 64
# A rejection's message quotes at most this much (rules may quote the action).
MAX_REJECTION_MESSAGE = 256
# A reconnect missing more changes than this gets a snapshot, not the
# deltas: far below what a stream's queue holds (actors/outbox.py).
MAX_REPLAYED_CHANGES = 256
# Commits waiting while the table's previous command is being made durable.
MAX_QUEUED_COMMITS = 64
# A checkpoint of the state goes with every this many commands, so a resume
# replays at most this many.
CHECKPOINT_EVERY = 64


def wall_clock_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass(eq=False)
class Subscriber:
    """One open stream: a seat's player, or a spectator (seat -1, with a
    budget of its own: a table has few spectator streams, and none can act)."""

    seat: int
    budget: SeatBudget
    outbox: Outbox[Outbound] = field(default_factory=lambda: Outbox(record_size))
    # What this stream provokes in the log (rejections, desyncs) is rate-limited.
    log_budget: LogBudget = field(default_factory=LogBudget)


@dataclass
class TableStats:
    moves: int = 0
    automatic_moves: int = 0
    rejects: int = 0
    desyncs: int = 0
    floods: int = 0


class TableOwner(Protocol):
    """What a table tells the room that holds it. Each is called on the
    room's loop, from inside the table's own step, so the room must only
    schedule work, never close the table re-entrantly."""

    def table_finished(self, table: "Table") -> None:
        """The game is over and its last messages are queued."""

    def table_idle(self, table: "Table") -> None:
        """The table's last stream (player or spectator) has closed."""

    def table_failed(self, table: "Table", details: str) -> None:
        """The rules raised unexpectedly (or its journal failed); the table has closed its streams."""

    def table_moved(self, table: "Table") -> None:
        """A newer incarnation of the table owns it (it resumed in another
        room): this one has closed its streams and must be forgotten."""

    def table_cancelled(self, table: "Table") -> None:
        """The table was cancelled before its deal (`cancelled_for` names the
        seats that never came); it has closed its streams."""


class Table:
    def __init__(
        self,
        table_id: str,
        rules: GameRules,
        seed: TableSeed,
        players: list[str],
        options: dict[str, Any],
        *,
        rate: float = 200.0,
        burst: float = 400.0,
        clock: Callable[[], int] = wall_clock_ms,
        owner: TableOwner | None = None,
        join: list[dict[str, Any]] | None = None,
        journal: Journal | None = None,
        match: Match | None = None,
        seq: int = 0,
        epoch: int = 1,
        deal_wait_ms: int = 0,
        cancel_if_absent: bool = False,
    ) -> None:
        self.table_id = table_id
        self.clock = clock
        if match is None:
            opened = clock()
            match = Match(rules, seed, players, options, opened, join, deal_deadline_ms=opened + deal_wait_ms
                          if deal_wait_ms > 0 else None)
        self.match = match
        # Each seat's entropy from its first hello, until the deal.
        self._entropy: list[bytes | None] = [None] * len(players)
        self._cancel_if_absent = cancel_if_absent
        # The seats that never said hello when the table was cancelled before its deal.
        self.cancelled_for: tuple[int, ...] = ()
        self.epoch = epoch
        self.stats = TableStats()
        self.metrics = TableMetrics.of(self.match.rules.name)
        # Set when the rules raised something other than a RuleError: the
        # table is closed and takes no more commits (its room carries on).
        self.failure: str | None = None
        # Since when no player has had a stream open (monotonic seconds);
        # None while one has. A table nobody ever joins counts from its start.
        self.deserted_since: float | None = time.monotonic()
        # The seats that have opened a stream (this incarnation), and those
        # its room found absent at the end of the no-show window.
        self.seats_seen: set[int] = set()
        self.no_shows: tuple[int, ...] = ()
        # Seats an administrator took from their players, with what they are told.
        self.removed: dict[int, str] = {}
        self._rate, self._burst = rate, burst
        self._owner = owner
        # What was published, per seat (and the spectators' while one watches).
        self._published = ViewLog(seq, {seat: self._view_of(seat) for seat in range(len(players))})
        self._spectators = 0
        # A seat's message budgets outlive its streams: opening a new stream
        # (which replaces the old) must not refill them for a flooder.
        self._seat_budgets: dict[int, SeatBudget] = {}
        # The first outcome of each (seat, act_id), sent again for a repeat.
        self._acts = ActOutcomes()
        self._subscribers: set[Subscriber] = set()
        self._journal = journal
        # The command applied to the match and being made durable, with the
        # stream that sent it; commits that came meanwhile, in order; and
        # answers to repeated act_ids that wait for their command's release.
        # Each with when its commit arrived (perf_counter), for the move latency.
        self._in_flight: tuple[JournalEntry, Subscriber | None, float | None] | None = None
        self._queued: deque[tuple[Subscriber, str, Any, float]] = deque()
        self._deferred_accepts: list[tuple[Subscriber, str, int]] = []
        self._awaiting_snapshot: list[Subscriber] = []
        self._since_checkpoint = 0
        self._game_over_message: GameOverOut | None = None
        self._timer: asyncio.TimerHandle | None = None
        # The room's loop, looked up once: asyncio.get_running_loop() makes a
        # system call each time, and the timer is set again on every move.
        self._loop = asyncio.get_running_loop()
        self._schedule_timer()

    @property
    def seq(self) -> int:
        """The seq published (and durable): every viewer's views are at it."""
        return self._published.seq

    @classmethod
    def resumed(
        cls, stored: StoredTable, rules: GameRules, *, journal: Journal | None, owner: TableOwner | None,
        rate: float, burst: float,
    ) -> Table:
        """A table rebuilt from its store in a new room: its checkpoint (or its
        setup) and every command journaled after it, with the act_ids already
        accepted, so a client resending one gets its first outcome again.
        Turn timers resume from the deadlines in the state."""
        header = stored.header["match"]
        checkpoint = stored.checkpoint
        commands = [Command(entry.seat, entry.action, entry.now_ms, entry.automatic) for entry in stored.entries]
        match = replay(rules, header, commands, checkpoint.state if checkpoint is not None else None)
        if checkpoint is not None:
            match.commands[:0] = [Command.from_plain(plain) for plain in checkpoint.commands]
        table = cls(stored.table_id, rules, match.seed, list(header["players"]), dict(header["options"]),
                    rate=rate, burst=burst, owner=owner, journal=journal, match=match, seq=stored.seq,
                    epoch=stored.epoch)
        if checkpoint is not None:
            for key, seq in checkpoint.accepted.items():
                seat, _, act_id = key.partition(":")
                table._acts.accepted(int(seat), act_id, seq)
        for entry in stored.entries:
            if entry.act_id:
                table._acts.accepted(entry.seat, entry.act_id, entry.seq)
        return table

    # -- streams -------------------------------------------------------------

    @property
    def subscriber_count(self) -> int:
        return len(self._subscribers)

    def subscribe(self, seat: int, last_seq: int, entropy: bytes = b"") -> Subscriber:
        """Attach a stream and queue what it is missing: the deltas after
        `last_seq` when the log has them (and they are not too many), else a
        snapshot. A seat has one live stream: a newer one replaces the older,
        which ends (ABORTED), so two sessions of one seat cannot both act.
        Before the deal a seat's first hello gives its `entropy` (later
        ones cannot change it); the last seat's deals the cards."""
        if seat != SPECTATOR_SEAT:
            self._end_streams_of(seat)
            budget = self._seat_budget(seat)
        else:
            budget = SeatBudget(self._rate, self._burst)
        subscriber = Subscriber(seat, budget)
        self._subscribers.add(subscriber)
        if seat == SPECTATOR_SEAT:
            if not self._watch_as_spectator():
                self._awaiting_snapshot.append(subscriber)
                return subscriber
        else:
            self.deserted_since = None
            if seat in self.seats_seen:
                self.metrics.reconnects.inc()
            self.seats_seen.add(seat)
        missed = self._published.since(seat, last_seq, MAX_REPLAYED_CHANGES)
        if missed is not None:
            for change in missed:
                self._queue_delta(subscriber, change)
        else:
            if last_seq > 0:
                self.metrics.resyncs.inc()  # back from further than the log replays
            subscriber.outbox.put(self._snapshot(seat))
        if self.over:
            subscriber.outbox.put(self._game_over())
        if seat != SPECTATOR_SEAT and not self.match.dealt:
            if self._entropy[seat] is None:
                self._entropy[seat] = entropy
            if None not in self._entropy:
                self._deal()
        return subscriber

    def _end_streams_of(self, seat: int) -> None:
        """Detach the seat's stream (if any): it ends after what is queued
        for it, and what it still sends is ignored."""
        for older in [s for s in self._subscribers if s.seat == seat]:
            self._subscribers.discard(older)
            older.outbox.put(CloseOut(f"replaced by a newer stream for seat {seat}", StreamEnd.REPLACED))

    @property
    def seat_count(self) -> int:
        return len(self.match.players)

    @property
    def spectator_streams(self) -> int:
        return self._spectators

    @property
    def remembered_rejections(self) -> int:
        """Rejected act_ids remembered, all seats together (bounded per seat)."""
        return self._acts.remembered_rejections

    @property
    def seated_streams(self) -> int:
        return sum(1 for subscriber in self._subscribers if subscriber.seat != SPECTATOR_SEAT)

    @property
    def over(self) -> bool:
        """The game's end is published: its last command is durable and sent
        (until then it is in flight, and nobody may hear the game is over)."""
        return self.match.result is not None and self._in_flight is None

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
                self._published.stop(SPECTATOR_SEAT)
        elif self.seated_streams == 0 and not self.over:
            self.deserted_since = time.monotonic()
        if not self._subscribers and self._owner is not None:
            self._owner.table_idle(self)

    def remove_seat(self, seat: int, details: str) -> None:
        """Take the seat from its player: its stream ends with `details` and
        its token opens no stream again. The game goes on; the turn timer
        plays the seat's turns, as for a player who left."""
        self.removed[seat] = details
        for stream in [s for s in self._subscribers if s.seat == seat]:
            self._subscribers.discard(stream)
            stream.outbox.put(CloseOut(details, StreamEnd.REMOVED))
        if self.seated_streams == 0 and not self.over and self.deserted_since is None:
            self.deserted_since = time.monotonic()

    def close(self, details: str, ending: StreamEnd | None = None) -> None:
        """Stop the timer and end every stream: the room is done with the table.
        A finished game's streams end with OK, so a client reading its final
        messages is never cut off by an error status; `ending` overrides
        how the streams end (an administrator closing it)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if ending is None and self.failure is not None:
            ending = StreamEnd.FAILED
        elif ending is None:
            ending = StreamEnd.FINISHED if self.over else StreamEnd.UNAVAILABLE
        for subscriber in self._subscribers:
            subscriber.outbox.put(CloseOut(details, ending))
        self._subscribers.clear()

    # -- client messages -----------------------------------------------------

    def commit(self, subscriber: Subscriber, act_id: str, action_bytes: bytes) -> None:
        """Apply and publish, or reject to this stream alone, changing nothing.
        What the client sent is checked (the act_id, then the action's
        shape) before anything compares, remembers or logs it."""
        if self.failure is not None or subscriber not in self._subscribers:
            return  # the table is closed, or a newer stream replaced this one: its end is queued
        received = time.perf_counter()
        # An act_id out of bounds is never echoed: each answer would be as
        # large as the flood that provoked it.
        act_id_fits = len(act_id) <= MAX_ACT_ID_LENGTH and 0 < len(act_id.encode()) <= MAX_ACT_ID_LENGTH
        if not subscriber.budget.commits.take():
            self.refuse_for_rate(subscriber, act_id if act_id_fits else "", commits=True)
            return
        if not act_id_fits:
            self._reject(subscriber, "", Reason.PROTOCOL,
                         f"act_id must be 1-{MAX_ACT_ID_LENGTH} UTF-8 bytes, got {len(act_id.encode())}", False)
            return
        previous = self._acts.of(subscriber.seat, act_id)
        if previous is not None:
            self._repeat(subscriber, act_id, previous)
            return
        if subscriber.seat == SPECTATOR_SEAT:
            self._reject(subscriber, act_id, Reason.NOT_YOUR_SEAT, "spectators cannot act")
            return
        try:
            action = decode_action(action_bytes)
        except BadInput as error:
            self._reject(subscriber, act_id, Reason.MALFORMED, str(error))
            return
        if "seat" in action:
            claimed = action["seat"]
            if type(claimed) is not int or claimed != subscriber.seat:
                self._reject(
                    subscriber, act_id, Reason.NOT_YOUR_SEAT,
                    f"your token is for seat {subscriber.seat}, not seat {brief_value(claimed)}",
                )
                return
            action = {key: value for key, value in action.items() if key != "seat"}
        if self._in_flight is not None:
            if len(self._queued) >= MAX_QUEUED_COMMITS:
                self._reject(subscriber, act_id, Reason.RATE_LIMITED, "the table is busy; send again", remember=False)
                return
            self._queued.append((subscriber, act_id, action, received))
            return
        self._apply(subscriber, act_id, action, received)

    def _apply(self, subscriber: Subscriber, act_id: str, action: Any, received: float) -> None:
        """Apply a checked commit to the match and journal it; it is published
        when the journal releases it."""
        now = self.clock()
        try:
            self.match.act(subscriber.seat, action, now)
        except RuleError as error:
            self._reject(subscriber, act_id, error.reason, error.message)
            return
        except Exception as error:  # a bug in the rules: this table ends, its room goes on
            self._fail(f"its rules failed on a commit from seat {subscriber.seat}", error)
            return
        self._record(JournalEntry(self.seq + 1, act_id, subscriber.seat, action, now, False), subscriber, received)

    def _record(self, entry: JournalEntry, first: Subscriber | None, received: float | None) -> None:
        """Put an applied command in flight: to the journal (with a checkpoint
        now and then), or straight to publishing when there is none.
        `received` is when its commit arrived (None for an automatic move)."""
        self.stats.moves += 1
        self.stats.automatic_moves += entry.automatic
        (self.metrics.automatic_moves if entry.automatic else self.metrics.player_moves).inc()
        if entry.act_id:
            self._acts.accepted(entry.seat, entry.act_id, entry.seq)
        self._put_in_flight(entry, first, received)

    def _put_in_flight(self, entry: JournalEntry, first: Subscriber | None, received: float | None) -> None:
        self._in_flight = (entry, first, received)
        if self._journal is None:
            self.released(entry.seq)
            return
        self._since_checkpoint += 1
        checkpoint = None
        if self._since_checkpoint >= CHECKPOINT_EVERY:
            self._since_checkpoint = 0
            assert self.match.state is not None  # a journal entry is a move of a dealt match
            checkpoint = Checkpoint(entry.seq, self.match.state, self._acts.accepted_plain(),
                                    [command.to_plain() for command in self.match.commands])
        self._journal.submit(self, entry, checkpoint)

    def released(self, seq: int) -> None:
        """The journal made the command in flight durable: publish it, answer
        what waited on it, and take the next queued commit."""
        if self._in_flight is None or self._in_flight[0].seq != seq or self.failure is not None:
            return
        entry, first, received = self._in_flight
        self._in_flight = None
        self._publish(entry.act_id, entry.automatic, first)
        if received is not None:
            self.metrics.move_latency.observe(time.perf_counter() - received)
        if self._deferred_accepts:
            waiting, self._deferred_accepts = self._deferred_accepts, []
            for subscriber, act_id, applied in waiting:
                if applied <= self.seq:
                    subscriber.outbox.put(AcceptedOut(act_id, applied))
                else:
                    self._deferred_accepts.append((subscriber, act_id, applied))
        while self._queued and self._in_flight is None and self.failure is None:
            subscriber, act_id, action, received = self._queued.popleft()
            if subscriber not in self._subscribers:
                continue  # its stream is gone; the client resends after reconnecting
            previous = self._acts.of(subscriber.seat, act_id)
            if previous is not None:
                self._repeat(subscriber, act_id, previous)
            else:
                self._apply(subscriber, act_id, action, received)

    def journal_failed(self, error: Exception) -> None:
        """The store refused the command in flight: a newer incarnation owns
        the table (it resumed elsewhere), or the store failed."""
        if self.failure is not None:
            return
        if isinstance(error, Fenced):
            self.failure = f"table {self.table_id} moved to another room"
            log.warning("table fenced table=%s epoch=%d: %s", self.table_id, self.epoch, error,
                        extra=log_fields("table_fenced", table_id=self.table_id, seq=self.seq))
            self.close(self.failure)
            if self._owner is not None:
                self._owner.table_moved(self)
            return
        self._fail("its journal could not be written", error)

    def ack(self, subscriber: Subscriber, seq: int, client_hash: str) -> None:
        """A hash that differs from ours at that seq is a desync: count it and
        resend the whole view."""
        if subscriber not in self._subscribers:
            return  # replaced by a newer stream, or the table closed
        if not 0 <= seq <= self.seq:
            subscriber.outbox.put(RejectionOut("", Reason.PROTOCOL, f"ack for seq {seq}; the table is at {self.seq}"))
            return
        expected = self._published.hash_at(subscriber.seat, seq)
        if expected is None:
            # A seq from before this stream's views were kept (a spectator
            # from an earlier watch): nothing to compare; resend the view.
            subscriber.outbox.put(self._snapshot(subscriber.seat))
            return
        if client_hash != expected:
            self.stats.desyncs += 1
            self.metrics.desyncs.inc()
            self.metrics.resyncs.inc()
            left_out = subscriber.log_budget.take()
            if left_out is not None:
                log.warning(
                    "desync table=%s seq=%d seat=%d: client hash %s, host %s; sending a snapshot%s",
                    self.table_id, seq, subscriber.seat, brief(client_hash, 12), expected[:12], left_out_note(left_out),
                    extra=log_fields("desync", table_id=self.table_id, seq=seq, seat=subscriber.seat),
                )
            subscriber.outbox.put(self._snapshot(subscriber.seat))

    def _seat_budget(self, seat: int) -> SeatBudget:
        budget = self._seat_budgets.get(seat)
        if budget is None:
            budget = self._seat_budgets[seat] = SeatBudget(self._rate, self._burst)
        return budget

    def cooling_down(self, seat: int) -> float:
        """Seconds until `seat` may open a stream again after its last one was
        ended for flooding (0: it may now)."""
        budget = self._seat_budgets.get(seat)
        return 0.0 if budget is None else budget.cooling_down()

    def rate_limited(self, subscriber: Subscriber) -> bool:
        """True when a message other than a commit is over its budget (and has
        been answered, or its stream ended, by refuse_for_rate)."""
        if subscriber.budget.acks.take():
            return False
        self.refuse_for_rate(subscriber, "", commits=False)
        return True

    def refuse_for_rate(self, subscriber: Subscriber, act_id: str, commits: bool) -> None:
        """Answer a message over its seat's budget RATE_LIMITED, or end its
        stream (RESOURCE_EXHAUSTED) once the seat is past its flood allowance.
        The ending names the budget the flood broke: commits, or the other
        messages' (acks), four times larger."""
        if not subscriber.budget.flooded():
            self._reject(subscriber, act_id, Reason.RATE_LIMITED, "too many messages; slow down", remember=False)
            return
        if subscriber not in self._subscribers:
            return  # already ended
        self.stats.floods += 1
        self.metrics.floods.inc()
        left_out = subscriber.log_budget.take()
        if left_out is not None:
            log.info("stream ended for flooding table=%s seat=%d%s", self.table_id, subscriber.seat,
                     left_out_note(left_out),
                     extra=log_fields("stream_flooded", table_id=self.table_id, seat=subscriber.seat))
        self.unsubscribe(subscriber)
        again = (f" and this seat may open a stream again in {FLOOD_COOLDOWN_S:g} s"
                 if subscriber.seat != SPECTATOR_SEAT else "")
        if commits:
            budget = f"{self._rate:g} commits a second, {self._burst:g} at once"
        else:
            budget = (f"{self._rate * ACKS_PER_COMMIT:g} acks and other messages a second, "
                      f"{self._burst * ACKS_PER_COMMIT:g} at once")
        subscriber.outbox.put(CloseOut(f"this stream sent messages far over its budget ({budget}), so it is closed{again}",
                                       StreamEnd.FLOODED))

    def serves(self, subscriber: Subscriber) -> bool:
        """Whether the stream is still attached (not replaced, ended or closed):
        what a detached stream sends is ignored, so it need not be read."""
        return subscriber in self._subscribers

    # -- internals -------------------------------------------------------------

    def _view_of(self, viewer: int) -> View:
        return self.match.view(None if viewer == SPECTATOR_SEAT else viewer)

    def _watch_as_spectator(self) -> bool:
        """The first spectator starts the public view being published. False
        when it cannot be shown yet: a command is in flight, so the match is
        ahead of what is published, and the view starts with its release."""
        self._spectators += 1
        if self._published.shows(SPECTATOR_SEAT):
            return True
        self._published.want(SPECTATOR_SEAT)
        if self._in_flight is not None:
            return False
        self._published.start(SPECTATOR_SEAT, self._view_of(SPECTATOR_SEAT))
        return True

    def _snapshot(self, viewer: int) -> SnapshotOut:
        view = self._published.current(viewer)
        return SnapshotOut(self.seq, view.data, view.hash, viewer, self.table_id)

    def _game_over(self) -> GameOverOut:
        if self._game_over_message is None:
            result = self.match.result or {}
            self._game_over_message = GameOverOut(
                self.seq, canonical_bytes(result), tuple(result.get("scores", ())), result.get("winner", -1),
                canonical_bytes(game_record(self.table_id, self.match)),
            )
        return self._game_over_message

    def _publish(self, act_id: str, automatic: bool, first: Subscriber | None = None) -> None:
        """Log one change and queue it to every stream; the committer's stream
        first, since its player is the one waiting on the outcome."""
        try:
            new_views = self.match.views([None if v == SPECTATOR_SEAT else v for v in self._published.viewers])
        except Exception as error:  # a bug in the game's views: same as in its actions
            self._fail("its views failed after a move", error)
            return
        change = self._published.publish(act_id, automatic, {
            SPECTATOR_SEAT if seat is None else seat: view for seat, view in new_views.items()})
        if first is not None and first in self._subscribers:
            self._queue_delta(first, change)
        for subscriber in self._subscribers:
            if subscriber is not first and subscriber.seat in change.deltas:
                self._queue_delta(subscriber, change)
        if self._awaiting_snapshot:
            waiting, self._awaiting_snapshot = self._awaiting_snapshot, []
            for subscriber in waiting:
                if subscriber in self._subscribers:
                    subscriber.outbox.put(self._snapshot(subscriber.seat))
        if log.isEnabledFor(logging.DEBUG):  # every move passes here: build no fields for a line not written
            log.debug("published table=%s seq=%d act_id=%s automatic=%s", self.table_id, self.seq, act_id, automatic,
                      extra=log_fields("published", table_id=self.table_id, seq=self.seq, act_id=act_id))
        if self.match.result is not None:
            self._finish()
        else:
            self._schedule_timer()

    def _queue_delta(self, subscriber: Subscriber, change: Change) -> None:
        delta, new_hash = change.deltas[subscriber.seat]
        subscriber.outbox.put(DeltaOut(change.seq, change.act_id, delta, new_hash, change.automatic))

    def _finish(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        game_over = self._game_over()
        for subscriber in self._subscribers:
            subscriber.outbox.put(game_over)
        self.metrics.finished.inc()
        log.info("game over table=%s seq=%d result=%s", self.table_id, self.seq, self.match.result,
                 extra=log_fields("game_over", table_id=self.table_id, seq=self.seq))
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
        """Take the default of the request whose deadline passed first; each
        is journaled and published as its own change marked automatic."""
        self._timer = None
        if scheduled_at_seq != self.seq or self.failure is not None or self._in_flight is not None:
            return  # a move came first; its release sets the timer again
        if not self.match.dealt:
            absent = tuple(seat for seat, entropy in enumerate(self._entropy) if entropy is None)
            if absent and self._cancel_if_absent:
                self._cancel(absent)
            else:
                self._deal()
            return
        now = self.clock()
        request = self.match.next_expired(now) if self.match.result is None else None
        if request is None:
            self._schedule_timer()
            return
        try:
            self.match.act_automatically(request, now)
        except Exception as error:  # even a RuleError here is the game's bug: its own default
            self._fail(f"its automatic move for seat {request.seat} failed when its deadline passed", error)
            return
        log.info("deadline passed table=%s seq=%d seat=%d: automatic move", self.table_id, self.seq + 1, request.seat,
                 extra=log_fields("deadline", table_id=self.table_id, seq=self.seq + 1, seat=request.seat))
        # Its release publishes it and sets the timer again: a next expired
        # request (another seat's) is taken then, at once.
        self.metrics.timer_expiries.inc()
        self._record(JournalEntry(self.seq + 1, "", request.seat, self.match.commands[-1].action, now, True), None, None)

    def _deal(self) -> None:
        """Deal with the entropy the seats sent (none from a seat that has
        not said hello): journaled and published as the dealer's change."""
        if self._in_flight is not None or self.failure is not None or self.match.dealt:
            return
        now = self.clock()
        entropy = [contribution or b"" for contribution in self._entropy]
        try:
            self.match.deal(entropy, now)
        except Exception as error:  # the game's setup failed: this table only
            self._fail("its game could not be set up", error)
            return
        log.info("dealt table=%s with entropy from seats %s", self.table_id,
                 [seat for seat, contribution in enumerate(entropy) if contribution],
                 extra=log_fields("dealt", table_id=self.table_id, seq=self.seq + 1))
        self._put_in_flight(JournalEntry(self.seq + 1, "", DEALER_SEAT, self.match.commands[-1].action, now, True),
                            None, None)

    def _cancel(self, absent: tuple[int, ...]) -> None:
        """The deal's deadline came and seats `absent` never said hello: the
        table ends without a game, its players told why (they join again)."""
        self.cancelled_for = absent
        log.info("cancelled table=%s: seats %s never said hello", self.table_id, list(absent),
                 extra=log_fields("table_cancelled", table_id=self.table_id, seq=self.seq))
        details = (f"table {self.table_id} was cancelled before its deal: seats {list(absent)} never connected; "
                   "join the queue again")
        for subscriber in self._subscribers:
            subscriber.outbox.put(CloseOut(details, StreamEnd.CANCELLED))
        self._subscribers.clear()
        if self._owner is not None:
            self._owner.table_cancelled(self)

    def _fail(self, what: str, error: Exception) -> None:
        """End this table with a clear status: its game can no longer be
        trusted. Only this table's streams end; the room's others go on."""
        self.failure = f"table {self.table_id} was closed: {what} ({type(error).__name__}: {error})"
        self.metrics.failed.inc()
        log.error("table failed table=%s seq=%d: %s", self.table_id, self.seq, self.failure, exc_info=error,
                  extra=log_fields("table_failed", table_id=self.table_id, seq=self.seq))
        self.close(self.failure)
        if self._owner is not None:
            self._owner.table_failed(self, self.failure)

    def _reject(self, subscriber: Subscriber, act_id: str, reason: Reason, message: str, remember: bool = True) -> None:
        """Answer this stream alone; remember the outcome for a repeat of the
        act_id (a bounded number per seat), and log it within the stream's
        budget, quoting only a short prefix of what the client sent."""
        self.stats.rejects += 1
        self.metrics.rejected(reason.name)
        rejection = RejectionOut(act_id, reason, clip(message, MAX_REJECTION_MESSAGE))
        if remember and act_id:
            self._acts.rejected(subscriber.seat, act_id, rejection)
        left_out = subscriber.log_budget.take()
        if left_out is not None:
            log.info("rejected table=%s seq=%d act_id=%s seat=%d: %s (%s)%s", self.table_id, self.seq, brief(act_id),
                     subscriber.seat, brief(rejection.message, 120), reason.name, left_out_note(left_out),
                     extra=log_fields("rejected", table_id=self.table_id, seq=self.seq, act_id=act_id,
                                      seat=subscriber.seat))
        subscriber.outbox.put(rejection)

    def _repeat(self, subscriber: Subscriber, act_id: str, outcome: int | RejectionOut) -> None:
        if isinstance(outcome, RejectionOut):
            subscriber.outbox.put(outcome)
        elif outcome > self.seq:  # applied, not yet durable: answer once it is
            self._deferred_accepts.append((subscriber, act_id, outcome))
        else:
            subscriber.outbox.put(AcceptedOut(act_id, outcome))
