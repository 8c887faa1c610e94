"""The host's configuration: flags over environment over defaults."""

import argparse

import pytest
import trustme

from tablehost.host import config_flags
from tablehost.host.config import HostConfig


def parse(argv: list[str]) -> HostConfig:
    parser = argparse.ArgumentParser()
    config_flags.add_arguments(parser)
    return config_flags.config_from_args(parser.parse_args(argv))


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
    monkeypatch.setenv("TABLEHOST_TOKEN_SECRET", "shared-" + "s" * 25)
    config = parse([])
    room = config.lobby_config().room
    assert (config.port, room.port_min, room.port_max, room.token_secret) == (6000, 40000, 40010, b"shared-" + b"s" * 25)
    assert parse(["--port", "7000"]).port == 7000


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


def test_a_token_secret_shorter_than_32_bytes_refuses_to_start(monkeypatch) -> None:
    monkeypatch.setenv("TABLEHOST_TOKEN_SECRET", "s" * 31)
    with pytest.raises(SystemExit, match="TABLEHOST_TOKEN_SECRET is 31 bytes; it must be at least 32"):
        parse([])
    with pytest.raises(ValueError, match="at least 32"):
        HostConfig(token_secret=b"short")


def test_the_deal_wait_comes_from_the_flag_or_the_environment_reaches_the_rooms_and_is_bounded(monkeypatch) -> None:
    assert parse([]).lobby_config().room.deal_wait_s == 3.0
    monkeypatch.setenv("TABLEHOST_DEAL_WAIT_S", "0")
    assert parse([]).lobby_config().room.deal_wait_s == 0.0
    assert parse(["--deal-wait", "1.5"]).lobby_config().room.deal_wait_s == 1.5
    for refused in ("-1", "61"):
        with pytest.raises(SystemExit, match="--deal-wait takes 0 to 60 seconds"):
            parse(["--deal-wait", refused])


def test_the_hello_timeout_comes_from_the_flag_or_the_environment_and_reaches_the_rooms(monkeypatch) -> None:
    assert parse([]).lobby_config().room.hello_timeout_s == 5.0
    monkeypatch.setenv("TABLEHOST_HELLO_TIMEOUT_S", "2.5")
    assert parse([]).lobby_config().room.hello_timeout_s == 2.5
    assert parse(["--hello-timeout", "0.5"]).lobby_config().room.hello_timeout_s == 0.5
    with pytest.raises(SystemExit, match="--hello-timeout"):
        parse(["--hello-timeout", "0"])


def test_the_run_id_the_host_makes_reaches_the_lobby_and_its_rooms() -> None:
    lobby = parse([]).lobby_config("0123456789abcdef")
    assert lobby.room.run_id == "0123456789abcdef"


def test_tls_files_are_read_as_pem_bytes_for_every_node(tmp_path, monkeypatch) -> None:
    authority = trustme.CA()
    served = authority.issue_cert("127.0.0.1")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    served.private_key_pem.write_to_path(str(key))
    served.cert_chain_pems[0].write_to_path(str(cert))
    room = parse(["--tls-cert", str(cert), "--tls-key", str(key)]).lobby_config().room
    assert room.tls_cert_pem == cert.read_bytes() and room.tls_key_pem == key.read_bytes()
    assert b"PRIVATE KEY" not in repr(room).encode()
    monkeypatch.setenv("TABLEHOST_TLS_CERT", str(cert))
    monkeypatch.setenv("TABLEHOST_TLS_KEY", str(key))
    assert parse([]).tls_cert_pem == cert.read_bytes()


@pytest.mark.parametrize("flags, message", [
    (["--tls-cert", "cert.pem"], "both --tls-cert and --tls-key"),
    (["--tls-cert", "missing.pem", "--tls-key", "missing.key"], "cannot use --tls-cert"),
])
def test_tls_flags_that_cannot_work_stop_the_host_at_its_start(flags, message, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit, match=message):
        parse(flags)


def test_a_certificate_that_does_not_match_its_key_stops_the_host(tmp_path) -> None:
    authority = trustme.CA()
    first, second = authority.issue_cert("127.0.0.1"), authority.issue_cert("127.0.0.1")
    first.cert_chain_pems[0].write_to_path(str(tmp_path / "cert.pem"))
    second.private_key_pem.write_to_path(str(tmp_path / "key.pem"))
    with pytest.raises(SystemExit, match="cannot use --tls-cert"):
        parse(["--tls-cert", str(tmp_path / "cert.pem"), "--tls-key", str(tmp_path / "key.pem")])


def test_an_embedded_host_keeps_its_tables_in_a_folder_of_its_own_run_unless_told() -> None:
    default = parse([])
    assert default.store.startswith("local:") and default.store_is_temporary
    assert parse([]).store != default.store  # a new folder per run
    told = parse(["--store", "local:/srv/tables"])
    assert told.store == "local:/srv/tables" and not told.store_is_temporary
    assert parse(["--store", "none"]).store is None
    on_a_cluster = parse(["--address", "10.0.0.1:6379"])
    assert on_a_cluster.store is None and not on_a_cluster.store_is_temporary


def test_the_tools_refuse_a_tls_ca_file_they_cannot_use(tmp_path) -> None:
    from tablehost.host.cli import main

    with pytest.raises(SystemExit, match="cannot read --tls-ca"):
        main(["status", "--target", "127.0.0.1:1", "--tls-ca", str(tmp_path / "missing.pem")])
    (tmp_path / "empty.pem").write_text("no certificate here")
    with pytest.raises(SystemExit, match="holds no PEM certificate"):
        main(["status", "--target", "127.0.0.1:1", "--tls-ca", str(tmp_path / "empty.pem")])


def test_rooms_advertise_a_host_or_a_variable_of_their_own_node(monkeypatch) -> None:
    from tablehost.actors.room_server import advertised_host

    room = parse(["--room-host", "0.0.0.0", "--advertise-host", "env:NODE_IP"]).lobby_config().room
    assert (room.bind_host, room.advertise_host) == ("0.0.0.0", "env:NODE_IP")
    monkeypatch.setenv("NODE_IP", "10.1.2.3")
    assert advertised_host(room.advertise_host, room.bind_host) == "10.1.2.3"
    assert advertised_host("", "127.0.0.1") == "127.0.0.1"
    assert advertised_host("tables.example.com", "0.0.0.0") == "tables.example.com"
    monkeypatch.delenv("NODE_IP")
    with pytest.raises(ValueError, match=r"\$NODE_IP, which is not set"):
        advertised_host(room.advertise_host, room.bind_host)


def _issue(authority: trustme.CA, address: str, folder, name: str) -> tuple[str, str]:
    served = authority.issue_cert(address)
    cert, key = folder / f"{name}-cert.pem", folder / f"{name}-key.pem"
    served.cert_chain_pems[0].write_to_path(str(cert))
    served.private_key_pem.write_to_path(str(key))
    return str(cert), str(key)


def test_each_room_node_reads_a_certificate_of_its_own_from_its_node(tmp_path, monkeypatch) -> None:
    from tablehost.actors.room_server import node_certificate

    authority = trustme.CA()
    door_cert, door_key = _issue(authority, "127.0.0.1", tmp_path, "door")
    node_cert, node_key = _issue(authority, "198.18.0.11", tmp_path, "node")
    room = parse(["--tls-cert", door_cert, "--tls-key", door_key, "--room-tls-cert", "env:NODE_CERT",
                  "--room-tls-key", "env:NODE_KEY"]).lobby_config().room
    assert (room.tls_cert_file, room.tls_key_file) == ("env:NODE_CERT", "env:NODE_KEY")
    monkeypatch.setenv("NODE_CERT", node_cert)
    monkeypatch.setenv("NODE_KEY", node_key)
    # What the room on that node serves: its node's pair, not the front door's.
    assert node_certificate(room.tls_cert_file, room.tls_key_file) == (open(node_cert, "rb").read(),
                                                                       open(node_key, "rb").read())
    assert node_certificate(node_cert, node_key)[0] == open(node_cert, "rb").read()
    monkeypatch.delenv("NODE_KEY")
    with pytest.raises(ValueError, match=r"\$NODE_KEY, which is not set on this node"):
        node_certificate(room.tls_cert_file, room.tls_key_file)
    with pytest.raises(ValueError, match="room certificate"):
        node_certificate(node_cert, door_key)  # not its key


@pytest.mark.parametrize("flags, message", [
    (["--room-tls-cert", "env:C"], "go together"),
    (["--room-tls-cert", "env:C", "--room-tls-key", "env:K"], "needs the front door on TLS too"),
])
def test_room_certificate_flags_that_cannot_work_stop_the_host(flags, message) -> None:
    with pytest.raises(SystemExit, match=message):
        parse(flags)


def test_metrics_and_log_format_come_from_flags_or_the_environment(monkeypatch) -> None:
    assert (parse([]).metrics_port, parse([]).log_format) == (None, "text")
    config = parse(["--metrics-port", "0", "--log-format", "json"])
    room = config.lobby_config().room
    assert (config.metrics_port, room.metrics, room.log_format) == (0, True, "json")
    monkeypatch.setenv("TABLEHOST_LOG_FORMAT", "xml")
    with pytest.raises(SystemExit, match="--log-format takes text or json"):
        parse([])
    with pytest.raises(SystemExit, match="--metrics-port takes a port"):
        parse(["--metrics-port", "70000"])
