"""Load test profiles (clients/loadprofile.py, read from TOML by
clients/loadprofile_toml.py, and their check against the games in
host/loadtest/settings.py), the command's bounds, and the report's
arithmetic (host/loadtest/report.py): histograms and series added up over
agents exactly. Pure and fast: no Ray, no host."""

from __future__ import annotations

import argparse
import random
from pathlib import Path
from typing import Any

import pytest

from tablehost.clients.bots import round_trip_histogram
from tablehost.clients.loadprofile import (
    Arrival,
    GameShare,
    LoadProfile,
    ProfileError,
    ThinkTime,
    plan_players,
    simple_profile,
    tables_per_game,
)
from tablehost.clients.loadprofile_toml import load_profile, parse_profile
from tablehost.games.registry import GameCatalog
from tablehost.host import config_flags
from tablehost.host.loadtest.report import (
    build_report,
    finished_tables,
    latency_ms,
    merged_histogram,
    merged_series,
    summary,
)
from tablehost.host.loadtest.settings import MAX_TABLES, add_loadtest_arguments, resolve_profile, settings_from_args

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "loadtest-profile.example.toml"


def refusal(data: dict[str, Any]) -> str:
    with pytest.raises(ProfileError) as raised:
        parse_profile(data, "day.toml")
    return str(raised.value)


BIGTWO = [{"name": "bigtwo"}]


# -- parsing -------------------------------------------------------------------------


def test_the_committed_example_profile_parses_and_checks_against_the_built_in_games() -> None:
    profile = resolve_profile(load_profile(EXAMPLE), GameCatalog.load())
    assert [(g.name, g.weight, g.seats, g.bot) for g in profile.games] == [
        ("bigtwo", 3.0, 4, "greedy"), ("duel", 1.0, 2, "random"), ("kingdoms", 1.0, 5, "rules")]
    assert profile.games[1].join_data == {"deck": "mage-basic"}
    assert (profile.arrival.rate, profile.arrival.ramp_s) == (20.0, 30.0)
    assert (profile.think.distribution, profile.think.median_ms, profile.think.max_ms) == ("lognormal", 800.0, 6000.0)
    assert profile.reconnects.after_moves == (1, 8) and profile.reconnects.away_ms == (300.0, 2500.0)
    assert profile.slow_readers.read_delay_ms == 40.0


def test_a_profile_with_only_a_game_is_the_simple_day() -> None:
    assert parse_profile({"games": BIGTWO}) == simple_profile("bigtwo")


@pytest.mark.parametrize(("data", "expected"), [
    ({}, "names no game"),
    ({"games": [{"weight": 2}]}, "[[games]] entry 1: has no name"),
    ({"games": BIGTWO, "arival": {}}, "unknown key 'arival'"),
    ({"games": [{"name": "bigtwo", "seat": 4}]}, "[[games]] entry 1: unknown key 'seat'"),
    ({"games": [{"name": "bigtwo", "weight": 0}]}, "weight must be above 0"),
    ({"games": [{"name": "bigtwo", "seats": 4.5}]}, "seats is a whole number, got the number 4.5"),
    ({"games": [{"name": "bigtwo"}, {"name": "bigtwo"}]}, "[[games]] 'bigtwo': appears twice"),
    ({"games": [{"name": "duel", "join_data": "mage"}]}, "join_data is a table"),
    ({"games": BIGTWO, "arrival": {"rate": -1}}, "[arrival]: rate must be at least 0"),
    ({"games": BIGTWO, "arrival": {"rate": True}}, "rate is a number, got a boolean"),
    ({"games": BIGTWO, "arrival": {"ramp_s": 10}}, "ramp_s needs a rate"),
    ({"games": BIGTWO, "think": {"distribution": "gaussian"}}, "distribution must be one of none, constant"),
    ({"games": BIGTWO, "think": {"distribution": "lognormal", "sigma": 1}}, "a lognormal think time needs median_ms"),
    ({"games": BIGTWO, "think": {"distribution": "constant", "median_ms": 5, "ms": 5}}, "unknown key 'median_ms'"),
    ({"games": BIGTWO, "think": {"distribution": "uniform", "low_ms": 9, "high_ms": 3}}, "low_ms (9) is above high_ms"),
    ({"games": BIGTWO, "think": {"distribution": "constant", "ms": 90_000}}, "ms must be at least 0 and at most 60000"),
    ({"games": BIGTWO, "reconnects": {"fraction": 0.1}}, "need after_moves = [low, high] and away_ms"),
    ({"games": BIGTWO, "reconnects": {"fraction": 1.5, "after_moves": [1, 2], "away_ms": [1, 2]}},
     "fraction must be at least 0 and at most 1"),
    ({"games": BIGTWO, "reconnects": {"fraction": 0.1, "after_moves": [5, 2], "away_ms": [1, 2]}},
     "after_moves is [low, high], got [5, 2]"),
    ({"games": BIGTWO, "reconnects": {"fraction": 0.1, "after_moves": [1], "away_ms": [1, 2]}},
     "after_moves is a pair [low, high], got an array of 1"),
    ({"games": BIGTWO, "slow_readers": {"fraction": 0.5}}, "slow readers need read_delay_ms"),
    ({"games": BIGTWO, "slow_readers": {"fraction": 0.5, "read_delay_ms": 5_000}}, "read_delay_ms must be"),
])
def test_a_bad_profile_is_refused_naming_the_file_and_the_key(data: dict[str, Any], expected: str) -> None:
    message = refusal(data)
    assert message.startswith("day.toml: ") and expected in message


def test_a_file_that_is_not_toml_is_refused_with_where(tmp_path: Path) -> None:
    path = tmp_path / "day.toml"
    path.write_text("[[games]]\nname = bigtwo\n")
    with pytest.raises(ProfileError, match=r"day.toml: not valid TOML: .*line 2"):
        load_profile(path)
    with pytest.raises(ProfileError, match="cannot read the profile"):
        load_profile(tmp_path / "missing.toml")


@pytest.mark.parametrize(("share", "expected"), [
    (GameShare("chess"), "unknown game 'chess'"),
    (GameShare("bigtwo", variant="turbo"), "bigtwo has no variant 'turbo'"),
    (GameShare("bigtwo", seats=3), "seats: bigtwo is played by 4 players, not 3"),
    (GameShare("duel", bot="rules"), "no bot 'rules'; choose from greedy, random"),
    (GameShare("duel", join_data={"deck": "no-such-deck"}), "[[games]] 'duel': join_data:"),
])
def test_a_profile_naming_what_the_games_do_not_have_is_refused(share: GameShare, expected: str) -> None:
    with pytest.raises(ProfileError) as raised:
        resolve_profile(LoadProfile(games=(share,)), GameCatalog.load())
    assert expected in str(raised.value)


def test_resolving_fills_in_each_games_usual_table_and_example_join_data() -> None:
    resolved = resolve_profile(LoadProfile(games=(GameShare("duel"), GameShare("kingdoms"))), GameCatalog.load())
    assert [(g.seats, g.join_data) for g in resolved.games] == [(2, {"deck": "mage-basic"}), (5, {})]


# -- the command's bounds --------------------------------------------------------------


def settings_for(argv: list[str]) -> Any:
    parser = argparse.ArgumentParser()
    config_flags.add_arguments(parser)
    add_loadtest_arguments(parser)
    return settings_from_args(parser.parse_args(["--target", "127.0.0.1:1", *argv]), None)


@pytest.mark.parametrize(("argv", "expected"), [
    (["--tables", str(MAX_TABLES + 1)], "--tables takes 1 to 5,000 tables, got 5,001"),
    (["--tables", "0"], "--tables takes 1 to 5,000"),
    (["--tables", "2", "--duration", "0"], "--duration takes more than 0"),
    (["--tables", "2", "--duration", "99999"], "at most 14400 seconds"),
    (["--tables", "2", "--games-per-table", "1000"], "--games-per-table takes 1 to 100"),
    (["--tables", "2", "--agents-per-node", "0"], "--agents-per-node takes 1 to 16"),
    (["--tables", "2", "--game", "chess"], "flags: [[games]] 'chess': unknown game 'chess'"),
    (["--tables", "2", "--game", "bigtwo", "--profile", str(EXAMPLE)], "--game and --profile both choose"),
    (["--tables", "200", "--duration", "30", "--profile", str(EXAMPLE)], "the last player arrives 53.0 s"),
])
def test_the_command_refuses_absurd_or_contradictory_runs_before_starting_anything(argv: list[str],
                                                                                   expected: str) -> None:
    with pytest.raises(SystemExit) as raised:
        settings_for(argv)
    assert str(raised.value).startswith("tablehost loadtest: ") and expected in str(raised.value)


def test_flags_alone_make_a_one_game_run_against_the_target(tmp_path: Path) -> None:
    settings = settings_for(["--tables", "3", "--game", "duel", "--games-per-table", "2", "--out", str(tmp_path)])
    assert settings.games_expected == 6 and settings.host_config is None and settings.out == tmp_path
    assert settings.profile.games == (GameShare("duel", 1.0, 2, "random", "", {"deck": "mage-basic"}),)


# -- planning players ------------------------------------------------------------------


def test_tables_are_shared_by_weight_and_add_up_exactly() -> None:
    profile = LoadProfile(games=(GameShare("a", 3, 4), GameShare("b", 1, 2), GameShare("c", 1, 5)))
    assert tables_per_game(profile, 200) == [120, 40, 40]
    assert tables_per_game(profile, 7) == [4, 2, 1]
    assert sum(tables_per_game(profile, 1)) == 1


def test_every_table_gets_a_full_set_of_players_in_a_seeded_order() -> None:
    profile = LoadProfile(games=(GameShare("a", 1, 4), GameShare("b", 1, 2)))
    players = plan_players(profile, 10, seed=3)
    assert len(players) == 5 * 4 + 5 * 2
    assert sorted(p.game for p in players) == [0] * 20 + [1] * 10
    assert [p.index for p in players] == list(range(30))
    assert players == plan_players(profile, 10, seed=3) != plan_players(profile, 10, seed=4)


def test_unresolved_seats_cannot_be_planned() -> None:
    with pytest.raises(ValueError, match="seats of bigtwo are not resolved"):
        plan_players(simple_profile("bigtwo"), 1)


def test_arrivals_ramp_up_then_keep_the_rate() -> None:
    assert Arrival().offsets(3) == [0.0, 0.0, 0.0]
    assert Arrival(rate=10).offsets(3) == [0.0, 0.1, 0.2]
    ramped = Arrival(rate=10, ramp_s=4).offsets(40)  # 20 players arrive during the ramp
    assert ramped == sorted(ramped) and ramped[0] == 0.0
    assert ramped[20] == pytest.approx(4.0) and ramped[30] == pytest.approx(5.0)
    gaps = [later - earlier for earlier, later in zip(ramped, ramped[1:])]
    assert gaps[1] > gaps[10] > gaps[19] and gaps[25] == pytest.approx(0.1)


def test_fractions_of_leaving_and_slow_players_are_drawn_per_player() -> None:
    profile = parse_profile({"games": [{"name": "bigtwo", "seats": 4}],
                             "reconnects": {"fraction": 0.25, "after_moves": [1, 3], "away_ms": [10, 20]},
                             "slow_readers": {"fraction": 0.5, "read_delay_ms": 30}})
    players = plan_players(profile, 250)
    assert 200 <= sum(p.leaves for p in players) <= 300
    assert 440 <= sum(p.read_delay_s == 0.03 for p in players) <= 560
    assert {p.read_delay_s for p in players} == {0.0, 0.03}
    after, away_s = profile.reconnects.draw(random.Random(1))
    assert 1 <= after <= 3 and 0.01 <= away_s <= 0.02


def test_think_times_follow_their_distribution_and_never_pass_the_cap() -> None:
    rng = random.Random(5)
    assert ThinkTime().sample_s(rng) == 0.0
    assert ThinkTime("constant", ms=250).sample_s(rng) == 0.25
    uniform = [ThinkTime("uniform", low_ms=10, high_ms=20).sample_s(rng) for _ in range(200)]
    assert 0.01 <= min(uniform) and max(uniform) <= 0.02
    capped = [ThinkTime("lognormal", median_ms=100, sigma=2, max_ms=300).sample_s(rng) for _ in range(500)]
    assert max(capped) == 0.3 and 0.07 < sorted(capped)[250] < 0.14


# -- the report ------------------------------------------------------------------------


def encoded(*micros: int) -> str:
    histogram = round_trip_histogram()
    for value in micros:
        histogram.record_value(value)
    return histogram.encode().decode()


def agent(node: str, pid: int, **fields: Any) -> dict[str, Any]:
    return {"node_id": node, "pid": pid, "players": 4, "players_finished": 4, "moves": 0, "histogram": "",
            "series": [], "tables": [], "error_messages": [], "cpu_s": 1.0, **fields}


def test_histograms_from_agents_add_up_to_the_percentiles_of_every_round_trip() -> None:
    fast = [1_000] * 98  # 98 round trips of 1 ms in one agent
    slow = [200_000] * 2  # 2 of 200 ms in another
    merged = merged_histogram([encoded(*fast), "", encoded(*slow)])
    figures = latency_ms(merged)
    assert figures["count"] == 100
    assert figures["p50"] == pytest.approx(1.0, rel=0.01) and figures["p99"] == pytest.approx(200.0, rel=0.01)
    assert latency_ms(merged_histogram([]))["p99"] == 0.0


def test_the_series_adds_agents_second_by_second_and_counts_each_table_at_its_first_end() -> None:
    agents = [
        agent("n1", 1, series=[{"second": 0, "moves": 5, "histogram": encoded(2_000)},
                               {"second": 2, "moves": 7, "histogram": encoded(4_000)}],
              tables=[["t1", 2, "e1", "bigtwo"]]),
        agent("n2", 2, series=[{"second": 0, "moves": 3, "histogram": encoded(8_000)}],
              tables=[["t1", 3, "e1", "bigtwo"], ["t2", 1, "e2", "bigtwo"]]),
    ]
    tables = finished_tables(agents)
    assert tables == {"t1": [2, "e1", "bigtwo", "n1"], "t2": [1, "e2", "bigtwo", "n2"]}
    series = merged_series(agents, tables)
    assert [(s["second"], s["moves"], s["games"], s["round_trips"]) for s in series] == [
        (0, 8, 0, 2), (1, 0, 1, 0), (2, 7, 1, 1)]
    assert series[0]["p99_ms"] == pytest.approx(8.0, rel=0.01) and series[1]["p50_ms"] == 0.0


def test_the_report_breaks_the_run_down_per_node_and_fails_on_any_error_or_unfinished_player() -> None:
    config = {"tables": 3, "games_per_table": 1}
    agents = [
        agent("n1", 11, moves=60, histogram=encoded(*[1_000] * 60), tables=[["t1", 1, "e1", "bigtwo"]]),
        agent("n1", 12, moves=40, histogram=encoded(*[3_000] * 40), tables=[["t2", 1, "e2", "bigtwo"]]),
        agent("n2", 21, moves=50, histogram=encoded(*[2_000] * 50), tables=[["t3", 2, "e2", "bigtwo"]]),
    ]
    host = {"tables_started_before": 10, "tables_started_after": 13,
            "rooms": [{"room_id": "room-1", "node_id": "n1", "endpoint": "e1", "pid": 5},
                      {"room_id": "room-2", "node_id": "n2", "endpoint": "e2", "pid": 6}]}
    report = build_report(config, agents, 10.0, host)
    assert report["ok"] is True
    totals = report["totals"]
    assert (totals["moves"], totals["moves_per_s"], totals["games_completed"], totals["games_expected"]) == (
        150, 15.0, 3, 3)
    assert (totals["agents"], totals["nodes"], totals["agent_cpu_s"]) == (3, 2, 3.0)
    assert totals["agent_cpu_ms_per_move"] == pytest.approx(20.0)
    nodes = {node["node_id"]: node for node in report["nodes"]}
    assert nodes["n1"]["agents"] == 2 and nodes["n1"]["pids"] == [11, 12] and nodes["n1"]["moves"] == 100
    assert nodes["n1"]["p99_ms"] == pytest.approx(3.0, rel=0.01) and nodes["n2"]["p50_ms"] == pytest.approx(2.0, rel=0.01)
    assert report["tables"]["by_room_node"] == {"n1": 1, "n2": 2}
    assert report["host"]["tables_started"] == 3
    assert summary(report)["moves"] == 150

    failed = {"node_id": "n3", "pid": 31, "players": 4, "errors": 4, "failure": "RayActorError: died"}
    broken = build_report(config, [*agents, failed], 10.0)
    assert broken["ok"] is False and broken["totals"]["errors"] == 4
    assert broken["totals"]["players_finished"] == 12 < broken["totals"]["players"] == 16
    assert broken["error_messages"][0] == "agent 31 on node n3: RayActorError: died"
    assert build_report(config, [agent("n1", 1, desyncs=1)], 1.0)["ok"] is False
