"""The host's configuration: flags over environment over defaults."""

import argparse

import pytest

from tablehost.host.config import HostConfig


def parse(argv: list[str]) -> HostConfig:
    parser = argparse.ArgumentParser()
    HostConfig.add_arguments(parser)
    return HostConfig.from_args(parser.parse_args(argv))


def test_defaults_stay_on_loopback_with_an_embedded_ray() -> None:
    config = parse([])
    assert (config.host, config.port, config.room_host, config.ray_address) == ("127.0.0.1", 50051, "127.0.0.1", None)


def test_turn_timeouts_come_per_game_from_flags_over_the_environment(monkeypatch) -> None:
    monkeypatch.setenv("TABLEHOST_TURN_TIMEOUTS", "bigtwo=9000")
    assert parse([]).turn_timeouts_ms == {"bigtwo": 9000}
    config = parse(["--turn-timeout", "bigtwo=1500"])
    assert config.lobby_config().game_options == {"bigtwo": {"turn_timeout_ms": 1500}}


def test_environment_sets_what_flags_leave_alone(monkeypatch) -> None:
    monkeypatch.setenv("TABLEHOST_PORT", "6000")
    monkeypatch.setenv("TABLEHOST_ROOM_PORTS", "40000-40010")
    monkeypatch.setenv("TABLEHOST_TOKEN_SECRET", "shared")
    config = parse([])
    room = config.lobby_config().room
    assert (config.port, room.port_min, room.port_max, room.token_secret) == (6000, 40000, 40010, b"shared")
    assert parse(["--port", "7000"]).port == 7000


def test_joining_a_cluster_makes_the_lobby_detached() -> None:
    assert parse(["--address", "10.0.0.1:6379"]).lobby_config().detached is True


@pytest.mark.parametrize("bad", [["--turn-timeout", "bigtwo"], ["--turn-timeout", "bigtwo=-5"]])
def test_bad_turn_timeouts_are_refused(bad: list[str]) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="GAME=MILLISECONDS"):
        parse(bad)


def test_a_bad_port_range_is_refused() -> None:
    with pytest.raises(SystemExit, match="LOW-HIGH"):
        parse(["--room-ports", "5-1"])


def test_room_settings_reach_the_lobby_and_its_rooms(monkeypatch) -> None:
    monkeypatch.setenv("TABLEHOST_TABLES_PER_ROOM", "40")
    monkeypatch.setenv("TABLEHOST_GAME_MODULES", "pkg.games:RULES")
    lobby = parse(["--rooms-per-cpu", "2", "--table-retention", "30", "--game-module", "other:GAME"]).lobby_config()
    assert (lobby.room.tables_per_room, lobby.rooms_per_cpu, lobby.table_retention_s) == (40, 2.0, 30.0)
    assert lobby.room.game_modules == ("pkg.games:RULES", "other:GAME")


def test_the_free_slot_reserve_defaults_to_a_quarter_of_a_room_and_never_below_two() -> None:
    assert parse([]).lobby_config().free_slots == 125
    assert parse(["--tables-per-room", "1"]).lobby_config().free_slots == 2
    assert parse(["--tables-per-room", "1", "--free-slots", "0"]).lobby_config().free_slots == 0


@pytest.mark.parametrize("bad", [["--tables-per-room", "0"], ["--rooms-per-cpu", "0"], ["--free-slots", "-1"],
                                 ["--max-waiting", "0"]])
def test_room_and_lobby_bounds_must_make_sense(bad: list[str]) -> None:
    with pytest.raises(SystemExit):
        parse(bad)


def test_game_modules_are_imported_from_the_folder_the_host_was_started_in(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    config = parse(["--game-module", "my_games.cards:RULES"])
    assert config.game_path == (str(tmp_path),)
    assert config.lobby_config().room.game_path == (str(tmp_path),)
