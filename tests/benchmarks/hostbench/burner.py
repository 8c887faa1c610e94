"""A CPU burner: the control for an attack measured on the host's own machine.

Attackers run beside the host here (on a cluster they run elsewhere), so part of
what they do to the bots' latency is only their own CPU taken from the host's
cores. A burner uses the same CPU share doing nothing with the host: the bots'
latency beside it is what the machine's contention alone costs, and the attack's
cost to the host is read against it.
"""

from __future__ import annotations

import json
import sys
import threading
import time

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


def burn_on_signal(share: float) -> int:
    """As a benchmark child: ready, then burn from a "go" line on stdin until the next
    line, and print the CPU seconds and wall seconds it burnt for."""
    print(json.dumps({"ready": True}), flush=True)
    sys.stdin.readline()
    stop = threading.Event()
    cpu_started, wall_started = time.process_time(), time.monotonic()
    burning = threading.Thread(target=burn, args=(share, stop), daemon=True)
    burning.start()
    sys.stdin.readline()
    stop.set()
    burning.join()
    print(json.dumps({"cpu_s": round(time.process_time() - cpu_started, 3),
                      "wall_s": round(time.monotonic() - wall_started, 3)}), flush=True)
    return 0
