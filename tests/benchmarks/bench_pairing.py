"""Pairing benchmark: how long a tournament takes to pair a round of a large field.

    .venv/bin/python tests/benchmarks/bench_pairing.py [--players 1000] [--repeat 5] [--seed 1] [--out FILE]

A script, not a test (pytest collects only test_*.py). For each format it
builds a tournament of --players registered players, plays the rounds before
the one measured with random results (in process, through `Tournament`), and
times `Tournament.start_round()` for the measured round: what the tournament
actor waits for between two rounds (pairing, the standings order it pairs
by, the event). Each repeat replays the kept events into a fresh tournament
first (not timed), so every repeat pairs the same round from the same state.

- Swiss, rounds 1, 4 and 7 (2-seat tables; the target is 500 ms at 1,000 players);
- round robin, rounds 1 (the Berger schedule is made) and 2;
- table rounds of 4 seats, rounds 1, 4 and 7;
- elimination, rounds 1 and 2.

Prints a Markdown table of the median and the maximum over the repeats, and
writes every timing as JSON (--out, default a new file in the temp dir).
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tablehost.actors.tournament import GameRecord, Tournament, TournamentSpec

SWISS_TARGET_MS = 500.0

# (label, format, seats, rounds measured)
CASES = (
    ("Swiss", "swiss", 2, (1, 4, 7)),
    ("round robin", "round_robin", 2, (1, 2)),
    ("table rounds, 4 seats", "table_rounds", 4, (1, 4, 7)),
    ("elimination", "elimination", 2, (1, 2)),
)


def random_result(table_id: str, round_number: int, players: tuple[str, ...], rng: random.Random) -> GameRecord:
    """A random finishing order (a 2-seat draw now and then), scored as the
    host's games score: players beaten plus half the ones tied."""
    order = list(range(len(players)))
    rng.shuffle(order)
    ranks = [order.index(seat) for seat in range(len(players))]
    if len(players) == 2 and rng.random() < 0.1:
        ranks = [0, 0]
    points = [sum(1 for other in ranks if other > rank) + 0.5 * (ranks.count(rank) - 1) for rank in ranks]
    scores = [float(len(players) - rank) for rank in ranks]
    return GameRecord(table_id, round_number, players, tuple(points), tuple(ranks), tuple(scores),
                      (False,) * len(players))


def events_before(spec: TournamentSpec, players: int, round_number: int, seed: int) -> list[dict[str, Any]]:
    """The events of a tournament up to the start of `round_number`."""
    tournament = Tournament(spec)
    events = [tournament.register(f"player-{index:05d}") for index in range(players)]
    rng = random.Random(seed)
    for _ in range(round_number - 1):
        events.append(tournament.start_round())
        for table in tournament.pending_tables():
            recorded = tournament.record(random_result(table.table_id, table.round, table.players, rng))
            assert recorded is not None
            events.append(recorded)
    return events


def time_round(spec: TournamentSpec, events: list[dict[str, Any]], repeat: int) -> tuple[list[float], int]:
    """Milliseconds of each repeat's start_round, and the tables it paired."""
    timings, tables = [], 0
    for _ in range(repeat):
        tournament = Tournament.replay(spec, events)
        started = time.perf_counter()
        event = tournament.start_round()
        timings.append((time.perf_counter() - started) * 1000)
        assert event["type"] == "round_started", event
        tables = len(event["tables"])
    return timings, tables


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5, help="timed pairings per round")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None, help="where to write the JSON (default: the temp dir)")
    args = parser.parse_args(argv)

    rows: list[dict[str, Any]] = []
    print(f"Python {platform.python_version()} on {platform.machine()}; {args.players} players, "
          f"{args.repeat} repeats per round", flush=True)
    print()
    print("| format | round | tables | median ms | max ms |")
    print("|---|---:|---:|---:|---:|")
    for label, form, seats, rounds in CASES:
        spec = TournamentSpec("bench", "bench", form, seats, max(rounds) + 1, args.seed)
        for round_number in rounds:
            events = events_before(spec, args.players, round_number, args.seed)
            timings, tables = time_round(spec, events, args.repeat)
            row = {"format": form, "round": round_number, "players": args.players, "tables": tables,
                   "median_ms": statistics.median(timings), "max_ms": max(timings), "timings_ms": timings}
            rows.append(row)
            print(f"| {label} | {round_number} | {tables} | {row['median_ms']:.0f} | {row['max_ms']:.0f} |",
                  flush=True)
    swiss_max = max(row["max_ms"] for row in rows if row["format"] == "swiss")
    met = "met" if swiss_max <= SWISS_TARGET_MS else "NOT met"
    print()
    print(f"Swiss target <= {SWISS_TARGET_MS:.0f} ms per round at {args.players} players: {met} "
          f"(slowest {swiss_max:.0f} ms)")
    out = args.out or Path(tempfile.mkdtemp(prefix="bench_pairing-")) / "results.json"
    out.write_text(json.dumps({"python": platform.python_version(), "players": args.players,
                               "repeat": args.repeat, "seed": args.seed, "rows": rows}, indent=1))
    print(f"wrote {out}")
    return 0 if swiss_max <= SWISS_TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
