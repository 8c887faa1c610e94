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

SLICE_S = 0.001  # how long it spins, or sleeps, between looks at its CPU time


def burn(share: float, stop: threading.Event) -> None:
    """Use `share` (0-1) of a core until `stop` is set: spin while this thread
    has had less CPU than `share` of the time since it started, sleep while it
    has had enough. A burner the scheduler holds back stays runnable until it
    has caught up, as the attackers (always runnable) do, so it takes what
    they took even from a crowded machine."""
    share = min(max(share, 0.0), 1.0)
    started, used = time.monotonic(), time.thread_time()
    while not stop.is_set():
        if time.thread_time() - used < share * (time.monotonic() - started):
            until = time.thread_time() + SLICE_S
            while time.thread_time() < until:
                pass
        else:
            stop.wait(SLICE_S)


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
