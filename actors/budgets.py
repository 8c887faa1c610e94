"""What a seat's streams may send: token buckets for commits and for
everything else, and the flood allowance past which a stream is ended."""

from __future__ import annotations

import time

# Every seat acks every change, and a table changes up to four times per
# commit of one seat: acks get four times the commit budget.
ACKS_PER_COMMIT = 4
# How long a seat whose stream was ended for flooding is refused new streams.
FLOOD_COOLDOWN_S = 2.0


class TokenBucket:
    """Flood control: `rate` messages a second, `burst` at once."""

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


class SeatBudget:
    """What one seat's streams may send, shared by its successive streams (a
    new stream, which replaces the old, must not refill it for a flooder):
    commits and other messages (acks) have separate budgets, so a client
    acking every delta of a fast table is never refused a move for it.

    A message over its budget is answered RATE_LIMITED while the seat's flood
    allowance (as large again as the commit budget) lasts. Past it, answering
    each message would cost the room as much as the flood does, so the stream
    is ended instead (RESOURCE_EXHAUSTED, and what the client had sent after
    is never read), and the seat's new streams are refused for
    FLOOD_COOLDOWN_S."""

    __slots__ = ("commits", "acks", "flood", "cooling_until")

    def __init__(self, rate: float, burst: float) -> None:
        self.commits = TokenBucket(rate, burst)
        self.acks = TokenBucket(rate * ACKS_PER_COMMIT, burst * ACKS_PER_COMMIT)
        self.flood = TokenBucket(rate, burst)
        self.cooling_until = 0.0

    def flooded(self) -> bool:
        """Count a message refused for its rate: True when it is past the flood
        allowance, and starts the seat's cooldown."""
        if self.flood.take():
            return False
        self.cooling_until = time.monotonic() + FLOOD_COOLDOWN_S
        return True

    def cooling_down(self) -> float:
        """Seconds until the seat may open a stream again after a flood (0: it may)."""
        return max(0.0, self.cooling_until - time.monotonic())
