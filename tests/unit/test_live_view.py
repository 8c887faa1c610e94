"""The load test's live display (host/loadtest/live.py), drawn from agents'
progress as `tablehost loadtest` polls it: the headline's players and games,
and per node and in all the players playing and done, moves/s since the
last poll, round-trip p50/p99 from the agents' histograms added up, rejects,
desyncs, errors and agent CPU. Rendered to a string, its clock stubbed:
no Ray, no terminal."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from rich.console import Console

from tablehost.clients.bots import round_trip_histogram
from tablehost.clients.loaddriver import COUNTERS
from tablehost.host.loadtest import live
from tablehost.host.loadtest.live import LiveView

# Ray node ids as the agents report them; the display shows their first 8 characters.
NODE_A = "3c1f9e7a" + "5b" * 24
NODE_B = "d84e02b6" + "a7" * 24


class Clock:
    """time.monotonic as the display reads it, moved by the test."""

    def __init__(self, now: float) -> None:
        self.now = now

    def monotonic(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    stub = Clock(1_000.0)
    monkeypatch.setattr(live, "time", stub)
    return stub


def round_trips(*millis: float) -> str:
    histogram = round_trip_histogram()
    for value in millis:
        histogram.record_value(round(value * 1000))
    return histogram.encode().decode()


def progress(histogram: str = "", cpu_s: float = 0.0, **counts: int) -> dict[str, Any]:
    """One agent's progress() as the poll returns it."""
    return {**dict.fromkeys(COUNTERS, 0), **counts, "elapsed_s": 2.0, "histogram": histogram,
            "tables_seen": 0, "tables": [], "cpu_s": cpu_s}


def drawn(clock: Clock, nodes: list[str], polls: list[tuple[float, list, int]], games_expected: int = 20
          ) -> tuple[str, dict[str, list[str]]]:
    """The polls in turn (seconds after the one before, the agents'
    progress, games done), then the frame a console that is no terminal
    shows, the last, drawn as the display closes: its headline and its
    table's rows by first cell."""
    out = io.StringIO()
    console = Console(file=out, width=200, force_terminal=False, color_system=None)
    with LiveView(console, nodes, games_expected, duration_s=300) as view:
        for later_s, reports, games_done in polls:
            clock.now += later_s
            view.update(reports, games_done)
    lines = out.getvalue().splitlines()
    rows = {}
    for line in lines:
        cells = [cell.strip() for cell in re.split("[│┃]", line)[1:-1]]
        if cells and cells[0]:
            rows[cells[0]] = cells[1:]
    return lines[0], rows


HEADER = ["agents", "playing", "done", "moves/s", "p50 ms", "p99 ms", "rejects", "desyncs", "errors", "CPU s"]


def test_each_node_shows_its_players_rate_percentiles_and_trouble_and_the_last_row_all_of_them(clock: Clock) -> None:
    # Two agents a node; the second on B has not answered its first poll yet.
    nodes = [NODE_A, NODE_A, NODE_B, NODE_B]
    first = [
        progress(round_trips(*[2.0] * 97, 40.0, 40.0, 40.0), players=20, arrived=20, playing=12, players_finished=8,
                 moves=300, rejects=1, cpu_s=1.5),
        progress(round_trips(*[2.0] * 100), players=20, arrived=18, waiting=2, playing=12, players_finished=4,
                 moves=200, cpu_s=1.25),
        progress(round_trips(*[3.0] * 98, 40.0, 40.0), players=20, arrived=16, waiting=4, playing=12, players_finished=0,
                 moves=100, desyncs=1, errors=2, cpu_s=0.75),
        None,
    ]
    headline, rows = drawn(clock, nodes, [(2.0, first, 3)])

    assert headline == ("2 s of at most 300 s: games done 3 of 20; players 54 arrived of 60, 6 waiting, "
                        "36 playing, 12 done; 600 moves")
    assert rows["node"] == HEADER
    # moves/s: A's 500 moves and B's 100 in the 2 s since the display started.
    # p99: A's 3 slow round trips in 200 and B's 2 in 100 are more than their slowest 1 %.
    assert rows[NODE_A[:8]] == ["2", "24", "12", "250", "2.0", "40.0", "1", "0", "0", "2.8"]
    assert rows[NODE_B[:8]] == ["2", "12", "0", "50", "3.0", "40.0", "0", "1", "2", "0.8"]
    # Over all 300 round trips, 5 of 40 ms: p99 is 40 ms, and the median
    # falls among A's 197 of 2 ms.
    assert rows["all"] == ["4", "36", "12", "300", "2.0", "40.0", "1", "1", "2", "3.5"]


def test_moves_per_second_is_the_rate_since_the_last_poll_not_since_the_start(clock: Clock) -> None:
    nodes = [NODE_A, NODE_B]
    _, rows = drawn(clock, nodes, [
        (1.0, [progress(moves=100), progress(moves=50)], 0),
        (0.5, [progress(moves=400), progress(moves=50)], 1),  # A: 300 more in 0.5 s; B: stalled
    ])
    assert rows[NODE_A[:8]][3] == "600" and rows[NODE_B[:8]][3] == "0" and rows["all"][3] == "600"


def test_the_last_frame_counts_a_failed_agents_players_as_errors(clock: Clock) -> None:
    """The run's end is drawn from the agents' results, where an agent that
    failed (or never answered) is only its place and its players counted as
    errors: it has no moves, no histogram, no CPU of its own."""
    nodes = [NODE_A, NODE_B]
    finished = {**progress(round_trips(*[2.0] * 10), players=4, arrived=4, players_finished=4, moves=40, cpu_s=0.5),
                "node_id": NODE_A, "pid": 11, "series": [], "error_messages": []}
    failed = {"node_id": NODE_B, "pid": 21, "players": 4, "errors": 4, "failure": "RayActorError: the actor died"}
    headline, rows = drawn(clock, nodes, [(2.0, [finished, failed], 1)], games_expected=2)

    assert headline.startswith("2 s of at most 300 s: games done 1 of 2; players 4 arrived of 8")
    assert rows[NODE_B[:8]] == ["1", "0", "0", "0", "0.0", "0.0", "0", "0", "4", "0.0"]
    assert rows["all"] == ["2", "0", "4", "20", "2.0", "2.0", "0", "0", "4", "0.5"]
