"""How a table answers one stream: a commit is checked (its budget, its
act_id, then the action's shape) before anything compares, remembers or
logs it; a stream far over its budget is ended; a rejection goes to that
stream alone (remembered for a repeat, logged within the stream's
budget, quoting only a short prefix of what the client sent); a repeated
act_id gets its first outcome again; an accept whose command is applied but
not yet durable waits for its release (nobody hears of a move before it is
durable)."""

from __future__ import annotations

import logging
from collections.abc import Callable

from typing import Any

from tablehost.actors.act_outcomes import ActOutcomes, Outcome
from tablehost.actors.client_input import BadInput, brief, brief_value, clip, decode_action
from tablehost.actors.log_budget import left_out_note
from tablehost.actors.log_format import log_fields
from tablehost.actors.metrics import TableMetrics, TableStats
from tablehost.actors.outbound import AcceptedOut, RejectionOut
from tablehost.actors.table_streams import Subscriber, TableStreams
from tablehost.actors.tokens import SPECTATOR_SEAT
from tablehost.games.engine.errors import Reason

log = logging.getLogger("tablehost.table")

MAX_ACT_ID_LENGTH = 64
# A rejection's message quotes at most this much (rules may quote the action).
MAX_REJECTION_MESSAGE = 256


class TableAnswers:
    def __init__(self, table_id: str, seq: Callable[[], int], stats: TableStats, metrics: TableMetrics,
                 streams: TableStreams, unsubscribe: Callable[[Subscriber], None]) -> None:
        self._table_id = table_id
        self._seq = seq  # the table's published (durable) seq
        self._stats = stats
        self._metrics = metrics
        self._streams = streams
        self._unsubscribe = unsubscribe
        self.outcomes = ActOutcomes()
        self._deferred: list[tuple[Subscriber, str, int]] = []

    def checked(self, subscriber: Subscriber, act_id: str, action_bytes: bytes) -> dict[str, Any] | None:
        """A commit's action to apply, or None once the stream has been
        answered (refused, or its repeat answered as the first time)."""
        # An act_id out of bounds is never echoed: each answer would be as
        # large as the flood that provoked it.
        act_id_fits = len(act_id) <= MAX_ACT_ID_LENGTH and 0 < len(act_id.encode()) <= MAX_ACT_ID_LENGTH
        if not subscriber.budget.commits.take():
            self.refuse_for_rate(subscriber, act_id if act_id_fits else "", commits=True)
            return None
        if not act_id_fits:
            self.reject(subscriber, "", Reason.PROTOCOL,
                        f"act_id must be 1-{MAX_ACT_ID_LENGTH} UTF-8 bytes, got {len(act_id.encode())}", False)
            return None
        previous = self.outcomes.of(subscriber.seat, act_id)
        if previous is not None:
            self.repeat(subscriber, act_id, previous)
            return None
        if subscriber.seat == SPECTATOR_SEAT:
            self.reject(subscriber, act_id, Reason.NOT_YOUR_SEAT, "spectators cannot act")
            return None
        try:
            action = decode_action(action_bytes)
        except BadInput as error:
            self.reject(subscriber, act_id, Reason.MALFORMED, str(error))
            return None
        if "seat" in action:
            claimed = action["seat"]
            if type(claimed) is not int or claimed != subscriber.seat:
                self.reject(subscriber, act_id, Reason.NOT_YOUR_SEAT,
                            f"your token is for seat {subscriber.seat}, not seat {brief_value(claimed)}")
                return None
            action = {key: value for key, value in action.items() if key != "seat"}
        return action

    def refuse_for_rate(self, subscriber: Subscriber, act_id: str, commits: bool) -> None:
        """Answer a message over its seat's budget RATE_LIMITED, or end its
        stream (RESOURCE_EXHAUSTED) once the seat is past its flood allowance."""
        if not subscriber.budget.flooded():
            self.reject(subscriber, act_id, Reason.RATE_LIMITED, "too many messages; slow down", remember=False)
            return
        if subscriber not in self._streams.live:
            return  # already ended
        self._stats.floods += 1
        self._metrics.floods.inc()
        left_out = subscriber.log_budget.take()
        if left_out is not None:
            log.info("stream ended for flooding table=%s seat=%d%s", self._table_id, subscriber.seat,
                     left_out_note(left_out),
                     extra=log_fields("stream_flooded", table_id=self._table_id, seat=subscriber.seat))
        self._unsubscribe(subscriber)
        subscriber.outbox.put(self._streams.flood_ending(subscriber, commits))

    def reject(self, subscriber: Subscriber, act_id: str, reason: Reason, message: str, remember: bool = True) -> None:
        self._stats.rejects += 1
        self._metrics.rejected(reason.name)
        rejection = RejectionOut(act_id, reason, clip(message, MAX_REJECTION_MESSAGE))
        if remember and act_id:
            self.outcomes.rejected(subscriber.seat, act_id, rejection)
        left_out = subscriber.log_budget.take()
        if left_out is not None:
            seq = self._seq()
            log.info("rejected table=%s seq=%d act_id=%s seat=%d: %s (%s)%s", self._table_id, seq, brief(act_id),
                     subscriber.seat, brief(rejection.message, 120), reason.name, left_out_note(left_out),
                     extra=log_fields("rejected", table_id=self._table_id, seq=seq, act_id=act_id,
                                      seat=subscriber.seat))
        subscriber.outbox.put(rejection)

    def repeat(self, subscriber: Subscriber, act_id: str, outcome: Outcome) -> None:
        if isinstance(outcome, RejectionOut):
            subscriber.outbox.put(outcome)
        elif outcome > self._seq():  # applied, not yet durable: answer once it is
            self._deferred.append((subscriber, act_id, outcome))
        else:
            subscriber.outbox.put(AcceptedOut(act_id, outcome))

    def released(self) -> None:
        """A command became durable: the repeats waiting on it are answered."""
        if not self._deferred:
            return
        seq = self._seq()
        waiting, self._deferred = self._deferred, []
        for subscriber, act_id, applied in waiting:
            if applied > seq:
                self._deferred.append((subscriber, act_id, applied))
            else:
                subscriber.outbox.put(AcceptedOut(act_id, applied))
