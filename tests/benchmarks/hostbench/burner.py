"""A CPU burner: the control for an attack measured on the host's own machine.

Attackers run beside the host here (on a cluster they run elsewhere), so part of
what they do to the bots' latency is only their own CPU taken from the host's
cores. A burner uses the same CPU share doing nothing with the host: the bots'
latency beside it is what the machine's contention alone costs, and the attack's
cost to the host is read against it.
"""

from __future__ import annotations

import threading
import time
from typing import Any

PERIOD_S = 0.01  # busy for `share` of every period, asleep for the rest


def burn(share: float, stop: threading.Event) -> None:
    """Use `share` (0-1) of a core until `stop` is set: each period, spin until
    this thread has had its share of CPU (counted in CPU time, so a burner
    the scheduler holds back still takes what the attackers took), then sleep
    for what is left of the period."""
    busy_s = PERIOD_S * min(max(share, 0.0), 1.0)
    while not stop.is_set():
        started, used = time.monotonic(), time.thread_time()
        while time.thread_time() - used < busy_s:
            pass
        stop.wait(max(0.0, PERIOD_S - (time.monotonic() - started)))


class Burner:
    """`burn` on a thread of its own, between `start` and `stop` (a benchmark
    child run by hostbench.worker.between_go_and_stop)."""

    def __init__(self, share: float) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=burn, args=(share, self._stop), daemon=True)

    def start(self) -> None:
        self._thread.start()

    def finish(self) -> dict[str, Any]:
        self._stop.set()
        self._thread.join()
        return {}
