"""The host on the network test bed: a Ray head and a room node, each in a namespace
with its own address, started as an operator starts them (`ray start` with that node's
address); the front door on the head; bots in a client namespace of their own. The
players reach the front door at the head's address and their table at the room node's,
which the room advertises; every hash checks out. Then the room node is cut off from
everyone and healed, and a new game still plays through it."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bed_cluster import Cluster
from netbed import NetBed
from ray_processes import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.slow]


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
