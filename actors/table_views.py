"""What a table's streams are sent of its game: on attaching, the changes
a stream missed (or a snapshot); after each durable command, every
viewer's delta and hash (actors/view_log.py keeps them); at the end, the
game over; and an ack checked against the hash its viewer should hold."""

from __future__ import annotations

import logging

from tablehost.actors.client_input import brief
from tablehost.actors.log_budget import left_out_note
from tablehost.actors.log_format import log_fields
from tablehost.actors.metrics import TableMetrics, TableStats
from tablehost.actors.outbound import DeltaOut, GameOverOut, RejectionOut, SnapshotOut
from tablehost.actors.table_streams import Subscriber
from tablehost.actors.tokens import SPECTATOR_SEAT
from tablehost.actors.view_log import Change, ViewLog
from tablehost.games.engine.errors import Reason
from tablehost.games.engine.match import Match
from tablehost.games.engine.verification import game_record
from tablehost.games.engine.views import View, canonical_bytes

log = logging.getLogger("tablehost.table")

# A reconnect missing more changes than this gets a snapshot, not the
# deltas: far below what a stream's queue holds (actors/outbox.py).
MAX_REPLAYED_CHANGES = 256


class TableViews:
    def __init__(self, table_id: str, match: Match, seq: int, stats: TableStats, metrics: TableMetrics) -> None:
        self._table_id = table_id
        self._match = match
        self._stats = stats
        self._metrics = metrics
        # What was published, per seat (and the spectators' while one watches).
        self.published = ViewLog(seq, {seat: self._view_of(seat) for seat in range(len(match.players))})
        # Spectators who came while a command was in flight: their view starts with its release.
        self._awaiting_snapshot: list[Subscriber] = []
        self._game_over: GameOverOut | None = None

    def catch_up(self, subscriber: Subscriber, last_seq: int, match_ahead: bool) -> None:
        """Queue what a new stream is missing: the changes after `last_seq`
        when the log has them (and they are not too many), else a snapshot.
        The first spectator starts the public view being published; while
        the match is ahead of what is published (`match_ahead`: a command in
        flight), it waits for the release."""
        seat = subscriber.seat
        if seat == SPECTATOR_SEAT and not self.published.shows(SPECTATOR_SEAT):
            self.published.want(SPECTATOR_SEAT)
            if match_ahead:
                self._awaiting_snapshot.append(subscriber)
                return
            self.published.start(SPECTATOR_SEAT, self._view_of(SPECTATOR_SEAT))
        missed = self.published.since(seat, last_seq, MAX_REPLAYED_CHANGES)
        if missed is not None:
            for change in missed:
                _queue_delta(subscriber, change)
            return
        if last_seq > 0:
            self._metrics.resyncs.inc()  # back from further than the log replays
        subscriber.outbox.put(self.snapshot(seat))

    def nobody_watches(self) -> None:
        """The last spectator left: the public view is no longer kept."""
        self.published.stop(SPECTATOR_SEAT)

    def publish(self, act_id: str, automatic: bool, first: Subscriber | None, live: set[Subscriber]) -> None:
        """Log one change and queue it to every live stream; the committer's
        stream first, since its player is the one waiting on the outcome.
        Raises what the game's views raise."""
        new_views = self._match.views([None if v == SPECTATOR_SEAT else v for v in self.published.viewers])
        change = self.published.publish(act_id, automatic, {
            SPECTATOR_SEAT if seat is None else seat: view for seat, view in new_views.items()})
        if first is not None and first in live:
            _queue_delta(first, change)
        for subscriber in live:
            if subscriber is not first and subscriber.seat in change.deltas:
                _queue_delta(subscriber, change)
        if self._awaiting_snapshot:
            waiting, self._awaiting_snapshot = self._awaiting_snapshot, []
            for subscriber in waiting:
                if subscriber in live:
                    subscriber.outbox.put(self.snapshot(subscriber.seat))

    def snapshot(self, viewer: int) -> SnapshotOut:
        view = self.published.current(viewer)
        return SnapshotOut(self.published.seq, view.data, view.hash, viewer, self._table_id)

    def game_over(self) -> GameOverOut:
        if self._game_over is None:
            result = self._match.result or {}
            self._game_over = GameOverOut(
                self.published.seq, canonical_bytes(result), tuple(result.get("scores", ())),
                result.get("winner", -1), canonical_bytes(game_record(self._table_id, self._match)),
            )
        return self._game_over

    def ack(self, subscriber: Subscriber, seq: int, client_hash: str) -> None:
        """A hash that differs from ours at that seq is a desync: count it and
        resend the whole view."""
        if not 0 <= seq <= self.published.seq:
            subscriber.outbox.put(RejectionOut("", Reason.PROTOCOL,
                                               f"ack for seq {seq}; the table is at {self.published.seq}"))
            return
        expected = self.published.hash_at(subscriber.seat, seq)
        if expected is None:
            # A seq from before this stream's views were kept (a spectator
            # from an earlier watch): nothing to compare; resend the view.
            subscriber.outbox.put(self.snapshot(subscriber.seat))
            return
        if client_hash != expected:
            self._stats.desyncs += 1
            self._metrics.desyncs.inc()
            self._metrics.resyncs.inc()
            left_out = subscriber.log_budget.take()
            if left_out is not None:
                log.warning(
                    "desync table=%s seq=%d seat=%d: client hash %s, host %s; sending a snapshot%s",
                    self._table_id, seq, subscriber.seat, brief(client_hash, 12), expected[:12],
                    left_out_note(left_out),
                    extra=log_fields("desync", table_id=self._table_id, seq=seq, seat=subscriber.seat),
                )
            subscriber.outbox.put(self.snapshot(subscriber.seat))

    def _view_of(self, viewer: int) -> View:
        return self._match.view(None if viewer == SPECTATOR_SEAT else viewer)


def _queue_delta(subscriber: Subscriber, change: Change) -> None:
    delta, new_hash = change.deltas[subscriber.seat]
    subscriber.outbox.put(DeltaOut(change.seq, change.act_id, delta, new_hash, change.automatic))
