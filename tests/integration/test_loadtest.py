"""`tablehost loadtest` through the real stack: the load driver alone and
its Ray agents against the session's host, and (slow) the command on a
simulated three-node cluster, its report checked against the host's own
counters."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import run

from tablehost.clients.bots import RandomBot
from tablehost.clients.loaddriver import DriverPlan, LoadDriver
from tablehost.clients.loadprofile import plan_players, simple_profile
from tablehost.clients.loadprofile_toml import parse_profile
from tablehost.games.registry import GameCatalog
from tablehost.host.loadtest.plot import plot_report
from tablehost.host.loadtest.run import drive_agents
from tablehost.host.loadtest.settings import LoadTestSettings, resolve_profile

pytestmark = pytest.mark.integration

CLUSTER_SCRIPT = Path(__file__).parent / "scripts" / "loadtest_cluster.py"

# Players who think, leave mid-game and come back, and read slowly.
RESTLESS_DAY = {
    "games": [{"name": "bigtwo", "seats": 4}],
    "think": {"distribution": "uniform", "low_ms": 1, "high_ms": 4},
    "reconnects": {"fraction": 0.5, "after_moves": [1, 3], "away_ms": [50, 200]},
    "slow_readers": {"fraction": 0.5, "read_delay_ms": 2},
}


def test_a_restless_day_of_big_two_finishes_every_game_with_every_view_hash_checked(host) -> None:
    profile = parse_profile(RESTLESS_DAY, "test")
    players = plan_players(profile, 3, seed=11)
    assert any(p.leaves for p in players) and any(p.read_delay_s for p in players)
    plan = DriverPlan(host.target, profile, tuple(players), games_per_table=2, start_at=time.time(), duration_s=90)
    result = run(LoadDriver(plan, [RandomBot]).run(), timeout=120)

    assert result["error_messages"] == [] and result["errors"] == 0
    assert (result["players"], result["players_finished"], result["games_played"]) == (12, 12, 24)
    assert len(result["tables"]) == 6  # three tables' players, two games each
    assert result["desyncs"] == 0 and result["gaps"] == 0 and result["rejects"] == 0
    # Every accepted move reaches all four seats as a delta whose hash is checked.
    assert result["moves"] > 0 and result["hashes_checked"] >= 4 * result["moves"]
    assert result["leaves"] >= 1 and result["reconnects"] >= result["leaves"]
    assert sum(second["moves"] for second in result["series"]) == result["moves"]
    assert [second["second"] for second in result["series"]] == list(range(len(result["series"])))


def test_load_agents_in_ray_play_every_table_and_the_report_agrees_with_the_host(host, tmp_path: Path) -> None:
    profile = resolve_profile(simple_profile("bigtwo"), GameCatalog.load())
    settings = LoadTestSettings(
        target=host.target, ray_address=None, tables=4, games_per_table=1, duration_s=90, profile=profile,
        profile_source="flags", agents_per_node=2, out=tmp_path, show_progress=False, seed=7,
    )
    report = run(drive_agents(settings, host.target), timeout=180)

    totals = report["totals"]
    assert report["ok"], report["error_messages"]
    assert (totals["players"], totals["players_finished"], totals["games_completed"]) == (16, 16, 4)
    assert totals["desyncs"] == 0 and totals["errors"] == 0 and totals["hashes_checked"] >= 4 * totals["moves"] > 0
    # The players ran in two agent processes of the session's Ray, not in this one.
    pids = [pid for node in report["nodes"] for pid in node["pids"]]
    assert totals["agents"] == 2 and len(set(pids)) == 2 and os.getpid() not in pids
    assert totals["agent_cpu_s"] > 0 and totals["p99_ms"] >= totals["p50_ms"] > 0
    # The host counted the same tables: started over the run, served by its rooms.
    assert report["host"]["tables_started"] == 4
    assert sum(report["tables"]["by_room_node"].values()) == 4
    assert sum(second["moves"] for second in report["series"]) == totals["moves"]
    plot_report(report, tmp_path / "loadtest.png")
    assert (tmp_path / "loadtest.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_on_a_three_node_cluster_agents_and_rooms_spread_and_the_totals_match_the_hosts_counters(tmp_path) -> None:
    """The command itself, joined to a simulated cluster (its own process:
    the session shares one Ray), against a host joined to it too."""
    finished = subprocess.run([sys.executable, str(CLUSTER_SCRIPT), "--tables", "20", "--out", str(tmp_path)],
                              capture_output=True, text=True, timeout=540)
    assert finished.returncode == 0, finished.stderr[-4000:]
    outcome = json.loads(finished.stdout.strip().splitlines()[-1])
    report, snapshot = outcome["report"], outcome["host"]
    totals = report["totals"]

    assert outcome["cluster_nodes"] == 3 and outcome["loadtest_exit_code"] == 0, report["error_messages"]
    assert report["ok"] and totals["desyncs"] == 0 and totals["errors"] == 0
    assert (totals["games_completed"], totals["players_finished"], totals["players"]) == (20, 80, 80)
    # Every move reached the four seats of its table with its hash checked,
    # as a delta or within the first snapshot of a seat that connected after
    # its table's first moves (which is why the first snapshots do not add
    # one check a player on top: a run had 12 fewer than that).
    assert totals["hashes_checked"] >= 4 * totals["moves"] > 0
    # One agent on each node; the rooms on several nodes served the tables.
    assert totals["agents"] == 3 and len({node["node_id"] for node in report["nodes"]}) == 3
    rooms_used = {room["node_id"] for room in snapshot["rooms"] if room["games_hosted"] > 0}
    assert len(rooms_used) >= 2
    assert sum(report["tables"]["by_room_node"].values()) == 20 and len(report["tables"]["by_room_node"]) >= 2
    # What the report says against what the host counted itself.
    assert snapshot["lobby"]["tables_started"] == totals["games_completed"] == report["host"]["tables_started"]
    assert sum(room["games_hosted"] for room in snapshot["rooms"]) == totals["games_completed"]
    assert sum(room["tables_failed"] for room in snapshot["rooms"]) == 0
    # ... and against the rooms' Prometheus counters, scraped as Prometheus would.
    metrics = snapshot["metrics"]
    assert metrics["tablehost_games_finished_total{game=bigtwo}"] == totals["games_completed"]
    assert metrics["tablehost_moves_total{game=bigtwo,kind=player}"] == totals["moves"]
    assert metrics["tablehost_move_latency_seconds_count{game=bigtwo}"] == totals["moves"]
    assert metrics.get("tablehost_desyncs_total{game=bigtwo}", 0) == 0
