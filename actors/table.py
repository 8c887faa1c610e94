"""One table's authoritative game and its seq: everything a room does per
move, with no gRPC and no Ray in sight (the servicer and the actor wrap
it). Single-threaded by construction: every method runs on the room
actor's event loop. Its move path (actors/table_commands.py), its streams
(table_streams.py), its answers to one stream (table_answers.py), what it
publishes (table_views.py) and its clock (table_clock.py) are parts of
their own.

Per move: apply the commit to the Match, write it to the room's journal
(persist), and once the journal has made it durable (released) compute, for
every viewer (each seat and the spectators), the new view, the delta from
the old one and the new hash, append them to the log and queue them to that
viewer's streams (publish). Reconnects replay from the log.

A table may first wait for its deal (`deal_wait_ms`): each seat's first
hello brings its entropy, and the deal, journaled and published as the
first change, comes once every seat has said hello or the wait is over.
A table of players from a queue is cancelled instead when a seat never
said hello (`cancel_if_absent`): nobody plays beside a seat left empty by
a player who queued and never came; a tournament's table is dealt, and its
absent players forfeit by its own rules."""

from __future__ import annotations

import logging
import time
from typing import Any, Callable, Protocol

from tablehost.actors.journal import Journal
from tablehost.actors.log_format import log_fields
from tablehost.actors.metrics import TableMetrics, TableStats
from tablehost.actors.outbound import StreamEnd
from tablehost.actors.store import Fenced, JournalEntry, StoredTable
from tablehost.actors.table_answers import TableAnswers
from tablehost.actors.table_commands import CommandPipeline
from tablehost.actors.table_clock import DealWait, TurnTimer
from tablehost.actors.table_streams import Subscriber, TableStreams
from tablehost.actors.table_views import TableViews
from tablehost.actors.tokens import SPECTATOR_SEAT
from tablehost.games.engine.fairness import TableSeed
from tablehost.games.engine.match import DEALER_SEAT, Command, Match, replay
from tablehost.games.engine.rules import GameRules

log = logging.getLogger("tablehost.table")

def wall_clock_ms() -> int:
    return time.time_ns() // 1_000_000


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
        self._deal_wait = DealWait(len(players))
        self._cancel_if_absent = cancel_if_absent
        # The seats that never said hello when the table was cancelled before its deal.
        self.cancelled_for: tuple[int, ...] = ()
        self.epoch = epoch
        self.stats = TableStats()
        self.metrics = TableMetrics.of(self.match.rules.name)
        # Set when the rules raised something other than a RuleError: the
        # table is closed and takes no more commits (its room carries on).
        self.failure: str | None = None
        # The seats its room found absent at the end of the no-show window.
        self.no_shows: tuple[int, ...] = ()
        self._owner = owner
        self.streams = TableStreams(rate, burst, self.metrics)
        self._views = TableViews(table_id, match, seq, self.stats, self.metrics)
        self._answers = TableAnswers(table_id, lambda: self.seq, self.stats, self.metrics, self.streams,
                                     self.unsubscribe)
        self.commands = CommandPipeline(table_id, epoch, match, clock, lambda: self.seq, journal, self._answers,
                                        self.streams, self.stats, self.metrics, self)
        self._timer = TurnTimer(clock, self._expire)
        self._timer.set(self.match.deadline_ms, self.seq)

    @property
    def seq(self) -> int:
        """The seq published (and durable): every viewer's views are at it."""
        return self._views.published.seq

    # -- streams (actors/table_streams.py) --------------------------------------

    def subscribe(self, seat: int, last_seq: int, entropy: bytes = b"") -> Subscriber:
        """Attach a stream and queue what it is missing: the deltas after
        `last_seq` when the log has them (and they are not too many), else a
        snapshot. A seat's newer stream replaces its older. Before the deal
        a seat's first hello gives its `entropy`; the last seat's deals."""
        subscriber = self.streams.attach(seat)
        self._views.catch_up(subscriber, last_seq, match_ahead=self.commands.busy)
        if self.over:
            subscriber.outbox.put(self._views.game_over())
        if seat != SPECTATOR_SEAT and not self.match.dealt and self._deal_wait.heard(seat, entropy):
            self._deal()
        return subscriber

    @property
    def seat_count(self) -> int:
        return len(self.match.players)

    @property
    def remembered_rejections(self) -> int:
        """Rejected act_ids remembered, all seats together (bounded per seat)."""
        return self._answers.outcomes.remembered_rejections

    @property
    def over(self) -> bool:
        """The game's end is published: its last command is durable and sent
        (until then it is in flight, and nobody may hear the game is over)."""
        return self.match.result is not None and not self.commands.busy

    def unsubscribe(self, subscriber: Subscriber) -> None:
        """Detach a stream. A game every player has left starts its grace
        period (the room closes it if nobody returns); a table with no
        stream left at all is reported idle, so a finished one closes at once."""
        if not self.streams.detach(subscriber, self.over):
            return
        if subscriber.seat == SPECTATOR_SEAT and self.streams.spectators == 0:
            self._views.nobody_watches()
        if not self.streams.live and self._owner is not None:
            self._owner.table_idle(self)

    def remove_seat(self, seat: int, details: str) -> None:
        """Take the seat from its player: its stream ends with `details` and
        its token opens no stream again. The game goes on; the turn timer
        plays the seat's turns, as for a player who left."""
        self.streams.take_seat(seat, details, self.over)

    def close(self, details: str, ending: StreamEnd | None = None) -> None:
        """Stop the timer and end every stream: the room is done with the table.
        A finished game's streams end with OK, so a client reading its final
        messages is never cut off by an error status; `ending` overrides
        how the streams end (an administrator closing it)."""
        self._timer.cancel()
        if ending is None and self.failure is not None:
            ending = StreamEnd.FAILED
        elif ending is None:
            ending = StreamEnd.FINISHED if self.over else StreamEnd.UNAVAILABLE
        self.streams.end_all(details, ending)

    # -- the move path (actors/table_commands.py) ------------------------------------

    def commit(self, subscriber: Subscriber, act_id: str, action_bytes: bytes) -> None:
        """Apply and publish, or answer this stream alone, changing nothing
        (actors/table_answers.py checks what the client sent)."""
        if self.failure is not None or subscriber not in self.streams.live:
            return  # the table is closed, or a newer stream replaced this one: its end is queued
        received = time.perf_counter()
        action = self._answers.checked(subscriber, act_id, action_bytes)
        if action is not None:
            self.commands.commit(subscriber, act_id, action, received)

    def moved(self, error: Fenced) -> None:
        """The store fenced this table off: it resumed in another room."""
        self.failure = f"table {self.table_id} moved to another room"
        log.warning("table fenced table=%s epoch=%d: %s", self.table_id, self.epoch, error,
                    extra=log_fields("table_fenced", table_id=self.table_id, seq=self.seq))
        self.close(self.failure)
        if self._owner is not None:
            self._owner.table_moved(self)

    def ack(self, subscriber: Subscriber, seq: int, client_hash: str) -> None:
        """A stream's hash at a seq, checked (actors/table_views.py)."""
        if subscriber in self.streams.live:  # not replaced by a newer stream, and the table not closed
            self._views.ack(subscriber, seq, client_hash)

    def rate_limited(self, subscriber: Subscriber) -> bool:
        """True when a message other than a commit is over its budget (and has
        been answered, or its stream ended)."""
        if subscriber.budget.acks.take():
            return False
        self._answers.refuse_for_rate(subscriber, "", commits=False)
        return True

    def publish(self, act_id: str, automatic: bool, first: Subscriber | None) -> None:
        """Send a durable command to every viewer; then the game ends, or
        its turn timer is set again."""
        try:
            self._views.publish(act_id, automatic, first, self.streams.live)
        except Exception as error:  # a bug in the game's views: same as in its actions
            self.fail("its views failed after a move", error)
            return
        if log.isEnabledFor(logging.DEBUG):  # every move passes here: build no fields for a line not written
            log.debug("published table=%s seq=%d act_id=%s automatic=%s", self.table_id, self.seq, act_id, automatic,
                      extra=log_fields("published", table_id=self.table_id, seq=self.seq, act_id=act_id))
        if self.match.result is not None:
            self._finish()
        else:
            self._timer.set(self.match.deadline_ms, self.seq)

    # -- the table's life: deal, deadlines, end ----------------------------------------

    def _finish(self) -> None:
        self._timer.cancel()
        game_over = self._views.game_over()
        for subscriber in self.streams.live:
            subscriber.outbox.put(game_over)
        self.metrics.finished.inc()
        log.info("game over table=%s seq=%d result=%s", self.table_id, self.seq, self.match.result,
                 extra=log_fields("game_over", table_id=self.table_id, seq=self.seq))
        if self._owner is not None:
            self._owner.table_finished(self)

    def _expire(self, scheduled_at_seq: int) -> None:
        """Take the default of the request whose deadline passed first; each
        is journaled and published as its own change marked automatic."""
        if scheduled_at_seq != self.seq or self.failure is not None or self.commands.busy:
            return  # a move came first; its release sets the timer again
        if not self.match.dealt:
            absent = self._deal_wait.absent
            if absent and self._cancel_if_absent:
                self._cancel(absent)
            else:
                self._deal()
            return
        now = self.clock()
        request = self.match.next_expired(now) if self.match.result is None else None
        if request is None:
            self._timer.set(self.match.deadline_ms, self.seq)
            return
        try:
            self.match.act_automatically(request, now)
        except Exception as error:  # even a RuleError here is the game's bug: its own default
            self.fail(f"its automatic move for seat {request.seat} failed when its deadline passed", error)
            return
        log.info("deadline passed table=%s seq=%d seat=%d: automatic move", self.table_id, self.seq + 1, request.seat,
                 extra=log_fields("deadline", table_id=self.table_id, seq=self.seq + 1, seat=request.seat))
        # Its release publishes it and sets the timer again: a next expired
        # request (another seat's) is taken then, at once.
        self.metrics.timer_expiries.inc()
        self.commands.record(JournalEntry(self.seq + 1, "", request.seat, self.match.commands[-1].action, now, True),
                             None, None)

    def _deal(self) -> None:
        """Deal with the entropy the seats sent (none from a seat that has
        not said hello): journaled and published as the dealer's change."""
        if self.commands.busy or self.failure is not None or self.match.dealt:
            return
        now = self.clock()
        entropy = self._deal_wait.entropy
        try:
            self.match.deal(entropy, now)
        except Exception as error:  # the game's setup failed: this table only
            self.fail("its game could not be set up", error)
            return
        log.info("dealt table=%s with entropy from seats %s", self.table_id,
                 [seat for seat, contribution in enumerate(entropy) if contribution],
                 extra=log_fields("dealt", table_id=self.table_id, seq=self.seq + 1))
        self.commands.put_in_flight(JournalEntry(self.seq + 1, "", DEALER_SEAT, self.match.commands[-1].action, now,
                                                 True), None, None)

    def _cancel(self, absent: tuple[int, ...]) -> None:
        """The deal's deadline came and seats `absent` never said hello: the
        table ends without a game, its players told why (they join again)."""
        self.cancelled_for = absent
        log.info("cancelled table=%s: seats %s never said hello", self.table_id, list(absent),
                 extra=log_fields("table_cancelled", table_id=self.table_id, seq=self.seq))
        self.streams.end_all(f"table {self.table_id} was cancelled before its deal: seats {list(absent)} never "
                             "connected; join the queue again", StreamEnd.CANCELLED)
        if self._owner is not None:
            self._owner.table_cancelled(self)

    def fail(self, what: str, error: Exception) -> None:
        """End this table with a clear status: its game can no longer be
        trusted. Only this table's streams end; the room's others go on."""
        self.failure = f"table {self.table_id} was closed: {what} ({type(error).__name__}: {error})"
        self.metrics.failed.inc()
        log.error("table failed table=%s seq=%d: %s", self.table_id, self.seq, self.failure, exc_info=error,
                  extra=log_fields("table_failed", table_id=self.table_id, seq=self.seq))
        self.close(self.failure)
        if self._owner is not None:
            self._owner.table_failed(self, self.failure)


def resume_table(
    stored: StoredTable, rules: GameRules, *, journal: Journal | None, owner: TableOwner | None, rate: float,
    burst: float,
) -> Table:
    """A table rebuilt from its store in a new room: its checkpoint (or its
    setup) and every command journaled after it, with the act_ids already
    accepted, so a client resending one gets its first outcome again.
    Turn timers resume from the deadlines in the state."""
    header = stored.header.match
    checkpoint = stored.checkpoint
    commands = [Command(entry.seat, entry.action, entry.now_ms, entry.automatic) for entry in stored.entries]
    match = replay(rules, header, commands, checkpoint.state if checkpoint is not None else None)
    if checkpoint is not None:
        match.commands[:0] = [Command.from_plain(plain) for plain in checkpoint.commands]
    table = Table(stored.table_id, rules, match.seed, list(header.players), dict(header.options),
                  rate=rate, burst=burst, owner=owner, journal=journal, match=match, seq=stored.seq,
                  epoch=stored.epoch)
    accepted = table._answers.outcomes  # this module's own table
    if checkpoint is not None:
        for key, seq in checkpoint.accepted.items():
            seat, _, act_id = key.partition(":")
            accepted.accepted(int(seat), act_id, seq)
    for entry in stored.entries:
        if entry.act_id:
            accepted.accepted(entry.seat, entry.act_id, entry.seq)
    return table
