"""A budget of log lines, so what a client provokes (rejections, desyncs,
refused hellos) can never write the log faster than a few lines a second:
one flooding stream once wrote 969 MB of log in 20 s. Lines beyond the
budget are counted, and the next line written says how many were left out."""

from __future__ import annotations

import time
from typing import Callable

LINES_PER_PERIOD = 5
PERIOD_S = 10.0


class LogBudget:
    """At most `lines` lines per `period_s` for one source (a stream, a
    service). `take()` answers None for a line to leave out, else the number
    left out since the last line written (usually 0)."""

    __slots__ = ("lines", "period_s", "suppressed", "_clock", "_window_start", "_used")

    def __init__(
        self, lines: int = LINES_PER_PERIOD, period_s: float = PERIOD_S, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.lines, self.period_s, self._clock = lines, period_s, clock
        self.suppressed = 0
        self._window_start = clock()
        self._used = 0

    def take(self) -> int | None:
        now = self._clock()
        if now - self._window_start >= self.period_s:
            self._window_start, self._used = now, 0
        if self._used >= self.lines:
            self.suppressed += 1
            return None
        self._used += 1
        left_out, self.suppressed = self.suppressed, 0
        return left_out


def left_out_note(count: int) -> str:
    """The tail of a log line written after others were left out."""
    return f" ({count} similar lines left out)" if count else ""
