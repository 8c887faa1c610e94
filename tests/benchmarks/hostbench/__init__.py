"""The host benchmark ("rooms at tournament scale"), split by concern.

`tests/benchmarks/bench_host.py` is the command; this package is what it is made of:

- `procs`: what a process tree costs, read from /proc (PSS, CPU, threads, fds), and
  how busy the machine is apart from us.
- `children`: child processes started in their own session and ended by PID only,
  and the run's time budget.
- `stats`: latency histograms, percentiles and the straight-line fits behind the
  "per table" figures.
- `host`: one `tablehost serve` under test: start, Admin status, its process tree.
- `players` and `echo`: what runs inside the client processes (real SDK players;
  the bare grpc.aio echo floor); `worker` is their entry point.
- one module per scenario: `held_open`, `table_starts`, `lobby_burst`, `moves`, `peer`.
- `report` (the Markdown section of docs/benchmarks.md) and `plot` (docs/scaling.png).

Nothing here is collected by pytest (it collects only test_*.py).
"""

from __future__ import annotations

from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parents[1]
ROOT = BENCH_DIR.parents[1]
DOC = ROOT / "docs" / "benchmarks.md"
PLOT = ROOT / "docs" / "scaling.png"
# The Colyseus peer's harness lives in the shared folder beside the repository.
PEER_RUN = ROOT.parent / "shared" / "peers" / "colyseus" / "run.sh"
