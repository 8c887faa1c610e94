"""What the metrics cost a move: the Prometheus operations a room performs for
each move (a counter increment and a latency observation), timed beside the
move itself through the room's real Table (commit, rules, views, deltas for
four seats) in the same run, on one core.

    .venv/bin/python tests/benchmarks/bench_metrics.py [--games 40]

Prints one JSON object: microseconds per move for the table and for its
metrics, and the metrics' share. A script, not a test (pytest collects only
test_*.py)."""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import time

import msgpack

from tablehost.actors.metrics import TableMetrics
from tablehost.actors.table import Table
from tablehost.games.bigtwo.game import RULES as BIGTWO
from tablehost.games.engine.fairness import TableSeed


async def table_moves(games: int) -> tuple[int, float]:
    """Moves made and seconds spent playing `games` games of Big Two through
    Table.commit, every seat subscribed and its outbox drained."""
    chooser = random.Random(7)
    moves, spent = 0, 0.0
    for game in range(games):
        table = Table(f"bench-{game}", BIGTWO, TableSeed.numbered(game), ["a", "b", "c", "d"], {})
        streams = [table.subscribe(seat, 0) for seat in range(4)]
        started = time.perf_counter()
        while not table.over:
            seat = BIGTWO.to_act(table.match.state)
            view = table.match.view(seat)
            action = chooser.choice(view["request"]["legal_actions"])
            table.commit(streams[seat], f"m{moves}", msgpack.packb(action))
            for stream in streams:
                stream.outbox.take_all()
            moves += 1
        spent += time.perf_counter() - started
        table.close("done")
    return moves, spent


def metric_operations(moves: int) -> float:
    """Seconds for what a move adds to the metrics, `moves` times."""
    metrics = TableMetrics.of("bench")
    started = time.perf_counter()
    for _ in range(moves):
        metrics.player_moves.inc()
        metrics.move_latency.observe(0.0003)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    args = parser.parse_args()
    moves, table_s = asyncio.run(table_moves(args.games))
    metrics_s = metric_operations(moves)
    per_move_us = table_s / moves * 1e6
    metrics_us = metrics_s / moves * 1e6
    print(json.dumps({"games": args.games, "moves": moves, "table_us_per_move": round(per_move_us, 1),
                      "metrics_us_per_move": round(metrics_us, 2),
                      "metrics_share_of_a_move": round(metrics_us / per_move_us, 4)}))


if __name__ == "__main__":
    main()
