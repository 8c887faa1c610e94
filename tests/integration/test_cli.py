"""The `tablehost` command as a user runs it: a second front door joining
the running cluster, bots with a JSON summary, a person playing from
piped input, and a clean stop on SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
import ray

pytestmark = [pytest.mark.integration, pytest.mark.slow]

TABLEHOST = [sys.executable, "-m", "tablehost.host.cli"]


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
    assert host.lobby("status")["tables_started"] >= 2


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


def test_status_shows_an_operator_the_rooms_per_node_and_the_queues(host) -> None:
    as_json = subprocess.run(TABLEHOST + ["status", "--target", host.target, "--json"],
                             capture_output=True, text=True, timeout=60)
    assert as_json.returncode == 0, as_json.stderr
    status = json.loads(as_json.stdout)
    rooms = [room for node in status["nodes"] for room in node["rooms"]]
    assert rooms and all(room["capacity"] == 300 and room["endpoint"].startswith("127.0.0.1:") for room in rooms)
    assert int(status["free_slots"]) == sum(room["capacity"] - room["tables"] for room in rooms if room["state"] == "ready")
    for_people = subprocess.run(TABLEHOST + ["status", "--target", host.target],
                                capture_output=True, text=True, timeout=60, env={**os.environ, "COLUMNS": "160"})
    assert for_people.returncode == 0 and "rooms per node" in for_people.stdout
    assert all(room["room_id"] in for_people.stdout for room in rooms)


def test_status_of_a_host_that_is_not_there_fails_with_its_reason() -> None:
    failed = subprocess.run(TABLEHOST + ["status", "--target", "127.0.0.1:1"], capture_output=True, text=True, timeout=60)
    assert failed.returncode == 1 and "UNAVAILABLE" in failed.stderr


def test_one_table_per_room_gives_each_table_a_process_of_its_own_and_idle_rooms_are_released() -> None:
    """The isolation setting, on a host with an embedded Ray of its own: three
    tables at once need three rooms beside the reserve; once the games are over,
    the rooms beyond one per CPU and the reserve of two free slots are released."""
    serve = subprocess.Popen(TABLEHOST + ["serve", "--port", "0", "--tables-per-room", "1", "--idle-release", "1"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

    def status(target: str) -> dict:
        return json.loads(subprocess.run(TABLEHOST + ["status", "--target", target, "--json"],
                                         capture_output=True, text=True, timeout=60).stdout)

    try:
        target = wait_for_line(serve, "listening on ", 90).removeprefix("listening on ")
        bots = subprocess.run(TABLEHOST + ["bots", "--target", target, "--tables", "3", "--json"],
                              capture_output=True, text=True, timeout=120)
        after_games = status(target)
        deadline = time.monotonic() + 60
        while (settled := status(target))["rooms"] > 2 and time.monotonic() < deadline:
            time.sleep(0.5)
        serve.send_signal(signal.SIGTERM)
        assert serve.wait(30) == 0
    finally:
        if serve.poll() is None:
            serve.kill()
    assert json.loads(bots.stdout.strip().splitlines()[-1])["games_completed"] == 3
    rooms = [room for node in after_games["nodes"] for room in node["rooms"]]
    # Three tables played at once, one per room: at least three room processes.
    assert all(room["capacity"] == 1 for room in rooms)
    assert int(after_games["tables_started"]) == 3 and len({room["pid"] for room in rooms}) >= 3
    assert settled["rooms"] == 2 and settled["free_slots"] == 2
