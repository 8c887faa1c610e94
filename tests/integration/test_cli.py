"""The `tablehost` command as a user runs it: a second front door joining
the running cluster, bots with a JSON summary, a person playing from
piped input (deadlines as the seconds left, Duel's targets from their
side), tournaments in the format that fits their game, a refused request
told in one line, a clean stop on SIGTERM, and a host's logs as JSON objects."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import grpc
import psutil
import pytest
import ray
from ray_processes import wait_for
from conftest import admin_token
from support import sockets_beyond_loopback

from tablehost.v1 import admin_pb2, admin_pb2_grpc

pytestmark = [pytest.mark.integration, pytest.mark.slow]

TABLEHOST = [sys.executable, "-m", "tablehost.host.cli"]
ROOT = Path(__file__).resolve().parents[2]
# The session's host loads the test game; the tools are told of it the same way.
TRIO = ["--game-module", "tests.testgames.trio:RULES"]
# A deadline shown as the host sends it (epoch milliseconds), not as seconds left.
EPOCH_MS = re.compile(r"\d{10,}")


def wait_for_line(process: subprocess.Popen, prefix: str, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if line.startswith(prefix):
            return line.strip()
        if not line and process.poll() is not None:
            break
    raise AssertionError(f"no line starting {prefix!r} within {timeout}s (exit {process.poll()})")


def test_serve_joins_the_cluster_bots_finish_and_sigterm_stops_it(host) -> None:
    address = ray.get_runtime_context().gcs_address
    serve = subprocess.Popen(
        TABLEHOST + ["serve", "--port", "0", "--address", address],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    try:
        listening = wait_for_line(serve, "listening on ", 60)
        target = listening.removeprefix("listening on ")
        assert target.startswith("127.0.0.1:")
        bots = subprocess.run(
            TABLEHOST + ["bots", "--target", target, "--game", "bigtwo", "--tables", "2", "--json"],
            capture_output=True, text=True, timeout=120,
        )
        summary = json.loads(bots.stdout.strip().splitlines()[-1])
        serve.send_signal(signal.SIGTERM)
        assert serve.wait(30) == 0
    finally:
        if serve.poll() is None:
            serve.kill()
    assert bots.returncode == 0, bots.stderr
    assert summary["games_completed"] == 2 and summary["desyncs"] == 0 and summary["errors"] == 0
    assert summary["moves"] > 0 and summary["p50_ms"] > 0 and summary["p99_ms"] >= summary["p50_ms"]
    # the cluster's lobby outlived the second front door
    assert host.lobby("status").tables_started >= 2


def test_a_person_plays_bigtwo_in_the_terminal_from_piped_input(host) -> None:
    moves = "garbage\n" + "1\n" * 200  # one bad line, then always the first legal action
    played = subprocess.run(
        TABLEHOST + ["play", "bigtwo", "--target", host.target],
        input=moves, capture_output=True, text=True, timeout=120,
        env={**os.environ, "COLUMNS": "100"},
    )
    assert played.returncode == 0, played.stderr
    assert "final scores" in played.stdout
    assert "your hand" in played.stdout
    assert re.search(r"your move \[\d+ s left\]", played.stdout) and re.search(r"to act, \d+ s left", played.stdout)
    assert not EPOCH_MS.search(played.stdout)


def test_a_person_plays_duel_seeing_the_seconds_left_and_every_target_from_their_side(host) -> None:
    played = subprocess.run(
        TABLEHOST + ["play", "duel", "--target", host.target],
        input="1\n" * 300, capture_output=True, text=True, timeout=300,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert played.returncode == 0, played.stderr
    assert "final scores" in played.stdout
    assert re.search(r"timer: your turn, \d+ s left", played.stdout)
    assert re.search(r"your move \[\d+ s left\]", played.stdout)
    assert not EPOCH_MS.search(played.stdout)
    assert "hero power Fireblast -> their hero" in played.stdout
    assert not re.search(r"hero [01]\b|-> p[01]", played.stdout)


def tablehost(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*TABLEHOST, *arguments], capture_output=True, text=True, timeout=300, cwd=ROOT,
                          stdin=subprocess.DEVNULL)


def organiser_token(host) -> str:
    """A token the operator would issue (`tablehost organiser issue`): creating a tournament needs one."""
    from tablehost.actors.store.event_log import open_event_log
    from tablehost.host.organisers import OrganiserRegistry, now_ms

    registry = OrganiserRegistry(open_event_log(host.host.config.store))
    return registry.issue(host.host.config.token_secret, "cli tests", 24 * 3600 * 1000, now_ms())[0]


def test_tournaments_take_the_format_that_fits_their_games_table(host) -> None:
    token = organiser_token(host)
    for game, fitting in (("bigtwo", "table_rounds"), ("duel", "swiss")):
        created = tablehost("tournament", "create", "--target", host.target, "--game", game, "--organiser-token", token,
                            "--start-within", "60")
        assert created.returncode == 0, created.stderr
        tournament_id = json.loads(created.stdout)["tournament_id"]
        shown = tablehost("tournament", "status", tournament_id, "--target", host.target, "--json")
        assert json.loads(shown.stdout)["format"] == fitting
    simulated = tablehost("tournament", "simulate", "--target", host.target, "--game", "bigtwo", "--players", "8",
                          "--rounds", "1", "--no-progress", "--organiser-token", token)
    assert simulated.returncode == 0, simulated.stderr[-3000:]
    summary = json.loads(simulated.stdout.strip().splitlines()[-1])
    assert summary["format"] == "table_rounds" and summary["state"] == "finished" and summary["games"] == 2


def test_a_request_the_host_refuses_is_told_in_one_line_with_its_reason(host) -> None:
    token = organiser_token(host)
    created = json.loads(tablehost("tournament", "create", "--target", host.target, "--organiser-token", token,
                                   "--start-within", "60").stdout)
    refusals = {
        "tournament start: PERMISSION_DENIED: ": tablehost(
            "tournament", "start", created["tournament_id"], "--key", "not-the-key", "--target", host.target),
        "tournament simulate: INVALID_ARGUMENT: bigtwo": tablehost(
            "tournament", "simulate", "--target", host.target, "--game", "bigtwo", "--format", "swiss",
            "--players", "4", "--organiser-token", token),
        "play: INVALID_ARGUMENT: bigtwo has no variant 'tiny'": tablehost(
            "play", "bigtwo", "--variant", "tiny", "--target", host.target),
        "bots: INVALID_ARGUMENT: bigtwo has no variant 'tiny'": tablehost(
            "bots", "--game", "bigtwo", "--variant", "tiny", "--target", host.target),
    }
    for said, ran in refusals.items():
        assert ran.returncode == 1, ran.stderr
        (line,) = ran.stderr.splitlines()
        assert line.startswith(f"tablehost {said}"), line


def test_bots_save_their_games_and_tablehost_verify_checks_every_one(host, tmp_path: Path) -> None:
    folder = tmp_path / "games"
    bots = tablehost("bots", "--target", host.target, "--game", "duel", "--tables", "2", "--bot", "greedy",
                     "--record-dir", str(folder), "--json")
    assert bots.returncode == 0, bots.stderr
    saved = sorted(folder.glob("*.json"))
    assert len(saved) == 4, "one file per bot"
    verified = tablehost("verify", *map(str, saved))
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert [line.split()[0] for line in verified.stdout.splitlines()] == ["verified"] * 4


def test_bots_play_any_registered_game_at_its_table_size_with_join_data(host) -> None:
    bots = subprocess.run(
        TABLEHOST + ["bots", "--target", host.target, "--game", "trio", *TRIO, "--join-data", '{"league": "a"}',
                     "--tables", "2", "--json"],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )
    assert bots.returncode == 0, bots.stderr
    summary = json.loads(bots.stdout.strip().splitlines()[-1])
    assert summary["game"] == "trio" and summary["bots_expected"] == summary["bots_finished"] == 6
    assert summary["games_completed"] == 2 and summary["errors"] == 0 and summary["moves"] > 0


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--game", "trio"], "unknown game 'trio'; choose from bigtwo"),
        (["--game", "bigtwo", "--seats", "3"], "bigtwo is played by 4 players, not 3"),
        (["--game", "bigtwo", "--bot", "clever"], "no bot 'clever'; choose from greedy, random"),
        (["--game", "trio", *TRIO, "--bot", "greedy"], "no bot 'greedy'; choose from random"),
        (["--join-data", "[1]"], "--join-data is a JSON object"),
    ],
)
def test_bots_refuse_a_game_seat_count_or_bot_they_cannot_play_with_the_choices(
    arguments: list[str], message: str
) -> None:
    refused = subprocess.run(TABLEHOST + ["bots", "--target", "127.0.0.1:1", *arguments],
                             capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert refused.returncode == 1 and message in refused.stderr


def test_a_person_plays_a_game_without_a_presenter_at_a_table_of_its_size(host) -> None:
    """The generic presenter: the view's keys, actions by number, "seat N acted"."""
    played = subprocess.run(
        TABLEHOST + ["play", "trio", "--target", host.target, *TRIO, "--join-data", '{"league": "b"}'],
        input="pick\n" + "1\n" * 20, capture_output=True, text=True, timeout=120, cwd=ROOT,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert played.returncode == 0, played.stderr
    assert "seating random, random bots" in played.stdout
    assert "1. pick n=1" in played.stdout and "type the number of an action" in played.stdout
    assert "(you) acted: " in played.stdout and "pick\ntype the number of an action" in played.stdout
    assert "final scores" in played.stdout


def test_the_demo_narrates_a_big_two_game_through_a_host_of_its_own() -> None:
    """The README's first command (with a free port and no thinking time)."""
    demo = subprocess.run(TABLEHOST + ["demo", "--port", "0", "--pace", "0"],
                          capture_output=True, text=True, timeout=180, env={**os.environ, "COLUMNS": "200"})
    assert demo.returncode == 0, demo.stderr
    lines = demo.stdout.splitlines()
    assert lines[0].startswith("listening on 127.0.0.1:") and lines[1].startswith("table bigtwo-")
    # The deal is the log's first change (#1): the table is watched from before it.
    assert re.match(r"#[01] +seat \d holds 3♣ and leads$", lines[2]), lines[2]
    assert " plays 3♣" in lines[3] and lines[-1].startswith("game over: seat ")


def _with_admin_token() -> dict[str, str]:
    return {**os.environ, "TABLEHOST_ADMIN_TOKEN": admin_token()}


def test_status_shows_an_operator_the_rooms_per_node_and_the_queues(host) -> None:
    as_json = subprocess.run(TABLEHOST + ["status", "--target", host.admin_target, "--json"],
                             capture_output=True, text=True, timeout=60, env=_with_admin_token())
    assert as_json.returncode == 0, as_json.stderr
    status = json.loads(as_json.stdout)
    rooms = [room for node in status["nodes"] for room in node["rooms"]]
    assert rooms and all(room["capacity"] == 300 and room["endpoint"].startswith("127.0.0.1:") for room in rooms)
    assert int(status["free_slots"]) == sum(room["capacity"] - room["tables"] for room in rooms if room["state"] == "ready")
    for_people = subprocess.run(TABLEHOST + ["status", "--target", host.admin_target],
                                capture_output=True, text=True, timeout=60, env={**_with_admin_token(), "COLUMNS": "160"})
    assert for_people.returncode == 0 and "rooms per node" in for_people.stdout
    assert all(room["room_id"] in for_people.stdout for room in rooms)


def test_status_of_a_host_that_is_not_there_fails_with_its_reason() -> None:
    failed = subprocess.run(TABLEHOST + ["status", "--target", "127.0.0.1:1"], capture_output=True, text=True, timeout=60,
                            env=_with_admin_token())
    assert failed.returncode == 1 and "UNAVAILABLE" in failed.stderr


def test_status_without_an_admin_token_says_how_to_get_one(tmp_path) -> None:
    environment = {name: value for name, value in os.environ.items() if name != "TABLEHOST_ADMIN_TOKEN"}
    failed = subprocess.run(TABLEHOST + ["status", "--token-file", str(tmp_path / "none")], capture_output=True,
                            text=True, timeout=60, env=environment)
    assert failed.returncode != 0 and "no admin token" in failed.stderr and "tablehost admin-token" in failed.stderr


def test_one_table_per_room_gives_each_table_a_process_of_its_own_and_idle_rooms_are_released() -> None:
    """The isolation setting, on a host with an embedded Ray of its own: three
    tables need rooms beyond the reserve of two, each room holds one table and
    is a process of its own; once the games are over, the rooms beyond one per
    CPU and the reserve of two free slots are released. The host is watched
    through its admin API while the games run and settle (when the third room
    is ready depends on the machine: its table may have taken a room the first
    games left, so the test checks what holds either way).
    Started as a user would, without the loopback setting in its environment:
    the command keeps its Ray's every socket on 127.0.0.1 itself. Its tables
    are kept in a store folder of its own, deleted when it stops."""
    temporary = Path(tempfile.mkdtemp(prefix="th-"))  # short: Ray's socket paths live under it too
    # With no admin secret, as a user starts it: the host makes one up and writes a token.
    environment = {name: value for name, value in os.environ.items()
                   if name not in ("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "TABLEHOST_ADMIN_SECRET")}
    environment["TMPDIR"] = str(temporary)
    token_file = temporary / "admin" / "token"
    # Its status read fresh (not the default snapshot of up to 1 s): the test
    # watches rooms that live for a moment.
    serve = subprocess.Popen(TABLEHOST + ["serve", "--port", "0", "--tables-per-room", "1", "--idle-release", "1",
                                          "--admin-token-file", str(token_file), "--status-interval", "0.05"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=environment)
    bots: subprocess.Popen | None = None
    seen: list[admin_pb2.HostStatus] = []

    def watch(channel: grpc.Channel, done: Callable[[admin_pb2.HostStatus], bool]) -> bool:
        seen.append(admin_pb2_grpc.AdminStub(channel).Status(
            admin_pb2.StatusRequest(), metadata=(("authorization", f"Bearer {token}"),), timeout=30))
        return done(seen[-1])

    try:
        target = wait_for_line(serve, "listening on ", 90).removeprefix("listening on ")
        admin_target = wait_for_line(serve, "admin on ", 10).removeprefix("admin on ")
        told = wait_for_line(serve, "no TABLEHOST_ADMIN_SECRET", 10)
        token = token_file.read_text().strip()
        token_mode = token_file.stat().st_mode & 0o777
        with grpc.insecure_channel(admin_target) as channel:
            bots = subprocess.Popen(TABLEHOST + ["bots", "--target", target, "--tables", "3", "--json"],
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            wait_for(lambda: watch(channel, lambda _: bots.poll() is not None), 120, "three games played")
            processes, outside = sockets_beyond_loopback(psutil.Process(serve.pid))
            stores_while_serving = list((temporary / "tablehost").iterdir())
            wait_for(lambda: watch(channel, lambda status: status.rooms <= 2), 60, "idle rooms released")
        serve.send_signal(signal.SIGTERM)
        assert serve.wait(30) == 0
    finally:
        for process in (serve, bots):
            if process is not None and process.poll() is None:
                process.kill()
    assert json.loads(bots.stdout.read().strip().splitlines()[-1])["games_completed"] == 3
    assert str(token_file) in told and token_mode == 0o600 and admin_target != target
    assert processes > 3 and not outside, outside
    assert len(stores_while_serving) == 1 and not list((temporary / "tablehost").iterdir())
    shutil.rmtree(temporary, ignore_errors=True)
    rooms = [room for status in seen for node in status.nodes for room in node.rooms]
    assert rooms and all(room.capacity == 1 and room.tables <= 1 for room in rooms)
    # Each room is a process of its own: no pid serves two rooms, and rooms
    # beyond the reserve's two were started once the first tables took its slots.
    pids = {room.room_id: room.pid for room in rooms if room.state == "ready"}
    assert len(set(pids.values())) == len(pids) >= 3, pids
    assert seen[-1].tables_started == 3
    assert seen[-1].rooms == 2 and seen[-1].free_slots == 2


# A line the host wrote in the text format (actors/log_format.py's TEXT_FORMAT).
TEXT_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} tablehost\.")
# What Ray itself writes into each worker's output: which job and actor it runs.
RAY_MARKER = re.compile(r"^:(job_id|actor_name|task_name):")


def json_lines(path: Path, *, only_ours: bool) -> list[dict]:
    """The JSON objects of one process's log, each checked for the fields
    every line has. No line of the host's may be text; with `only_ours`,
    no line but Ray's markers may be anything else either (without it, what
    Ray itself prints is let through: a front door's and the lobby's output
    carry Ray's notices and deprecation warnings)."""
    objects = []
    for line in path.read_text().splitlines():
        assert not TEXT_LINE.match(line), f"{path.name}: a text line: {line}"
        if line.startswith("{"):
            objects.append(json.loads(line))
            assert {"time", "level", "logger", "message"} <= objects[-1].keys(), line
            assert objects[-1]["time"].endswith("Z"), line
        else:
            assert not only_ours or RAY_MARKER.match(line), f"{path.name}: not a JSON object: {line}"
    return objects


def logs_by_actor(logs: Path) -> dict[str, list[Path]]:
    """Each Ray worker's stderr file under the actor it ran, as Ray marks it."""
    actors: dict[str, list[Path]] = {}
    for path in sorted(logs.glob("worker-*.err")):
        names = re.findall(r"^:actor_name:(\w+)$", path.read_text(), re.MULTILINE)
        if names:
            actors.setdefault(names[0], []).append(path)
    return actors


def test_serve_with_json_logs_writes_json_objects_from_its_front_door_lobby_and_rooms() -> None:
    """`--log-format json` on a host with an embedded Ray of its own, whose
    workers' output Ray keeps under TMPDIR: after a game of bots, the front
    door's stderr, the lobby's and the rooms' hold the host's lines as JSON
    objects, and every line the room wrote about the table carries its id,
    with the seq where the event has one."""
    temporary = Path(tempfile.mkdtemp(prefix="th-"))  # short: Ray's socket paths live under it too
    environment = {**os.environ, "TMPDIR": str(temporary)}
    front_door = temporary / "serve.err"
    with front_door.open("w") as stderr:
        serve = subprocess.Popen(TABLEHOST + ["serve", "--port", "0", "--log-format", "json"],
                                 stdout=subprocess.PIPE, stderr=stderr, text=True, env=environment)
    try:
        target = wait_for_line(serve, "listening on ", 90).removeprefix("listening on ")
        bots = subprocess.run(TABLEHOST + ["bots", "--target", target, "--tables", "1", "--json"],
                              capture_output=True, text=True, timeout=120)
        serve.send_signal(signal.SIGTERM)
        assert serve.wait(30) == 0
    finally:
        if serve.poll() is None:
            serve.kill()
    summary = json.loads(bots.stdout.strip().splitlines()[-1])
    assert summary["games_completed"] == 1 and summary["reconnects"] == 0 and summary["moves"] > 0
    actors = logs_by_actor(temporary / "ray" / "session_latest" / "logs")

    door = json_lines(front_door, only_ours=False)
    assert door[-1]["logger"] == "tablehost.host" and door[-1]["message"] == "host stopped"
    lobby = [line for path in actors["LobbyActor"] for line in json_lines(path, only_ours=True)]
    assert any(line["logger"] == "tablehost.lobby" and " started in room " in line["message"] for line in lobby)
    # Stopping the host releases its rooms through the lobby: none is taken for dead.
    assert not any(" is gone " in line["message"] for line in lobby)
    rooms = [line for path in actors["RoomActor"] for line in json_lines(path, only_ours=True)]
    about_tables = [line for line in rooms if "table_id" in line]
    (table_id,) = {line["table_id"] for line in about_tables}
    assert Counter(line["event"] for line in about_tables) == {
        "table_opened": 1, "stream_open": 4, "dealt": 1, "game_over": 1, "stream_closed": 4, "table_closed": 1}
    # The seq where the event has one: a stream opened at 0, the deal the first
    # change, the game over at its last move.
    assert {line["seq"] for line in about_tables if line["event"] == "stream_open"} == {0}
    assert [line["seq"] for line in about_tables if line["event"] == "dealt"] == [1]
    assert [line["seq"] for line in about_tables if line["event"] in ("game_over", "table_closed")] == [
        1 + summary["moves"]] * 2
    assert all(line["room_id"].startswith("room-") for line in about_tables
               if line["event"] in ("table_opened", "table_closed"))
    assert table_id.startswith("bigtwo-")
    shutil.rmtree(temporary, ignore_errors=True)
