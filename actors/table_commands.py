"""A table's move path: one command in flight at a time. A checked commit is
applied to the match and handed to the room's journal (with a checkpoint
now and then); once the journal has made it durable it is published, and
the commits that came meanwhile take their turn, so nothing any client sees
is ahead of what is durable. The journal calls back here (`released`,
`journal_failed`); what the table does around a move (its clock, its end)
is the table's."""

from __future__ import annotations

import time
from collections import deque
from typing import Any, Callable, Protocol

from tablehost.actors.act_outcomes import Outcome
from tablehost.actors.journal import Journal
from tablehost.actors.metrics import TableMetrics, TableStats
from tablehost.actors.store import Checkpoint, Fenced, JournalEntry
from tablehost.actors.table_answers import TableAnswers
from tablehost.actors.table_streams import Subscriber, TableStreams
from tablehost.games.engine.errors import Reason, RuleError
from tablehost.games.engine.match import Match

# Commits waiting while the table's previous command is being made durable.
MAX_QUEUED_COMMITS = 64
# A checkpoint of the state goes with every this many commands, so a resume
# replays at most this many.
CHECKPOINT_EVERY = 64


class CommandsOwner(Protocol):
    """What the move path asks of its table."""

    failure: str | None

    def publish(self, act_id: str, automatic: bool, first: Subscriber | None) -> None:
        """A command is durable: send it to every viewer."""

    def fail(self, what: str, error: Exception) -> None:
        """The rules or the journal failed: the table closes."""

    def moved(self, error: Fenced) -> None:
        """A newer incarnation of the table owns it."""


class CommandPipeline:
    """The command in flight and the commits waiting behind it."""

    def __init__(self, table_id: str, epoch: int, match: Match, clock: Callable[[], int],
                 published_seq: Callable[[], int], journal: Journal | None, answers: TableAnswers,
                 streams: TableStreams, stats: TableStats, metrics: TableMetrics, owner: CommandsOwner) -> None:
        # The journal knows a table by these two (actors/journal.py's Journaled).
        self.table_id = table_id
        self.epoch = epoch
        self.journal = journal
        self._match = match
        self._clock = clock
        self._published_seq = published_seq
        self._answers = answers
        self._streams = streams
        self._stats = stats
        self._metrics = metrics
        self._owner = owner
        # The command applied to the match and being made durable, with the
        # stream that sent it, and the commits that came meanwhile, in order;
        # each with when its commit arrived (perf_counter), for the move latency.
        self._in_flight: tuple[JournalEntry, Subscriber | None, float | None] | None = None
        self._queued: deque[tuple[Subscriber, str, Any, float]] = deque()
        self._since_checkpoint = 0

    @property
    def busy(self) -> bool:
        """A command is applied to the match but not yet durable and published."""
        return self._in_flight is not None

    def commit(self, subscriber: Subscriber, act_id: str, action: Any, received: float) -> None:
        """A checked commit: applied now, or queued behind the command in flight
        (refused when too many wait: the client sends it again)."""
        if self._in_flight is None:
            self._apply(subscriber, act_id, action, received)
        elif len(self._queued) >= MAX_QUEUED_COMMITS:
            self._answers.reject(subscriber, act_id, Reason.RATE_LIMITED, "the table is busy; send again",
                                 remember=False)
        else:
            self._queued.append((subscriber, act_id, action, received))

    def _apply(self, subscriber: Subscriber, act_id: str, action: Any, received: float) -> None:
        now = self._clock()
        try:
            self._match.act(subscriber.seat, action, now)
        except RuleError as error:
            self._answers.reject(subscriber, act_id, error.reason, error.message)
            return
        except Exception as error:  # a bug in the rules: this table ends, its room goes on
            self._owner.fail(f"its rules failed on a commit from seat {subscriber.seat}", error)
            return
        # Nothing was in flight, so the published seq is the match's last.
        self.record(JournalEntry(self._published_seq() + 1, act_id, subscriber.seat, action, now, False), subscriber,
                    received)

    def record(self, entry: JournalEntry, first: Subscriber | None, received: float | None) -> None:
        """Put a move applied to the match in flight, counted as one.
        `received` is when its commit arrived (None for an automatic move)."""
        self._stats.moves += 1
        self._stats.automatic_moves += entry.automatic
        (self._metrics.automatic_moves if entry.automatic else self._metrics.player_moves).inc()
        if entry.act_id:
            self._answers.outcomes.accepted(entry.seat, entry.act_id, entry.seq)
        self.put_in_flight(entry, first, received)

    def put_in_flight(self, entry: JournalEntry, first: Subscriber | None, received: float | None) -> None:
        """Hand an applied command to the journal (with a checkpoint now and
        then), or release it at once when the table has none."""
        self._in_flight = (entry, first, received)
        if self.journal is None:
            self.released(entry.seq)
            return
        self._since_checkpoint += 1
        checkpoint = None
        if self._since_checkpoint >= CHECKPOINT_EVERY:
            self._since_checkpoint = 0
            assert self._match.state is not None  # a journal entry is a move of a dealt match
            checkpoint = Checkpoint(entry.seq, self._match.state, self._answers.outcomes.accepted_plain(),
                                    [command.to_plain() for command in self._match.commands])
        self.journal.submit(self, entry, checkpoint)

    def released(self, seq: int) -> None:
        """The journal made the command in flight durable: publish it, answer
        what waited on it, and take the next queued commit."""
        if self._in_flight is None or self._in_flight[0].seq != seq or self._owner.failure is not None:
            return
        entry, first, received = self._in_flight
        self._in_flight = None
        self._owner.publish(entry.act_id, entry.automatic, first)
        if received is not None:
            self._metrics.move_latency.observe(time.perf_counter() - received)
        self._answers.released()
        while self._queued and self._in_flight is None and self._owner.failure is None:
            subscriber, act_id, action, received = self._queued.popleft()
            if subscriber not in self._streams.live:
                continue  # its stream is gone; the client resends after reconnecting
            previous: Outcome | None = self._answers.outcomes.of(subscriber.seat, act_id)
            if previous is not None:
                self._answers.repeat(subscriber, act_id, previous)
            else:
                self._apply(subscriber, act_id, action, received)

    def journal_failed(self, error: Exception) -> None:
        """The store refused the command in flight: a newer incarnation owns
        the table (it resumed elsewhere), or the store failed."""
        if self._owner.failure is not None:
            return
        if isinstance(error, Fenced):
            self._owner.moved(error)
        else:
            self._owner.fail("its journal could not be written", error)
