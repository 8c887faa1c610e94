"""The host on the network test bed: a Ray head and a room node, each in a namespace
with its own address, started as an operator starts them (`ray start` with that node's
address); the front door on the head; bots in a client namespace of their own. The
players reach the front door at the head's address and their table at the room node's,
which the room advertises; every hash checks out. Then the room node is cut off from
everyone and healed, and a new game still plays through it."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from netbed import NetBed
from ray_processes import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.slow]

RAY = str(Path(sys.executable).with_name("ray"))
TABLEHOST = [sys.executable, "-m", "tablehost.host.cli"]
NODE_HOST_VARIABLE = "TABLEHOST_NODE_HOST"
RAY_PORT = 6380
START_TIMEOUT_S = 120.0


class Cluster:
    """Ray on the bed: the head (one CPU: the lobby) and a room node (one CPU)."""

    def __init__(self, bed: NetBed, log_dir: Path) -> None:
        self.bed, self.log_dir = bed, log_dir
        # The suite keeps its own Ray on loopback by refusing multi-node clusters
        # (RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0); the bed's nodes have addresses of their
        # own, and whatever a node listens on is inside its namespace.
        self.env = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "1",
                    "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32),
                    "TABLEHOST_TOKEN_SECRET": "bed-test-secret-" + "x" * 24}
        self.address = f"{bed.address('head')}:{RAY_PORT}"
        self.front_door_lines: list[str] = []

    def start(self) -> Cluster:
        head = self._ray("head", ["start", "--head", "--port", str(RAY_PORT), "--include-dashboard", "false"])
        self._wait_for_nodes(1, head)
        room = self._ray("room1", ["start", "--address", self.address],
                         {NODE_HOST_VARIABLE: self.bed.address("room1")})
        self._wait_for_nodes(2, room)
        door = self.bed.start("head", [*TABLEHOST, "serve", "--address", self.address, "--host",
                                       self.bed.address("head"), "--port", "0", "--room-host", "0.0.0.0",
                                       "--advertise-host", f"env:{NODE_HOST_VARIABLE}", "--store", "none"],
                              stdout=subprocess.PIPE, stderr=open(self.log_dir / "door.log", "w"), text=True,
                              env=self.env)
        threading.Thread(target=lambda: self.front_door_lines.extend(line.strip() for line in door.stdout),
                         daemon=True).start()
        wait_for(lambda: self.target is not None or door.poll() is not None, START_TIMEOUT_S, "the front door")
        assert self.target is not None, (self.log_dir / "door.log").read_text()[-3000:]
        return self

    def _ray(self, node: str, args: list[str], extra_env: dict[str, str] | None = None) -> subprocess.Popen:
        temp_dir = tempfile.mkdtemp(prefix=f"thb-{node}-", dir="/tmp")  # short: Ray's socket paths
        return self.bed.start(node, [RAY, *args, "--node-ip-address", self.bed.address(node), "--num-cpus", "1",
                                     "--temp-dir", temp_dir, "--block", "--disable-usage-stats"],
                              stdout=open(self.log_dir / f"ray-{node}.log", "wb"), stderr=subprocess.STDOUT,
                              env={**self.env, **(extra_env or {})})

    def _wait_for_nodes(self, count: int, starting: subprocess.Popen) -> None:
        probe = ("import ray, sys; ray.init(address=sys.argv[1], logging_level='ERROR'); "
                 "print(sum(node['Alive'] for node in ray.nodes()))")

        def alive() -> int:
            done = self.bed.run("head", [sys.executable, "-c", probe, self.address], timeout=60, env=self.env)
            lines = done.stdout.strip().splitlines()
            return int(lines[-1]) if done.returncode == 0 and lines else 0

        wait_for(lambda: starting.poll() is not None or alive() == count, START_TIMEOUT_S, f"{count} Ray nodes alive")
        assert starting.poll() is None, f"ray start exited {starting.returncode}: see {self.log_dir}"

    @property
    def target(self) -> str | None:
        return next((line.removeprefix("listening on ") for line in self.front_door_lines
                     if line.startswith("listening on ")), None)

    def bots(self, tables: int, seed: int, timeout_s: int = 90) -> dict:
        done = self.bed.run("client", [*TABLEHOST, "bots", "--target", self.target, "--tables", str(tables),
                                       "--seed", str(seed), "--timeout", str(timeout_s), "--json"],
                            timeout=timeout_s + 60)
        assert done.returncode == 0, (done.stdout[-3000:], done.stderr[-3000:])
        return json.loads(done.stdout.strip().splitlines()[-1])

    def status(self) -> dict:
        done = self.bed.run("client", [*TABLEHOST, "status", "--target", self.target, "--json"], timeout=60)
        assert done.returncode == 0, done.stderr[-3000:]
        return json.loads(done.stdout)


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    bed = NetBed.create(["head", "room1", "client"])
    try:
        yield Cluster(bed, tmp_path).start()
    finally:
        bed.destroy()


def clean(summary: dict, tables: int) -> bool:
    return (summary["ok"] and summary["games_completed"] == tables and summary["desyncs"] == 0
            and summary["errors"] == 0)


def test_players_in_their_own_namespace_play_through_a_room_on_another_node(cluster: Cluster) -> None:
    assert cluster.target.startswith(cluster.bed.address("head") + ":")
    summary = cluster.bots(tables=3, seed=1)
    assert clean(summary, 3), summary

    nodes = [node for node in cluster.status()["nodes"] if node["alive"]]
    # Rooms serve only where the node names its address: the room node's, never the head's.
    endpoints = {room["endpoint"].rsplit(":", 1)[0] for node in nodes for room in node["rooms"]
                 if room["state"] == "ready"}
    assert endpoints == {cluster.bed.address("room1")}, nodes

    # Cut off (shorter than Ray's failure detection): the room's port is silent to players.
    endpoint = next(room["endpoint"] for node in nodes for room in node["rooms"] if room["state"] == "ready")
    cluster.bed.partition("room1")
    assert connect(cluster.bed, "client", endpoint) == "TimeoutError"
    cluster.bed.heal("room1")
    wait_for(lambda: connect(cluster.bed, "client", endpoint) == "connected", 30, "the room reachable again")
    after = cluster.bots(tables=2, seed=2)
    assert clean(after, 2), after


CONNECT = """
import socket, sys
host, port = sys.argv[1].rsplit(":", 1)
try:
    socket.create_connection((host, int(port)), timeout=1.5).close()
    print("connected")
except OSError as error:
    print(type(error).__name__)
"""


def connect(bed: NetBed, node: str, endpoint: str) -> str:
    return bed.run(node, [sys.executable, "-c", CONNECT, endpoint], timeout=30).stdout.strip()
