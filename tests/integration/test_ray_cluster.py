"""The host on a real multi-process Ray cluster (three nodes, the head from
`ray start --head`, each node its own processes), with two front doors
joined to it by `tablehost serve --address`: bots play through both, the
rooms land on several nodes, every hash checks out, nothing listens or
connects beyond 127.0.0.1, and the rooms advertise the address their own
node's environment names (--advertise-host env:NAME). Then an operator
drains one node (`tablehost drain --node`): its rooms stop, none starts
there again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from tablehost.actors.lobby import LOBBY_NAME
from tablehost.host.admin_auth import admin_token
from tests.integration.ray_processes import RayStartCluster, stop_process_trees, wait_for
from tests.integration.support import sockets_beyond_loopback

pytestmark = [pytest.mark.integration, pytest.mark.slow]

TABLEHOST = [sys.executable, "-m", "tablehost.host.cli"]
NODE_HOST_VARIABLE = "TABLEHOST_TEST_NODE_HOST"
TOKEN_SECRET = "cluster-test-secret-" + "x" * 20
TABLES_PER_DOOR = 6


class FrontDoor:
    """`tablehost serve` joined to the cluster, in its own process."""

    def __init__(self, cluster: RayStartCluster, log_dir: Path, name: str) -> None:
        self.lines: list[str] = []
        self.log = open(log_dir / f"{name}.log", "w")
        self.process = subprocess.Popen(
            [*TABLEHOST, "serve", "--address", cluster.address, "--port", "0", "--room-host", "127.0.0.1",
             "--advertise-host", f"env:{NODE_HOST_VARIABLE}", "--tables-per-room", "2", "--store", "none"],
            stdout=subprocess.PIPE, stderr=self.log, text=True, env={**cluster.env, "TABLEHOST_TOKEN_SECRET": TOKEN_SECRET})
        threading.Thread(target=self._read, daemon=True).start()
        wait_for(lambda: self.target is not None or self.process.poll() is not None, 120, f"front door {name} serving")
        assert self.target is not None, f"front door {name} exited {self.process.returncode}; see {self.log.name}"

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line.strip())

    @property
    def target(self) -> str | None:
        return next((line.removeprefix("listening on ") for line in self.lines if line.startswith("listening on ")),
                    None)

    @property
    def admin_target(self) -> str | None:
        return next((line.removeprefix("admin on ") for line in self.lines if line.startswith("admin on ")), None)

    def status(self) -> dict:
        """`tablehost status` on this door's admin listener, with an admin token."""
        return json.loads(subprocess.run(
            [*TABLEHOST, "status", "--target", self.admin_target, "--json"], capture_output=True, text=True,
            check=True, timeout=60, env={**os.environ, "TABLEHOST_ADMIN_TOKEN": admin_token(
                os.environ["TABLEHOST_ADMIN_SECRET"].encode(), "tests", time.time_ns() // 1_000_000 + 3_600_000)}).stdout)


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[RayStartCluster]:
    # As in deploy/: only the nodes meant for rooms name the address to
    # advertise, so a room the lobby tries on the head fails to start there.
    started = RayStartCluster(workers=2, cpus=1, worker_env={NODE_HOST_VARIABLE: "127.0.0.1"})
    try:
        yield started.start()
    finally:
        started.stop()


def test_two_front_doors_play_through_a_three_node_cluster(cluster: RayStartCluster, tmp_path: Path) -> None:
    doors = [FrontDoor(cluster, tmp_path, f"door-{index}") for index in range(2)]
    try:
        runs = [subprocess.Popen([*TABLEHOST, "bots", "--target", door.target, "--game", "bigtwo", "--tables",
                                  str(TABLES_PER_DOOR), "--seed", str(index * 1000), "--timeout", "150", "--json"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=cluster.env)
                for index, door in enumerate(doors)]
        summaries = []
        for run in runs:
            out, err = run.communicate(timeout=200)
            assert run.returncode == 0, (out[-3000:], err[-3000:])
            summaries.append(json.loads(out.strip().splitlines()[-1]))
        statuses: list[dict] = []

        def rooms_unknown_to_the_lobby() -> set[str]:
            """Room actors alive in the cluster that the lobby, asked just
            after, does not list: what a room left running after a failed
            start would be. Asked in this order, a room the lobby starts or
            stops between the two reads is not counted."""
            actors = {name.removeprefix(f"{LOBBY_NAME}/") for name in cluster.named_actors(f"{LOBBY_NAME}/")}
            statuses.append(doors[1].status())
            return actors - {room["room_id"] for node in statuses[-1]["nodes"] for room in node["rooms"]}

        # Rooms that failed to start on the head were stopped, not left running:
        # a room being stopped may outlive the lobby's record of it briefly.
        wait_for(lambda: not rooms_unknown_to_the_lobby(), 60, "every room actor known to the lobby")
        status = statuses[-1]
        outside = [socket for process in cluster.nodes + [door.process for door in doors]
                   for socket in sockets_beyond_loopback(psutil.Process(process.pid))[1]]
        # An operator drains a node of rooms, named as `tablehost status` shows it (no store
        # here: their games are over).
        drained_node = next(node["node_id"] for node in status["nodes"]
                            if any(room["state"] == "ready" for room in node["rooms"]))
        drained_pids = [room["pid"] for node in status["nodes"] if node["node_id"] == drained_node
                        for room in node["rooms"] if room["pid"]]
        drain = subprocess.run([*TABLEHOST, "drain", "--node", drained_node[:12], "--address", cluster.address,
                                "--timeout", "60"], capture_output=True, text=True, timeout=120, env=cluster.env)
        rooms_on_drained_node = [room for node in doors[0].status()["nodes"]
                                 if node["node_id"] == drained_node for room in node["rooms"]]
        wait_for(lambda: not any(psutil.pid_exists(pid) for pid in drained_pids), 30, "the drained rooms' processes gone")
    finally:
        stop_process_trees([door.process for door in doors])

    for summary in summaries:
        assert summary["ok"] and summary["desyncs"] == 0 and summary["errors"] == 0
        assert summary["bots_finished"] == 4 * TABLES_PER_DOOR
    alive = [node for node in status["nodes"] if node["alive"]]
    # A room the lobby is trying again on the head may be starting there: count ready rooms.
    nodes_with_rooms = {node["node_id"] for node in alive if any(room["state"] == "ready" for room in node["rooms"])}
    assert len(alive) == 3 and len(nodes_with_rooms) == 2, status["nodes"]
    assert int(status["front_doors"]) == 2
    assert int(status["tables_started"]) >= 2 * TABLES_PER_DOOR
    assert not outside, f"sockets beyond 127.0.0.1: {outside}"
    # Every room serving advertises the address its node names (a starting one has none yet).
    endpoints = [room["endpoint"] for node in alive for room in node["rooms"] if room["state"] == "ready"]
    assert endpoints and all(endpoint.startswith("127.0.0.1:") for endpoint in endpoints), status["nodes"]
    # The drained node's rooms stopped, and none started there again.
    assert drain.returncode == 0, (drain.stdout, drain.stderr[-3000:])
    assert drain.stdout.splitlines()[-1].startswith("drained and stopped: room-"), drain.stdout
    assert drained_pids and rooms_on_drained_node == [], rooms_on_drained_node
