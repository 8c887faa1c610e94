"""A table's open streams: one live stream per seat (a newer one replaces
the older, so two sessions of one seat cannot both act), its spectators,
each seat's message budgets (which outlive its streams: a new stream must
not refill them for a flooder), and since when no player has been there."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from tablehost.actors.budgets import ACKS_PER_COMMIT, FLOOD_COOLDOWN_S, SeatBudget
from tablehost.actors.log_budget import LogBudget
from tablehost.actors.metrics import TableMetrics
from tablehost.actors.outbound import CloseOut, Outbound, StreamEnd, record_size
from tablehost.actors.outbox import Outbox
from tablehost.actors.tokens import SPECTATOR_SEAT


@dataclass(eq=False)
class Subscriber:
    """One open stream: a seat's player, or a spectator (seat -1, with a
    budget of its own: a table has few spectator streams, and none can act)."""

    seat: int
    budget: SeatBudget
    outbox: Outbox[Outbound] = field(default_factory=lambda: Outbox(record_size))
    # What this stream provokes in the log (rejections, desyncs) is rate-limited.
    log_budget: LogBudget = field(default_factory=LogBudget)


class TableStreams:
    def __init__(self, rate: float, burst: float, metrics: TableMetrics) -> None:
        self.rate, self.burst = rate, burst
        self._metrics = metrics
        self.live: set[Subscriber] = set()
        self.spectators = 0
        self._budgets: dict[int, SeatBudget] = {}
        # Since when no player has had a stream open (monotonic seconds);
        # None while one has. A table nobody ever joins counts from its start.
        self.deserted_since: float | None = time.monotonic()
        # The seats that have opened a stream (this incarnation).
        self.seats_seen: set[int] = set()
        # Seats an administrator took from their players, with what they are told.
        self.removed: dict[int, str] = {}

    def attach(self, seat: int) -> Subscriber:
        """A new stream for `seat` (or a spectator); a seat's older stream
        ends (after what is queued for it) and what it still sends is ignored."""
        if seat == SPECTATOR_SEAT:
            subscriber = Subscriber(seat, SeatBudget(self.rate, self.burst))
            self.spectators += 1
        else:
            self._end(seat, CloseOut(f"replaced by a newer stream for seat {seat}", StreamEnd.REPLACED))
            budget = self._budgets.get(seat)
            if budget is None:
                budget = self._budgets[seat] = SeatBudget(self.rate, self.burst)
            subscriber = Subscriber(seat, budget)
            self.deserted_since = None
            if seat in self.seats_seen:
                self._metrics.reconnects.inc()
            self.seats_seen.add(seat)
        self.live.add(subscriber)
        return subscriber

    def detach(self, subscriber: Subscriber, over: bool) -> bool:
        """Forget a stream; False if it was not live. The last player's
        leaving a game not over starts the table's desertion."""
        if subscriber not in self.live:
            return False
        self.live.discard(subscriber)
        if subscriber.seat == SPECTATOR_SEAT:
            self.spectators -= 1
        elif not over:
            self._deserted_if_no_player()
        return True

    def take_seat(self, seat: int, details: str, over: bool) -> None:
        """An administrator took the seat: its stream ends with `details`."""
        self.removed[seat] = details
        self._end(seat, CloseOut(details, StreamEnd.REMOVED))
        if not over and self.deserted_since is None:
            self._deserted_if_no_player()

    def end_all(self, details: str, ending: StreamEnd) -> None:
        for subscriber in self.live:
            subscriber.outbox.put(CloseOut(details, ending))
        self.live.clear()

    @property
    def seated(self) -> int:
        return sum(1 for subscriber in self.live if subscriber.seat != SPECTATOR_SEAT)

    def cooling_down(self, seat: int) -> float:
        """Seconds until `seat` may open a stream again after its last one was
        ended for flooding (0: it may now)."""
        budget = self._budgets.get(seat)
        return 0.0 if budget is None else budget.cooling_down()

    def flood_ending(self, subscriber: Subscriber, commits: bool) -> CloseOut:
        """How a stream past its flood allowance ends: naming the budget it
        broke, commits or the other messages' (acks), four times larger."""
        again = (f" and this seat may open a stream again in {FLOOD_COOLDOWN_S:g} s"
                 if subscriber.seat != SPECTATOR_SEAT else "")
        if commits:
            budget = f"{self.rate:g} commits a second, {self.burst:g} at once"
        else:
            budget = (f"{self.rate * ACKS_PER_COMMIT:g} acks and other messages a second, "
                      f"{self.burst * ACKS_PER_COMMIT:g} at once")
        return CloseOut(f"this stream sent messages far over its budget ({budget}), so it is closed{again}",
                        StreamEnd.FLOODED)

    def _end(self, seat: int, ending: CloseOut) -> None:
        for older in [s for s in self.live if s.seat == seat]:
            self.live.discard(older)
            older.outbox.put(ending)

    def _deserted_if_no_player(self) -> None:
        if self.seated == 0:
            self.deserted_since = time.monotonic()
