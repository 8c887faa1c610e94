"""The move path's goals as bench_host.py computes them from a run's results: each
ratio from both sides of the same run, and the floor's own ceiling beside Colyseus
printed without a target (it is a bound, not a goal)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def goals():
    sys.path.insert(0, str(BENCHMARKS))
    try:
        from hostbench import goals as module
        yield module
    finally:
        sys.path.remove(str(BENCHMARKS))


RESULTS = {
    "moves": {"levels": [{
        "tables": 100,
        "server_cpu_ms_per_move": 1.2,
        "bots": {"moves_per_s": 900.0},
        "echo_acks": {"round_trips": 1000, "server_cpu_s": 0.4, "round_trips_per_s": 2100.0},
    }]},
    "peer": {"levels": [{"tables": 100, "moves_per_s": 3500.0}]},
    "lobby_burst": {"burst": {"seated": 10_000, "seats_per_s": 650.0},
                    "host_cpu_s": {"front door": 7.0, "lobby": 4.0, "rooms": 11.0}, "clients_cpu_s": 5.0},
}


def test_each_goal_is_the_ratio_of_both_sides_of_the_same_run(goals):
    found = goals.measures(RESULTS)
    assert found["server CPU per move ÷ echo + acks floor, 100 tables"].value == pytest.approx(3.0)
    assert found["moves/s ÷ Colyseus, 100 tables"].value == pytest.approx(900 / 3500)
    assert found["seat assignments per second, 10,000 joining at once"].value == 650.0
    assert not found["moves/s ÷ Colyseus, 100 tables"].meets_target()


def test_the_floors_ceiling_beside_colyseus_is_recorded_without_a_target_and_printed(goals):
    found = goals.measures(RESULTS)
    ceiling = found["echo + acks floor's round trips/s ÷ Colyseus's moves/s, 100 tables"]
    assert ceiling.value == pytest.approx(0.6)
    assert ceiling.target is None
    printed = goals.text(found)
    assert "echo + acks floor's round trips/s ÷ Colyseus's moves/s, 100 tables: 0.60 ×" in printed
    assert "moves/s ÷ Colyseus, 100 tables: 0.26 × (target ≥ 0.8" in printed


def test_the_cores_the_seating_goal_would_need_come_from_the_runs_cpu_per_seat(goals):
    found = goals.measures(RESULTS)
    cores = found["cores 5,000 seats/s would keep busy at this run's CPU per seat"]
    assert cores.value == pytest.approx((7 + 4 + 11 + 5) / 10_000 * 5000)
    assert "host 2.20 ms and clients 0.50 ms of CPU per seat" in cores.note
